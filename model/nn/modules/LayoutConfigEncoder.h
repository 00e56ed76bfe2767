#pragma once

#include <torch/torch.h>

#include "Dense.h"

namespace tpg::nn {

// Encodes each configurable node's layout config. Values are small integers (-1 = default,
// 0..5 = axes): each column becomes its value and a one-hot over -1..5, so "-1" and "0" are
// distinct inputs. Optional extra per-node inputs (the slot features) join them.
// config [C, nc, F] (raw values), extra [C, nc, X] (or undefined when X = 0) -> [C, nc, H]
struct LayoutConfigEncoderImpl : torch::nn::Module {
    LayoutConfigEncoderImpl(int64_t configWidth, int64_t hidden, int64_t extraWidth = 0);
    torch::Tensor forward(const torch::Tensor& config, const torch::Tensor& extra = {});

    int64_t width, extraWidth;
    Dense first{nullptr}, second{nullptr};
};
TORCH_MODULE(LayoutConfigEncoder);

// The one-hot expansion alone: [C, nc, F] -> [C, nc, F * (1 + kLayoutValueCount)]
torch::Tensor expandLayoutConfig(const torch::Tensor& config);

}  // namespace tpg::nn
