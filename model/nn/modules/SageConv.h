#pragma once

#include <torch/torch.h>

#include "Dense.h"
#include "GraphTensors.h"

namespace tpg::nn {

// Residual GraphSAGE layer with separate mean aggregation over a node's producers (operands) and
// consumers (users): x + ReLU(LayerNorm(W [x, mean producers, mean consumers])).
// Sparse: a compressed-rows product over the edges (NeighbourMean), along dim 0 (node-major, so
// each message is one contiguous [C, H] block). Middle dims are batch dims (configs).
// x [N, H] or [N, C, H] -> same shape
struct SageConvImpl : torch::nn::Module {
    explicit SageConvImpl(int64_t hidden);
    torch::Tensor forward(const torch::Tensor& x, const GraphEdges& edges);
    // The layer's output from x and its two mean messages, all [.., H] (rows computed apart from
    // forward: an edit's receptive field, a default search's distinct rows).
    torch::Tensor combine(const torch::Tensor& x, const torch::Tensor& fromProducers,
                          const torch::Tensor& fromConsumers);

    Dense update{nullptr};
    torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(SageConv);

// One mean message per row R ([R, (C,) H]): the sum of x's `source` rows added at `target` (a
// row, one entry per edge), times each row's 1 / neighbour count (invCount [R, 1]). For the
// passes that compute rows apart (their edges change per call).
torch::Tensor meanMessages(const torch::Tensor& target, const torch::Tensor& x, const torch::Tensor& source,
                           const torch::Tensor& invCount);

}  // namespace tpg::nn
