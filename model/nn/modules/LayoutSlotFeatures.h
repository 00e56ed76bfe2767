#pragma once

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "LayoutSlotShapes.h"

namespace tpg::nn {

// The static half of the slot features: one graph's LayoutSlotShapes as tensors (in GraphTensors;
// undefined when the model does not use slot features).
struct LayoutSlotTensors {
    torch::Tensor dims;      // [nc, 3, 6] float sizes, 1 beyond rank
    torch::Tensor defaults;  // [nc, 3, 6] long default minor-to-major, -1 padded
    torch::Tensor rowMajor;  // [nc, 3, 6] long row-major minor-to-major, -1 padded
    torch::Tensor reduced;   // [nc, 3, 6] bool: dim reduced away (reduce input)
    torch::Tensor rank;      // [nc, 3] long, 0 when the slot does not apply
    torch::Tensor preferred; // [nc, 3] long: dim the op wants most minor, -1 none
    torch::Tensor logVolume; // [nc, 3] float: log of the tensor's element count
    torch::Tensor source;       // [nc, 3] long: row whose output layout reaches the operand slot, -1 none
    torch::Tensor layoutFree;   // [nc, 3] bool: the operand is made in the layout its user wants
    torch::Tensor volumeShare;  // [nc, 3] float: LayoutSlotShape::volumeShare
    torch::Tensor programOutputShare;  // [nc, 3] float: LayoutSlotShape::programOutputShare
    // The graph's reshapes and transposes a config can turn into relayouts (their rows name the
    // whole graph's); null when the flow features carry no relayout columns.
    std::shared_ptr<const std::vector<RelayoutOp>> relayouts;

    bool defined() const { return dims.defined(); }
    bool relayoutColumns() const { return relayouts != nullptr; }
    // Index into nc; `source` keeps naming rows of the whole graph.
    LayoutSlotTensors rows(const torch::Tensor& index) const;
};

// With `relayouts`, the flow features carry the relayout columns.
LayoutSlotTensors makeLayoutSlotTensors(const std::vector<LayoutSlotShape>& shapes,
                                        const std::vector<RelayoutOp>* relayouts = nullptr);

// Per slot, what a layout means physically on a TPU (11 values): explicit or default, log size of
// the most-minor and second-most-minor dims, lane (128) and sublane (8) padding, the op's preferred
// dim not most minor, a reduced dim most minor, the most-minor dim moved from the default, any
// change from the default, row-major, and the tensor's log size when changed (a copy's volume).
// Slots left at -1 are described by their default layout.
constexpr int64_t kSlotFeatureCount = 11;
// config [C, nc, 18] raw values -> [C, nc, 3 * kSlotFeatureCount]
torch::Tensor layoutSlotFeatures(const torch::Tensor& config, const LayoutSlotTensors& slots);

// Per slot, how the layout flows beyond the node's neighbours (3 values). Output slot: the share of
// the program's elements that take this layout, the extra elements its lane and sublane padding
// costs them (log1p of 10x the share), and the share of program outputs it reaches when changed
// (they keep their default layout: a copy). Operand slots: the layout asked for differs from the
// one arriving from the source row (its output slot, or the operand's default), a copy; the most
// minor dim differs too (through the transpose unit); log1p of 100x the copied share.
constexpr int64_t kFlowFeatureCount = 3;
// With relayout columns, three more per slot, on the output slot (zero on the operand slots): of the
// reshapes and transposes this node's layouts make physical relayouts instead of bitcasts (its own,
// or those reading the layout it gives), log1p of their count, of 100x their share of the program's
// elements and of 100x their tile-padded elements read and written over the program's.
constexpr int64_t kRelayoutFeatureCount = 3;
int64_t flowFeatureCount(bool relayoutColumns);
// config [C, nc, 18] of the whole graph (sources index it) -> [C, nc, 3 * flowFeatureCount]
torch::Tensor layoutFlowFeatures(const torch::Tensor& config, const LayoutSlotTensors& slots);

}  // namespace tpg::nn
