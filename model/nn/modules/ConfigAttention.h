#pragma once

#include <torch/torch.h>

namespace tpg::nn {

// Cross-configuration attention: the configs of one graph (one batch) attend to each other, so a
// config's score can depend on what the alternatives look like. Pre-norm residual block.
// x [C, D] -> [C, D]
struct ConfigAttentionImpl : torch::nn::Module {
    ConfigAttentionImpl(int64_t dim, int64_t heads);
    torch::Tensor forward(const torch::Tensor& x);

    torch::nn::LayerNorm norm{nullptr};
    torch::nn::MultiheadAttention attention{nullptr};
};
TORCH_MODULE(ConfigAttention);

}  // namespace tpg::nn
