#pragma once

#include <torch/torch.h>

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

    bool defined() const { return dims.defined(); }
    LayoutSlotTensors rows(const torch::Tensor& index) const;  // index into nc
};

LayoutSlotTensors makeLayoutSlotTensors(const std::vector<LayoutSlotShape>& shapes);

// Per slot, what a layout means physically on a TPU (11 values): explicit or default, log size of
// the most-minor and second-most-minor dims, lane (128) and sublane (8) padding, the op's preferred
// dim not most minor, a reduced dim most minor, the most-minor dim moved from the default, any
// change from the default, row-major, and the tensor's log size when changed (a copy's volume).
// Slots left at -1 are described by their default layout.
constexpr int64_t kSlotFeatureCount = 11;
// config [C, nc, 18] raw values -> [C, nc, 3 * kSlotFeatureCount]
torch::Tensor layoutSlotFeatures(const torch::Tensor& config, const LayoutSlotTensors& slots);

}  // namespace tpg::nn
