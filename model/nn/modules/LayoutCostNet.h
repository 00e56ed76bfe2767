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

// The config-free part of a layout forward pass over one graph: depends only on the graph and
// the weights, so scoring computes it once per graph (under NoGradGuard) and reuses it for every
// config batch. Shapes: S = nodes with per-config work, D = their config-dependent core.
struct LayoutSharedPass {
    torch::Tensor subsetInput;        // [S, H] node encodings of S
    torch::Tensor configurableInput;  // [nc, H] node encodings of the configurable nodes
    std::vector<torch::Tensor> halo;  // per layer: [S - D, H] config-free halo embeddings after it
                                      // (empty when S has no halo)
    torch::Tensor restSum, restMax;   // [H] over the N - D config-free nodes; undefined if none
};

// Layout cost model: predicts a score per config (lower = faster; trained as log runtime).
// The config-free pass over all N nodes runs once per batch (once per graph and weights when
// scoring: CostModel caches sharedPass); only the nodes within `layers`
// hops of a configurable node carry a per-config embedding. Readout: mean + max over all nodes,
// mean over the configurable nodes, and a skip path from the config encodings.
// config [C, nc, F] raw values, violation [C] (or undefined) -> [C]
struct LayoutCostNetImpl : torch::nn::Module {
    explicit LayoutCostNetImpl(const CostNetOptions& options);
    torch::Tensor forward(const GraphTensors& graph, const torch::Tensor& config,
                          const torch::Tensor& violation);
    // The same scores from a precomputed sharedPass(graph) (bit-identical: the same ops).
    torch::Tensor forward(const GraphTensors& graph, const LayoutSharedPass& shared,
                          const torch::Tensor& config, const torch::Tensor& violation);
    LayoutSharedPass sharedPass(const GraphTensors& graph);

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
