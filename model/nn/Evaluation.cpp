#include "Evaluation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "CostModel.h"
#include "graph/GraphFile.h"
#include "metrics/Metrics.h"
#include "NnLimits.h"
#include "PreparedGraph.h"

namespace tpg::nn {

std::vector<DatasetFile> selectCollection(const std::vector<DatasetFile>& files,
                                          const std::string& collection, const std::string& split) {
    std::vector<DatasetFile> out;
    for (const auto& f : files) {
        const bool under = collection.empty() || f.collection == collection ||
                           f.collection.rfind(collection + ":", 0) == 0;
        if (under && (split.empty() || f.split == split)) out.push_back(f);
    }
    return out;
}

GraphMetrics graphMetrics(const std::string& id, const std::vector<double>& predicted,
                          const std::vector<double>& truth) {
    GraphMetrics m;
    m.id = id;
    m.configs = static_cast<int64_t>(truth.size());
    m.opa = metrics::orderedPairAccuracy(predicted, truth);
    m.kendall = metrics::kendallTau(predicted, truth);
    m.slowdown1 = metrics::topKSlowdown(predicted, truth, 1);
    m.slowdown5 = metrics::topKSlowdown(predicted, truth, limits::kTileTopK);
    m.slowdown10 = metrics::topKSlowdown(predicted, truth, 10);
    m.tileScore = metrics::tileScore(predicted, truth, limits::kTileTopK);
    return m;
}

ValidationSummary summarize(Collection kind, const std::vector<GraphMetrics>& graphs) {
    ValidationSummary s;
    s.graphs = static_cast<int>(graphs.size());
    auto mean = [&](double GraphMetrics::*field) {
        std::vector<double> v;
        for (const auto& g : graphs) v.push_back(g.*field);
        return metrics::finiteMean(v);
    };
    s.opa = mean(&GraphMetrics::opa);
    s.kendall = mean(&GraphMetrics::kendall);
    s.slowdown1 = mean(&GraphMetrics::slowdown1);
    s.slowdown5 = mean(&GraphMetrics::slowdown5);
    s.slowdown10 = mean(&GraphMetrics::slowdown10);
    s.score = kind == Collection::Layout ? s.kendall : mean(&GraphMetrics::tileScore);
    return s;
}

std::vector<int64_t> evaluationConfigs(const TpuGraph& g, const EvaluationOptions& o) {
    std::vector<int64_t> ids;
    for (int64_t c = 0; c < g.numConfigs(); ++c)
        if (o.heldOutConfigFraction <= 0 || configHeldOut(g.name(), c, o.heldOutConfigFraction))
            ids.push_back(c);
    if (o.maxConfigsPerGraph > 0 && static_cast<int64_t>(ids.size()) > o.maxConfigsPerGraph) {
        std::mt19937_64 rng(o.seed ^ std::hash<std::string>{}(g.name()));
        std::shuffle(ids.begin(), ids.end(), rng);
        ids.resize(static_cast<size_t>(o.maxConfigsPerGraph));
        std::sort(ids.begin(), ids.end());  // contiguous runs read faster
    }
    return ids;
}

std::vector<GraphMetrics> evaluateFiles(
    const std::vector<DatasetFile>& files, const ConfigScorer& scorer,
    const EvaluationOptions& options,
    const std::function<void(size_t, const GraphMetrics*)>& onGraph, const CancelToken* cancel) {
    std::vector<GraphMetrics> out;
    LoadOptions lo;
    lo.backgroundConfigs = false;
    for (size_t i = 0; i < files.size(); ++i) {
        if (cancel && cancel->cancelled()) break;
        const TpuGraph g = loadTpuGraph(files[i].path, lo);
        const GraphMetrics* reported = nullptr;
        if (g.runtimesKnown()) {
            const std::vector<int64_t> ids = evaluationConfigs(g, options);
            if (ids.size() >= 2) {
                std::vector<double> truth;
                for (int64_t c : ids) truth.push_back(g.normalizedRuntime(c));
                out.push_back(graphMetrics(files[i].competitionId(), scorer(g, ids), truth));
                reported = &out.back();
            }
        }
        if (onGraph) onGraph(i + 1, reported);
    }
    return out;
}

GraphMetrics evaluateModel(const CostModel& model, const TpuGraph& g, const std::string& id,
                           const EvaluationOptions& options) {
    const std::vector<int64_t> ids = g.runtimesKnown() ? evaluationConfigs(g, options) : std::vector<int64_t>{};
    std::vector<double> truth;
    for (int64_t c : ids) truth.push_back(g.normalizedRuntime(c));
    return graphMetrics(id, ids.size() >= 2 ? model.scoreConfigs(g, ids) : std::vector<double>(ids.size()), truth);
}

}  // namespace tpg::nn
