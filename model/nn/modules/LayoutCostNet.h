#pragma once

#include <torch/torch.h>

#include "ConfigAttention.h"
#include "CostNetOptions.h"
#include "Dense.h"
#include "GraphTensors.h"
#include "LayoutConfigEncoder.h"
#include "Mlp.h"
#include "NodeEncoder.h"
#include "SageConv.h"

namespace tpg::nn {

// Layout cost model: predicts a score per config (lower = faster; trained as log runtime).
// The config-free pass over all N nodes runs once per batch; only the nodes within `layers`
// hops of a configurable node carry a per-config embedding. Readout: mean + max over all nodes,
// mean over the configurable nodes, and a skip path from the config encodings.
// config [C, nc, F] raw values, violation [C] (or undefined) -> [C]
struct LayoutCostNetImpl : torch::nn::Module {
    explicit LayoutCostNetImpl(const CostNetOptions& options);
    torch::Tensor forward(const GraphTensors& graph, const torch::Tensor& config,
                          const torch::Tensor& violation);

    CostNetOptions options;
    NodeEncoder nodeEncoder{nullptr};
    LayoutConfigEncoder configEncoder{nullptr};
    Mlp fuse{nullptr};  // [node, config] -> H: lets the config's effect depend on the node's shape
    torch::nn::ModuleList layers{nullptr};
    Dense project{nullptr};
    ConfigAttention attention{nullptr};
    Mlp head{nullptr};
};
TORCH_MODULE(LayoutCostNet);

}  // namespace tpg::nn
