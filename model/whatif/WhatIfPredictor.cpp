#include "whatif/WhatIfPredictor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "explain/CostExplanation.h"
#include "graph/Schema.h"
#include "io/Error.h"
#include "synth/TpuCostModel.h"
#include "whatif/ConfigEdit.h"
#include "whatif/WhatIfLimits.h"

namespace tpg::whatif {

StartPoint StartPoint::parse(const std::string& text, const std::string& option) {
    StartPoint p;
    if (text == "default") p.kind = Kind::Default;
    else if (text == "best") p.kind = Kind::BestMeasured;
    else if (text == "predicted-best") p.kind = Kind::BestPredicted;
    else if (!text.empty() && text.size() < 12 && text.find_first_not_of("0123456789") == std::string::npos) {
        p.kind = Kind::Row;
        p.row = std::stoll(text);
    } else {
        throw FormatError(
            option +
            ": expected a configuration index, 'default', 'best' or 'predicted-best', got '" +
            text + "'");
    }
    return p;
}

void StartPoint::check(const TpuGraph& g) const {
    if (kind == Kind::Row && (row < 0 || row >= g.numConfigs()))
        throw FormatError(g.path() + ": no configuration " + std::to_string(row) + " (the file has " +
                          std::to_string(g.numConfigs()) + ")");
    if (kind == Kind::BestMeasured && !g.runtimesKnown())
        throw FormatError(g.path() + ": runtimes unknown (a test split): no best measured config");
    if (kind == Kind::BestPredicted && g.numConfigs() == 0)
        throw FormatError(g.path() + ": no configurations to predict the best of");
}

std::string StartPoint::text() const {
    switch (kind) {
        case Kind::Row: return "config " + std::to_string(row);
        case Kind::Default: return "the compiler default";
        case Kind::BestMeasured: return "the best measured config";
        case Kind::BestPredicted: return "the best predicted config";
    }
    return {};
}

WhatIfPredictor::WhatIfPredictor(std::shared_ptr<const TpuGraph> graph, const nn::CostModel& model,
                                 const nn::CostModel::Progress& progress,
                                 const nn::CancelToken* cancel,
                                 const nn::CostModel::Progress& indexing)
    : WhatIfPredictor(std::move(graph), model, Unranked{}) {
    scoreFile(progress, cancel, indexing);
}

WhatIfPredictor::WhatIfPredictor(std::shared_ptr<const TpuGraph> graph, const nn::CostModel& model,
                                 Unranked)
    : m_graph(std::move(graph)), m_model(model) {
    const TpuGraph& g = *m_graph;
    m_model.requireCompatible(g);
    m_synth = std::make_shared<const synth::TpuCostModel>(g);
    if (g.runtimesKnown()) {
        const std::vector<double>& runtime = g.runtimes();
        m_bestMeasuredRow = std::min_element(runtime.begin(), runtime.end()) - runtime.begin();
        m_bestMeasuredNs = runtime[static_cast<size_t>(m_bestMeasuredRow)];
        m_synthIsGroundTruth = explain::synthIsGroundTruth(g, *m_synth);
    }
    learnTypicalDistance();
    learnBoundRanges();
}

std::shared_ptr<WhatIfPredictor> WhatIfPredictor::ranked(
    const nn::CostModel::Progress& progress, const nn::CancelToken* cancel,
    const nn::CostModel::Progress& indexing) const {
    // make_shared cannot reach the private constructor that shares this one's synthetic TPU.
    return std::shared_ptr<WhatIfPredictor>(new WhatIfPredictor(*this, progress, cancel, indexing));
}

WhatIfPredictor::WhatIfPredictor(const WhatIfPredictor& unranked,
                                 const nn::CostModel::Progress& progress,
                                 const nn::CancelToken* cancel,
                                 const nn::CostModel::Progress& indexing)
    : m_graph(unranked.m_graph),
      m_model(unranked.m_model),
      m_synth(unranked.m_synth),
      m_synthIsGroundTruth(unranked.m_synthIsGroundTruth),
      m_bestMeasuredNs(unranked.m_bestMeasuredNs),
      m_bestMeasuredRow(unranked.m_bestMeasuredRow),
      m_typicalDistance(unranked.m_typicalDistance),
      m_boundRanges(unranked.m_boundRanges) {
    scoreFile(progress, cancel, indexing);
}

void WhatIfPredictor::scoreFile(const nn::CostModel::Progress& progress,
                                const nn::CancelToken* cancel,
                                const nn::CostModel::Progress& indexing) {
    const TpuGraph& g = *m_graph;
    const std::vector<uint64_t> programKeys = indexPrograms(cancel, indexing);
    m_scores = m_model.scoreAll(g, progress, cancel, programKeys.empty() ? nullptr : &programKeys);
    if (cancel && cancel->cancelled()) throw FormatError(g.path() + ": scoring cancelled");
    m_sortedScores = m_scores;
    std::sort(m_sortedScores.begin(), m_sortedScores.end());
    if (!m_scores.empty())
        m_bestPredictedRow = std::min_element(m_scores.begin(), m_scores.end()) - m_scores.begin();
    if (g.runtimesKnown()) m_fit = metrics::IsotonicFit(m_scores, g.runtimes());
    m_ranked = true;
}

WhatIfPredictor::~WhatIfPredictor() = default;

int changeByScoreOnly(const WhatIfReport& now, const WhatIfReport& before) {
    if ((now.beyondFit == 0 && before.beyondFit == 0) || now.score == before.score) return 0;
    return now.score < before.score ? -1 : 1;
}

double WhatIfPredictor::predictedNs(double score) const { return m_fit.empty() ? -1.0 : m_fit(score); }

double WhatIfPredictor::synthRuntime(const std::vector<float>& row, uint64_t* programKey) const {
    return m_graph->isLayout() ? m_synth->layoutRuntime(row.data(), programKey) : m_synth->tileRuntime(row.data());
}

std::vector<uint64_t> WhatIfPredictor::indexPrograms(const nn::CancelToken* cancel,
                                                     const nn::CostModel::Progress& progress) {
    const TpuGraph& g = *m_graph;
    if (!m_model.indexesPrograms(g)) return {};  // the file's scores are the network's own
    const int64_t width = rowWidth();
    std::vector<uint64_t> keys(static_cast<size_t>(g.numConfigs()));
    m_indexedSynthNs.assign(static_cast<size_t>(g.numConfigs()), 0.0);
    forEachRowBatch([&](int64_t first, int64_t count, const float* rows) {
        for (int64_t i = 0; i < count; ++i) {
            if (cancel && cancel->cancelled()) return;  // a key takes a synthetic TPU pass (~2 ms on 45,000 nodes)
            uint64_t& key = keys[static_cast<size_t>(first + i)];
            m_indexedSynthNs[static_cast<size_t>(first + i)] =
                m_synth->layoutRuntime(rows + i * width, &key);
            m_programRow.emplace(key, first + i);
            if (progress) progress(first + i + 1, g.numConfigs());
        }
    });
    if (cancel && cancel->cancelled()) throw FormatError(g.path() + ": scoring cancelled");
    return keys;
}

int64_t WhatIfPredictor::rowWidth() const {
    const TpuGraph& g = *m_graph;
    return g.isLayout() ? g.layoutConfigs()->rowSize() : g.configFeatureWidth();
}

std::vector<float> WhatIfPredictor::row(int64_t config) const {
    const TpuGraph& g = *m_graph;
    if (config < 0 || config >= g.numConfigs())
        throw FormatError(g.path() + ": no configuration " + std::to_string(config) + " (the file has " +
                          std::to_string(g.numConfigs()) + ")");
    if (g.isLayout()) return g.layoutConfigs()->config(config);
    const float* f = g.tileConfig(config);
    return {f, f + g.configFeatureWidth()};
}

std::vector<float> WhatIfPredictor::defaultRow() const {
    if (m_graph->isLayout()) return std::vector<float>(static_cast<size_t>(rowWidth()), -1.0f);
    return m_synth->defaultTileConfig();
}

std::vector<float> WhatIfPredictor::startRow(const StartPoint& start) const {
    start.check(*m_graph);
    switch (start.kind) {
        case StartPoint::Kind::Row: return row(start.row);
        case StartPoint::Kind::Default: return defaultRow();
        case StartPoint::Kind::BestMeasured: return row(m_bestMeasuredRow);
        case StartPoint::Kind::BestPredicted:
            if (!m_ranked)
                throw FormatError(m_graph->path() +
                                  ": the best predicted configuration is known once the file's "
                                  "configurations are scored");
            return row(m_bestPredictedRow);
    }
    return defaultRow();
}

template <typename Visit>
void WhatIfPredictor::forEachRowBatch(Visit&& visit) const {
    const TpuGraph& g = *m_graph;
    if (!g.isLayout()) {
        visit(int64_t{0}, g.numConfigs(), g.numConfigs() ? g.tileConfig(0) : nullptr);
        return;
    }
    const auto& table = *g.layoutConfigs();
    std::vector<float> buf;
    for (int64_t b = 0; b < table.numConfigs(); b += limits::kScanBatchRows) {
        const int64_t n = std::min(limits::kScanBatchRows, table.numConfigs() - b);
        buf.resize(static_cast<size_t>(n * table.rowSize()));
        table.read(b, n, buf.data());
        visit(b, n, buf.data());
    }
}

int64_t WhatIfPredictor::distance(const float* a, const float* b) const {
    const TpuGraph& g = *m_graph;
    int64_t d = 0;
    if (g.isLayout()) {
        const int64_t w = g.configFeatureWidth();
        for (int64_t k = 0; k < g.numConfigurable(); ++k)
            d += std::memcmp(a + k * w, b + k * w, static_cast<size_t>(w) * sizeof(float)) != 0;
    } else {
        d = differingTileBounds(g, a, b);
    }
    return d;
}

void WhatIfPredictor::learnTypicalDistance() {
    // Only the sampled rows are read (a stored table seeks to each).
    std::vector<std::vector<float>> sample;
    const int64_t stride = std::max<int64_t>(1, m_graph->numConfigs() / limits::kDistanceSampleRows);
    for (int64_t c = 0; c < m_graph->numConfigs(); c += stride) sample.push_back(row(c));
    // The typical distance from a measured config to its nearest other one, over a sample.
    std::vector<int64_t> nearest;
    for (size_t i = 0; i < sample.size() && i < static_cast<size_t>(limits::kDistanceProbes); ++i) {
        int64_t best = -1;
        for (size_t j = 0; j < sample.size(); ++j) {
            if (i == j) continue;
            const int64_t d = distance(sample[i].data(), sample[j].data());
            if (d > 0 && (best < 0 || d < best)) best = d;
        }
        if (best > 0) nearest.push_back(best);
    }
    if (!nearest.empty()) {
        std::nth_element(nearest.begin(), nearest.begin() + static_cast<std::ptrdiff_t>(nearest.size() / 2), nearest.end());
        m_typicalDistance = std::max<int64_t>(1, nearest[nearest.size() / 2]);
    }
}

float WhatIfPredictor::effectiveBound(int column, float value) const {
    const int64_t size = m_graph->isLayout() ? -1 : m_synth->tileBoundSize(column, value);
    return size > 0 ? static_cast<float>(size) : value;
}

void WhatIfPredictor::learnBoundRanges() {
    const TpuGraph& g = *m_graph;
    if (g.isLayout() || g.configFeatureWidth() != schema::kTileConfigWidth) return;
    m_boundRanges.assign(static_cast<size_t>(schema::kTileConfigWidth), BoundRange{});
    for (int column = 0; column < schema::kTileConfigWidth; ++column) {
        if (!isTileBoundPosition(column) || m_synth->tileBoundDimension(column) <= 0) continue;
        BoundRange& range = m_boundRanges[static_cast<size_t>(column)];
        for (int64_t c = 0; c < g.numConfigs(); ++c) {
            const float v = effectiveBound(column, g.tileConfig(c)[column]);
            range.low = range.known ? std::min(range.low, v) : v;
            range.high = range.known ? std::max(range.high, v) : v;
            range.known = true;
        }
    }
}

BoundRange WhatIfPredictor::boundRange(int column) const {
    if (column < 0 || column >= static_cast<int>(m_boundRanges.size())) return {};
    return m_boundRanges[static_cast<size_t>(column)];
}

const std::vector<int64_t>& WhatIfPredictor::distancesTo(const std::vector<float>& row) const {
    const TpuGraph& g = *m_graph;
    const int64_t width = rowWidth();
    const int64_t unit = g.isLayout() ? g.configFeatureWidth() : 1;  // a node's values, or one tile column
    const int64_t units = unit > 0 ? width / unit : 0;
    std::vector<int64_t> changed;
    if (m_lastRow.size() == row.size())
        for (int64_t k = 0; k < units; ++k)
            if ((g.isLayout() || isTileBoundColumn(g, k)) &&
                std::memcmp(row.data() + k * unit, m_lastRow.data() + k * unit,
                            static_cast<size_t>(unit) * sizeof(float)) != 0)
                changed.push_back(k);
    if (m_lastRow.size() != row.size() || static_cast<int64_t>(changed.size()) > limits::kIncrementalUnits) {
        m_lastDistances.assign(static_cast<size_t>(g.numConfigs()), 0);
        forEachRowBatch([&](int64_t first, int64_t count, const float* rows) {
            for (int64_t i = 0; i < count; ++i)
                m_lastDistances[static_cast<size_t>(first + i)] = distance(row.data(), rows + i * width);
        });
    } else {
        for (int64_t k : changed) {
            const float* before = m_lastRow.data() + k * unit;
            const float* after = row.data() + k * unit;
            const std::vector<float> column = g.isLayout() ? g.layoutConfigs()->readColumns(k * unit, unit) : std::vector<float>();
            for (int64_t c = 0; c < g.numConfigs(); ++c) {
                const float* theirs = g.isLayout() ? column.data() + c * unit : g.tileConfig(c) + k;
                const size_t bytes = static_cast<size_t>(unit) * sizeof(float);
                m_lastDistances[static_cast<size_t>(c)] +=
                    (std::memcmp(after, theirs, bytes) != 0) - (std::memcmp(before, theirs, bytes) != 0);
            }
        }
    }
    m_lastRow = row;
    return m_lastDistances;
}

WhatIfReport WhatIfPredictor::evaluate(const std::vector<float>& edited) const {
    const TpuGraph& g = *m_graph;
    if (static_cast<int64_t>(edited.size()) != rowWidth())
        throw FormatError(g.path() + ": a configuration row has " + std::to_string(rowWidth()) + " values, got " +
                          std::to_string(edited.size()));
    WhatIfReport r;
    r.configs = g.numConfigs();
    uint64_t programKey = 0;
    r.synthNs = synthRuntime(edited, &programKey);
    {
        std::lock_guard<std::mutex> lock(m_distanceMutex);
        const std::vector<int64_t>& d = distancesTo(edited);
        int64_t nearest = -1;
        for (size_t c = 0; c < d.size(); ++c) {
            if (d[c] == 0 && r.matchingRow < 0) r.matchingRow = static_cast<int64_t>(c);
            if (nearest < 0 || d[c] < r.nearestDistance) {
                nearest = static_cast<int64_t>(c);
                r.nearestDistance = d[c];
            }
        }
        r.nearestRow = nearest;
    }
    if (r.matchingRow < 0 && !m_programRow.empty()) {
        const auto same = m_programRow.find(programKey);
        if (same != m_programRow.end()) r.sameProgramRow = same->second;
    }
    // A row of the file, or another spelling of its program, keeps the score the file's scoring
    // gave it (configs of one program share one), so the editor and the predictions table agree.
    const int64_t scoredRow = r.matchingRow >= 0 ? r.matchingRow : r.sameProgramRow;
    r.score = scoredRow >= 0 && m_ranked ? m_scores[static_cast<size_t>(scoredRow)]
                                         : m_model.scoreEdited(g, edited.data());
    if (m_ranked) {
        r.predictedNs = predictedNs(r.score);
        r.beyondFit = m_fit.side(r.score);
        r.rank = 1 + (std::lower_bound(m_sortedScores.begin(), m_sortedScores.end(), r.score) -
                      m_sortedScores.begin());
    }
    if (g.runtimesKnown()) {
        if (r.matchingRow >= 0) r.matchingRuntimeNs = g.runtimes()[static_cast<size_t>(r.matchingRow)];
        if (r.sameProgramRow >= 0) r.sameProgramRuntimeNs = g.runtimes()[static_cast<size_t>(r.sameProgramRow)];
    }
    r.extrapolating = r.nearestDistance > m_typicalDistance;
    for (size_t column = 0; column < m_boundRanges.size(); ++column) {
        const int c = static_cast<int>(column);
        if (!m_boundRanges[column].contains(effectiveBound(c, edited[column])))
            r.boundsOutsideFile.push_back(c);
    }
    return r;
}

}  // namespace tpg::whatif
