#pragma once

#include <torch/torch.h>

#include "Dense.h"

namespace tpg::nn {

// Embeds each node from its opcode and its normalised features.
// x [N, F], opcode [N] (long) -> [N, H]
struct NodeEncoderImpl : torch::nn::Module {
    NodeEncoderImpl(int64_t featureWidth, int64_t opcodeDim, int64_t hidden);
    torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& opcode);

    torch::nn::Embedding opcodeEmbedding{nullptr};
    Dense project{nullptr};
    torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(NodeEncoder);

}  // namespace tpg::nn
