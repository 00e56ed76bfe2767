#pragma once

#include <torch/torch.h>

#include "Dense.h"
#include "GraphTensors.h"

namespace tpg::nn {

// Residual GraphSAGE layer with separate mean aggregation over a node's producers (operands) and
// consumers (users): x + ReLU(LayerNorm(W [x, mean producers, mean consumers])).
// Sparse: index_select + index_add_ over the edge list, along dim 0 (node-major, so each
// message is one contiguous [C, H] block). Middle dims are batch dims (configs).
// x [N, H] or [N, C, H] -> same shape
struct SageConvImpl : torch::nn::Module {
    explicit SageConvImpl(int64_t hidden);
    torch::Tensor forward(const torch::Tensor& x, const GraphEdges& edges);

    Dense update{nullptr};
    torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(SageConv);

}  // namespace tpg::nn
