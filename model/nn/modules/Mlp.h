#pragma once

#include <torch/torch.h>

#include "Dense.h"

namespace tpg::nn {

// Two-layer perceptron: [..., in] -> [..., out] (ReLU between, none after).
struct MlpImpl : torch::nn::Module {
    MlpImpl(int64_t in, int64_t hidden, int64_t out);
    torch::Tensor forward(const torch::Tensor& x);

    Dense first{nullptr}, second{nullptr};
};
TORCH_MODULE(Mlp);

}  // namespace tpg::nn
