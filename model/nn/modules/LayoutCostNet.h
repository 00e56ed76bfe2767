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
                                      // or without the pooled head
    torch::Tensor restCost;           // [] log of the summed node costs of those nodes (node-cost
                                      // readout); undefined if none
};

// One configuration's per-layer embeddings (C = 1), kept so that an edit of a few configurable
// nodes re-scores by recomputing only their receptive field (`layers` hops in S).
struct LayoutConfigState {
    torch::Tensor encoded;         // [1, nc, H] config encodings
    std::vector<torch::Tensor> z;  // per layer 0..L: [S, 1, H]
};

// The local graph of S as adjacency lists (CPU), to grow an edit's receptive field.
struct LocalAdjacency {
    std::vector<std::vector<int64_t>> producers, consumers;  // per S position
    std::vector<char> halo;                                  // per S position
    // Per configurable row, the rows whose flow features read its layout (they take their
    // operand's layout from it); empty without flow features.
    std::vector<std::vector<int64_t>> flowReaders;
    explicit LocalAdjacency(const GraphTensors& graph);
};

// Layout cost model: predicts a score per config (lower = faster; trained as log runtime).
// The config-free pass over all N nodes runs once per batch (once per graph and weights when
// scoring: CostModel caches sharedPass); only the nodes within `layers`
// hops of a configurable node carry a per-config embedding. Readout: mean + max over all nodes,
// mean over the configurable nodes, and a skip path from the config encodings. With the node-cost
// readout, the score also adds log(sum over all N nodes of exp(per-node log cost)): a runtime is a
// sum of node costs, so each node predicts its own share. Without the pooled head (node-cost
// readout only) the score is that log sum alone: it decomposes into the nodes' predicted costs.
// config [C, nc, F] raw values, violation [C] (or undefined) -> [C]
struct LayoutCostNetImpl : torch::nn::Module {
    explicit LayoutCostNetImpl(const CostNetOptions& options);
    torch::Tensor forward(const GraphTensors& graph, const torch::Tensor& config,
                          const torch::Tensor& violation);
    // The same scores from a precomputed sharedPass(graph) (bit-identical: the same ops).
    torch::Tensor forward(const GraphTensors& graph, const LayoutSharedPass& shared,
                          const torch::Tensor& config, const torch::Tensor& violation);
    LayoutSharedPass sharedPass(const GraphTensors& graph);

    // Incremental scoring of one configuration (inference only). configState runs the per-config
    // pass for config [1, nc, F] and keeps its layers; rescore updates `state` for a config whose
    // configurable nodes `changed` (indices into nc) differ from the state's, recomputing only
    // their receptive field. Both return the score [1], equal to forward(...) within float
    // tolerance.
    torch::Tensor configState(const GraphTensors& graph, const LayoutSharedPass& shared,
                              const torch::Tensor& config, const torch::Tensor& violation,
                              LayoutConfigState& state);
    torch::Tensor rescore(const GraphTensors& graph, const LayoutSharedPass& shared,
                          const LocalAdjacency& adjacency, const torch::Tensor& config,
                          const std::vector<int64_t>& changed, const torch::Tensor& violation,
                          LayoutConfigState& state);

    // What the readout takes from a per-config pass.
    struct PerConfigPass {
        torch::Tensor z;                // [S, C, H] after the last layer
        torch::Tensor encodedByConfig;  // [C, nc, H]
        torch::Tensor dependentCost;    // [D, C] per-node log costs (node-cost readout), or undefined
    };
    // The per-config pass with every distinct row computed once (DistinctConfigRows.h), the
    // node-cost readout's per-node costs included; equal to the dense pass within float
    // tolerance. `z` stays undefined when the configs share too few rows: then the dense pass is
    // as cheap. With flow features a node's layer-0 row also reads its sources' configs.
    PerConfigPass distinctRowPass(const GraphTensors& graph, const LayoutSharedPass& shared,
                                  const torch::Tensor& config);

  private:
    // Config encodings [C, k, H] from config [C, nc, F]: all nc configurable nodes, or those `rows`.
    torch::Tensor encodeConfig(const GraphTensors& graph, const torch::Tensor& config,
                               const torch::Tensor& rows = {});
    // Encodings [C, k, H] of `picked` config rows [C, k, F] whose slot tensors are `slots`, with
    // their flow features [C, k, 3 x flowFeatureCount] when the model reads them.
    torch::Tensor encodePicked(const torch::Tensor& picked, const LayoutSlotTensors& slots,
                               const torch::Tensor& flow = {});
    // Without the node-cost readout the pooled head is the only score.
    bool hasPooledHead() const { return !options.nodeCostReadout || options.pooledHead; }
    // log(sum over all N nodes of exp(node log cost)) [C]; dependentCost [D, C] the per-config
    // nodes' costs when the distinct-row pass computed them already, else from zd [D, C, H].
    torch::Tensor summedNodeCost(const LayoutSharedPass& shared, const torch::Tensor& zd,
                                 const torch::Tensor& dependentCost);
    // Flow features: a row's encoding depends on other rows' configs.
    bool readsWholeConfig() const { return options.slotFeatures && options.flowFeatures; }
    torch::Tensor readout(const GraphTensors& graph, const LayoutSharedPass& shared,
                          const torch::Tensor& z, const torch::Tensor& encodedByConfig,
                          const torch::Tensor& violation, const torch::Tensor& dependentCost = {});
    // The fused (node, config) encodings of configurable nodes `rows` (indices into nc).
    torch::Tensor fused(const LayoutSharedPass& shared, const torch::Tensor& encoded,
                        const torch::Tensor& rows);

  public:
    CostNetOptions options;
    bool distinctRows = true;  // try distinctRowPass first (off: always the dense pass, to compare)
    double nodeDropout = 0;    // in training mode: dropout on the node encodings (a training setting, not saved)
    NodeEncoder nodeEncoder{nullptr};
    LayoutConfigEncoder configEncoder{nullptr};
    Mlp fuse{nullptr};  // [node, config] -> H: lets the config's effect depend on the node's shape
    torch::nn::ModuleList layers{nullptr};
    Dense project{nullptr};  // absent without the pooled head
    ConfigAttention attention{nullptr};
    Mlp head{nullptr};      // absent without the pooled head (hasPooledHead)
    Mlp nodeCost{nullptr};  // node-cost readout: [.., H] -> [.., 1] log cost of a node
};
TORCH_MODULE(LayoutCostNet);

}  // namespace tpg::nn
