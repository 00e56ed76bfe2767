#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg::nn {

// The tensor a layout slot (output, input, kernel) of a configurable node describes, read from
// node_feat: what a TPU compiler engineer checks when judging a minor-to-major layout (which
// dims land in the 128 lanes and 8 sublanes, whether a matmul's feature or contracting dim is most
// minor, whether a reduce crosses lanes). The model turns these and a config into the slot
// features of LayoutSlotFeatures.
struct LayoutSlotShape {
    int8_t rank = 0;                    // 0: the slot does not apply (tuple, no such operand)
    std::array<float, 6> dims{};        // sizes, 1 beyond rank
    std::array<int8_t, 6> defaultLayout{-1, -1, -1, -1, -1, -1};  // without a config; -1 padded
    int8_t preferredMinor = -1;  // the dim the op reads fastest when most minor; -1 none
    uint8_t reducedMask = 0;     // reduce input: bit d set when dim d is reduced away

    // Layout flow, beyond the node's neighbours (the flow features of LayoutSlotFeatures). XLA
    // gives an elementwise op the layout of its first operand of the same rank that is not made
    // on the fly, so one output layout can reach a long chain of ops, and arrive at an operand
    // slot far from where it was set.
    int32_t source = -1;      // operand slots: the configurable node (row) whose output layout arrives here; -1 none
    bool layoutFree = false;  // operand slots: a constant, broadcast or iota, made in the layout its user wants
    // Output slot: elements of the other nodes that take this node's layout, over the program's
    // elements; operand slots: the operand's elements over the program's.
    float volumeShare = 0;
    // Output slot: elements of this node and those nodes that are program outputs (which keep
    // their default layout), over the program's.
    float programOutputShare = 0;
};

constexpr int kLayoutSlots = 3;  // output_layout, input_layout, kernel_layout

// A reshape or transpose whose layouts a config can change: its own (a configurable node) or its
// operand's (owned by a configurable node through the layout flow). XLA makes it a free bitcast
// when the element order survives the layouts in force, else a physical relayout of its bytes.
struct RelayoutOp {
    int32_t node = 0;
    bool transpose = false;
    int32_t selfRow = -1;     // its configurable row, -1 when it keeps its default layout
    int32_t operandRow = -1;  // the row whose output layout its operand takes, -1 none
    LayoutSlotShape in, out;       // its operand's and its own shape and default layout
    std::array<int8_t, 6> perm{};  // transpose: output dim i is operand dim perm[i]
    float volumeShare = 0;         // its elements over the program's
};

// Per configurable node, its kLayoutSlots slots (node-major). Empty when node_feat is trimmed
// (the columns cannot be located). With `relayouts`, also every RelayoutOp of the graph, from the
// same pass over its layout flow.
std::vector<LayoutSlotShape> layoutSlotShapes(const TpuGraph& g, std::vector<RelayoutOp>* relayouts = nullptr);

}  // namespace tpg::nn
