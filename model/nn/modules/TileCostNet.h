#pragma once

#include <torch/torch.h>

#include "ConfigAttention.h"
#include "CostNetOptions.h"
#include "Dense.h"
#include "GraphTensors.h"
#include "Mlp.h"
#include "NodeEncoder.h"
#include "SageConv.h"
#include "TileBoundsFeatures.h"

namespace tpg::nn {

// Tile cost model: the graph-level config joins every node before message passing ("early
// join"), then residual GraphSAGE, mean + max pooling and an MLP head.
// config [C, F] normalised (F = configWidth + tileExtraColumns: bounds, spill, traffic features)
//   -> [C] (lower = faster)
struct TileCostNetImpl : torch::nn::Module {
    explicit TileCostNetImpl(const CostNetOptions& options);
    torch::Tensor forward(const GraphTensors& graph, const torch::Tensor& config);

    CostNetOptions options;
    NodeEncoder nodeEncoder{nullptr};
    Mlp configEncoder{nullptr};
    Mlp fuse{nullptr};  // [node, config] -> H per node
    torch::nn::ModuleList layers{nullptr};
    Dense project{nullptr};
    ConfigAttention attention{nullptr};
    Mlp head{nullptr};
};
TORCH_MODULE(TileCostNet);

}  // namespace tpg::nn
