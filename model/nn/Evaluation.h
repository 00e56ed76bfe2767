#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "CancelToken.h"
#include "graph/DatasetIndex.h"
#include "ModelInfo.h"
#include "graph/TpuGraph.h"

namespace tpg::nn {

// Files of `split` ("" = all) whose collection is `collection` or lies under it: "layout" selects
// every layout collection, "layout:xla" both xla searches, "" everything.
std::vector<DatasetFile> selectCollection(const std::vector<DatasetFile>& files,
                                          const std::string& collection, const std::string& split);

// Ranking quality on one graph (NaN where a metric does not apply or is undefined).
struct GraphMetrics {
    std::string id;  // competition ID
    int64_t configs = 0;
    double opa = 0, kendall = 0;
    double slowdown1 = 0, slowdown5 = 0, slowdown10 = 0;
    double tileScore = 0;
};

// predicted: lower = faster; truth: (normalised) runtimes.
GraphMetrics graphMetrics(const std::string& id, const std::vector<double>& predicted,
                          const std::vector<double>& truth);
// Means over graphs; score = Kendall (layout) or tile score (tile).
ValidationSummary summarize(Collection kind, const std::vector<GraphMetrics>& graphs);

// The sums behind summarize(), so shards of a validation add up: a data-parallel run validates
// a share of the graphs on each rank and all-reduces these.
struct MetricSums {
    static constexpr size_t kFields = 6;  // opa, kendall, slowdown 1/5/10, tile score
    double graphs = 0;
    std::array<double, kFields> sum{}, count{};  // over each field's finite values

    void add(const GraphMetrics& g);
    ValidationSummary summary(Collection kind) const;
    // graphs, sums, counts in one array (what is all-reduced), and back.
    std::vector<double> flat() const;
    static MetricSums fromFlat(const std::vector<double>& values);
};

// Something that scores chosen configs of a graph (the GNN, a baseline).
using ConfigScorer =
    std::function<std::vector<double>(const TpuGraph& g, const std::vector<int64_t>& configs)>;

struct EvaluationOptions {
    int64_t maxConfigsPerGraph = 0;  // 0 = all; else a deterministic random subset
    uint64_t seed = 7;
    // > 0: evaluate only the configs configHeldOut() reserves with this fraction.
    double heldOutConfigFraction = 0;
};

// Configs of `g` to evaluate under `options` (known runtimes only).
std::vector<int64_t> evaluationConfigs(const TpuGraph& g, const EvaluationOptions& options);

class CostModel;
// `model`'s ranking quality on the configs of `g` that `options` selects: the very configs a
// training run validates on with the same options (so two models compare on equal terms).
// `progress` hears (done, total) as they are scored; a cancelled evaluation returns an empty
// GraphMetrics (no configs).
GraphMetrics evaluateModel(const CostModel& model, const TpuGraph& g, const std::string& id,
                           const EvaluationOptions& options, const CancelToken* cancel = nullptr,
                           const std::function<void(int64_t done, int64_t total)>& progress = {});

// Loads and evaluates each file; files without runtimes (test split) are skipped.
// onGraph is called after each graph (for progress lines); stops early when cancelled.
std::vector<GraphMetrics> evaluateFiles(
    const std::vector<DatasetFile>& files, const ConfigScorer& scorer,
    const EvaluationOptions& options,
    const std::function<void(size_t done, const GraphMetrics*)>& onGraph = {},
    const CancelToken* cancel = nullptr);

}  // namespace tpg::nn
