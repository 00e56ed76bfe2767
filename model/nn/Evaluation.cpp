#include "Evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "CancelToken.h"
#include "CostModel.h"
#include "NnLimits.h"
#include "PreparedGraph.h"
#include "graph/GraphFile.h"
#include "graph/GroundTruth.h"
#include "metrics/Metrics.h"

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
    MetricSums sums;
    for (const auto& g : graphs) sums.add(g);
    return sums.summary(kind);
}

void MetricSums::add(const GraphMetrics& g) {
    graphs += 1;
    const std::array<double, kFields> values = {g.opa, g.kendall, g.slowdown1, g.slowdown5, g.slowdown10, g.tileScore};
    for (size_t i = 0; i < kFields; ++i)
        if (std::isfinite(values[i])) {
            sum[i] += values[i];
            count[i] += 1;
        }
}

ValidationSummary MetricSums::summary(Collection kind) const {
    auto mean = [&](size_t i) { return count[i] > 0 ? sum[i] / count[i] : std::numeric_limits<double>::quiet_NaN(); };
    ValidationSummary s;
    s.graphs = static_cast<int>(graphs);
    s.opa = mean(0);
    s.kendall = mean(1);
    s.slowdown1 = mean(2);
    s.slowdown5 = mean(3);
    s.slowdown10 = mean(4);
    s.score = kind == Collection::Layout ? s.kendall : mean(5);
    return s;
}

std::vector<double> MetricSums::flat() const {
    std::vector<double> v{graphs};
    v.insert(v.end(), sum.begin(), sum.end());
    v.insert(v.end(), count.begin(), count.end());
    return v;
}

MetricSums MetricSums::fromFlat(const std::vector<double>& v) {
    MetricSums m;
    if (v.size() != 1 + 2 * kFields) return m;
    m.graphs = v[0];
    std::copy(v.begin() + 1, v.begin() + 1 + kFields, m.sum.begin());
    std::copy(v.begin() + 1 + kFields, v.end(), m.count.begin());
    return m;
}

std::vector<int64_t> evaluationConfigs(const TpuGraph& g, const EvaluationOptions& o) {
    std::vector<int64_t> ids;
    const std::vector<char> held = heldOutConfigs(g, o.heldOutConfigFraction);
    for (int64_t c = 0; c < g.numConfigs(); ++c)
        if (o.heldOutConfigFraction <= 0 || held[static_cast<size_t>(c)]) ids.push_back(c);
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
        const TpuGraph g = loadWithGroundTruth(files[i].path, lo);
        const GraphMetrics* reported = nullptr;
        if (g.runtimesKnown()) {
            const std::vector<int64_t> ids = evaluationConfigs(g, options);
            if (ids.size() >= 2) {
                std::vector<double> truth;
                truth.reserve(ids.size());
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
                           const EvaluationOptions& options, const CancelToken* cancel,
                           const std::function<void(int64_t done, int64_t total)>& progress) {
    const std::vector<int64_t> ids = g.runtimesKnown() ? evaluationConfigs(g, options) : std::vector<int64_t>{};
    std::vector<double> truth;
    truth.reserve(ids.size());
    for (int64_t c : ids) truth.push_back(g.normalizedRuntime(c));
    std::vector<double> scores(ids.size());
    if (ids.size() >= 2) scores = model.scoreConfigs(g, ids, cancel, progress);
    if (cancel && cancel->cancelled()) return graphMetrics(id, {}, {});
    return graphMetrics(id, scores, truth);
}

}  // namespace tpg::nn
