#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"

// The torch-free half of the cost model's input pipeline: graph pruning, feature transforms,
// normalisation statistics and per-config summary features. Shared by the GNN, the graph-blind
// baseline and the trainer.
namespace tpg::nn {

// Per-column mean and standard deviation of transformed features (saved in model files).
struct ColumnStats {
    std::vector<float> mean;
    std::vector<float> invStd;  // 1 / std, or 1 for constant columns
    bool empty() const { return mean.empty(); }
    void apply(float* row) const;  // in place, row has mean.size() columns
};

// Node feature transform: re-pad the node layout columns 134-139 with -1 beyond the tensor's rank
// (files pad with 0, a valid axis), then signed log1p (shape products reach 1e9; keeps -1 and 0
// distinct). Width-agnostic: trimmed copies (< 140 columns) get only the log.
void transformNodeFeatures(const float* in, int64_t width, float* out);
// Tile config transform: signed log1p of each column.
void transformTileConfig(const float* in, int64_t width, float* out);

// Rank of a node's output tensor from shape_dimensions_0..5 (0 when unknown or a tuple).
int nodeRank(const TpuGraph& g, int64_t node);
// Index of the node's largest dimension, -1 when unknown (trimmed widths, rank 0).
int largestDimension(const TpuGraph& g, int64_t node);

// A graph made ready for the model: pruned to the configurable nodes and their k-hop
// neighbourhood (layout; tile graphs are kept whole), features transformed (not normalised).
struct PreparedGraph {
    TpuGraph graph;                // the source (its config table stays the config store)
    std::vector<int32_t> nodeIds;  // kept nodes, as ids in `graph`
    int64_t featureWidth = 0;
    std::vector<float> features;                // nodeIds.size() x featureWidth, transformed
    std::vector<int64_t> opcodes;               // clamped to the embedding vocabulary
    std::vector<std::array<int32_t, 2>> edges;  // {consumer, producer} in kept-node ids
    std::vector<int64_t> configurablePos;       // layout: kept-node id of each configurable node
    std::vector<int8_t> largestDim;             // layout: per configurable node, -1 unknown
    std::vector<int8_t> defaultMinor;           // layout: node_feat's most-minor axis, -1 unknown

    int64_t numNodes() const { return static_cast<int64_t>(nodeIds.size()); }
    size_t memoryBytes() const;  // prepared data + the graph's resident config store
};

// hops < 0 keeps the whole graph. Throws FormatError on inconsistent input.
PreparedGraph prepareGraph(const TpuGraph& g, int hops);

// Nodes within `hops` undirected hops of `seeds` (seeds included), sorted; hops < 0 = all nodes.
std::vector<int32_t> neighbourhood(int64_t numNodes,
                                   const std::vector<std::array<int32_t, 2>>& edges,
                                   const std::vector<int32_t>& seeds, int hops);

// Statistics of transformed node features (and tile config features) over a set of graphs.
struct FeatureStats {
    ColumnStats node;
    ColumnStats tileConfig;
};
FeatureStats computeFeatureStats(const std::vector<TpuGraph>& graphs);

// Fraction of configurable nodes whose largest dimension is not the most-minor one under the
// layout config `row` (nc x F floats); the config's -1 ("compiler default") falls back to the
// node's own layout. 0 when the widths are trimmed (columns cannot be located).
float violationRatio(const PreparedGraph& p, const float* row, int64_t configWidth);

// Distinct configurations of a graph and their targets: the first index of each distinct
// config row and the mean (normalised) runtime of its duplicates.
struct DistinctConfigs {
    std::vector<int64_t> index;
    std::vector<double> runtime;
    std::vector<int32_t> groupOf;  // config -> its entry in index/runtime
};
DistinctConfigs distinctConfigs(const TpuGraph& g);

// The hash behind heldOutConfigs(): true for about `fraction` of a graph's config indices
// (deterministic in graph name and config index, so trainer and evaluator agree).
bool configHeldOut(const std::string& graphName, int64_t config, double fraction);

// Per config, whether it is held out of training when `fraction` of each graph's configs is
// reserved. Duplicates (equal config rows) go together, decided by the first of them
// (configHeldOut of DistinctConfigs::index), so no held-out config has a twin among the trained
// ones: tile files repeat rows (40 distinct in 1,000), and a per-row decision leaked most held-out
// rows' runtimes to a model fitted on the others, or left nothing to train on when a group with
// any held-out member was dropped. All false for fraction <= 0.
std::vector<char> heldOutConfigs(const TpuGraph& g, double fraction);
std::vector<char> heldOutConfigs(const TpuGraph& g, const DistinctConfigs& d, double fraction);

}  // namespace tpg::nn
