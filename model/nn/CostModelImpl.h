#pragma once

// Internal to tpgnn (includes torch): the network behind CostModel, shared with the trainer.
#include <torch/torch.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "CostModel.h"
#include "PreparedGraph.h"
#include "TensorArchive.h"
#include "modules/GraphTensors.h"
#include "modules/LayoutCostNet.h"
#include "modules/TileCostNet.h"

namespace tpg::nn {

// A config batch ready for the network.
struct ConfigBatch {
    torch::Tensor config;     // layout [C, nc, F] raw values; tile [C, F + tileExtraColumns] normalised
    torch::Tensor violation;  // layout with the violation feature: [C]; else undefined
};

struct CostModel::Impl {
    ModelInfo info;
    std::string label;
    LayoutCostNet layout{nullptr};
    TileCostNet tile{nullptr};

    bool tieSamePrograms = true;  // CostModel::setTieSamePrograms
    std::mutex mutex;  // serialises scoring and the cache below
    // Interactive calls (an edit, a sweep) waiting for the mutex: a long scoreAll lets them in
    // between its batches, so an edit is not held up for a whole file's scoring.
    std::atomic<int> interactiveWaiting{0};
    // The mutex for an interactive call: announced, so that scoreAll yields it at its next batch.
    std::unique_lock<std::mutex> lockInteractive();
    // The last graph scored, prepared once: repeated edits of one graph cost one forward pass.
    const TpuGraphData* cachedGraph = nullptr;
    std::string cachedPath;
    int64_t cachedNodes = -1;
    std::shared_ptr<PreparedGraph> cachedPrepared;
    std::shared_ptr<GraphTensors> cachedTensors;
    // Layout: the config-free pass over the cached graph, valid while the weights are unchanged
    // (weightsStamp). Scoring one config then costs only the per-config pass (~half the work).
    std::shared_ptr<LayoutSharedPass> cachedShared;
    std::vector<int64_t> cachedSharedStamp;
    // Layout: the last row scored by scoreEdited, its per-layer state, and the local adjacency,
    // valid with cachedShared (same graph and weights).
    std::vector<float> editedRow;
    std::shared_ptr<LayoutConfigState> editedState;
    std::shared_ptr<LocalAdjacency> adjacency;
    int editsSinceFullPass = 0;

    void build();  // constructs the network from info
    torch::nn::Module& module();
    std::shared_ptr<torch::nn::Module> modulePtr();

    PreparedGraph prepare(const TpuGraph& g) const;
    GraphTensors makeTensors(const PreparedGraph& p) const;
    ConfigBatch batchForConfigs(const PreparedGraph& p, const int64_t* configs,
                                int64_t count) const;
    ConfigBatch batchForRows(const PreparedGraph& p, const float* rows, int64_t count) const;
    torch::Tensor forward(const GraphTensors& t, const ConfigBatch& b);
    // Inference forward on the cached graph's tensors `t`, reusing (or computing) the cached
    // config-free pass. Same scores as forward(t, b). Call under NoGradGuard with the mutex held.
    torch::Tensor forwardCached(const GraphTensors& t, const ConfigBatch& b);
    // The cached config-free pass for the cached graph's tensors `t`, computed if stale.
    const LayoutSharedPass& sharedFor(const GraphTensors& t);
    // Layout: one row, from the last row's state when they differ in a few configurable nodes
    // (CostModel::scoreEdited). Call under NoGradGuard with the mutex held.
    double scoreIncrementally(const TpuGraph& g, const PreparedGraph& prepared, const GraphTensors& tensors,
                              const float* row);
    // Identifies the current weights: changes when any parameter or buffer is modified in place
    // (optimizer step, load) or replaced.
    std::vector<int64_t> weightsStamp();
    int64_t scoringBatchSize(const GraphTensors& t) const;
    // Prepared graph + tensors for `g`, from the one-entry cache when it is the same graph.
    std::pair<std::shared_ptr<PreparedGraph>, std::shared_ptr<GraphTensors>> cached(
        const TpuGraph& g);
};

// A module's weights as named float tensors (TensorArchive), for model files and training states.
// Parameters and buffers by their dotted names, as Module::save names them.
std::vector<std::pair<std::string, torch::Tensor>> namedState(torch::nn::Module& module);
NamedTensor namedTensorOf(std::string name, const torch::Tensor& t);
std::vector<NamedTensor> namedTensorsOf(torch::nn::Module& module, const std::string& prefix);
// Throws FormatError(label, "weights") unless `stored` holds each of the module's tensors under
// prefix + its name, with its shape.
void requireNamedTensors(torch::nn::Module& module,
                         const std::map<std::string, NamedTensor>& stored,
                         const std::string& prefix, const std::string& label);
// After requireNamedTensors: copies them into the module and removes them from `stored`.
void loadNamedTensors(torch::nn::Module& module, std::map<std::string, NamedTensor>& stored,
                      const std::string& prefix);

}  // namespace tpg::nn
