#include "GraphBlindLinearRanker.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "io/Error.h"
#include "NnLimits.h"
#include "PreparedGraph.h"
#include "graph/Schema.h"

namespace tpg::nn {

namespace {

constexpr int kOpcodeGroups = 4;  // convolution, dot, reshape, everything else

int opcodeGroup(int op) {
    static const int conv = schema::opcodeId("convolution"), dot = schema::opcodeId("dot"),
                     reshape = schema::opcodeId("reshape");
    return op == conv ? 0 : op == dot ? 1 : op == reshape ? 2 : 3;
}

// Solves (A + ridge * mean(diag) * I) x = b by Cholesky; A is symmetric positive semi-definite.
std::vector<double> solveRidge(std::vector<double> a, const std::vector<double>& b, int64_t n,
                               double ridge) {
    double trace = 0;
    for (int64_t i = 0; i < n; ++i) trace += a[static_cast<size_t>(i * n + i)];
    const double lambda = ridge * std::max(trace / static_cast<double>(n), 1e-12);
    for (int64_t i = 0; i < n; ++i) a[static_cast<size_t>(i * n + i)] += lambda;
    auto at = [&](int64_t i, int64_t j) -> double& { return a[static_cast<size_t>(i * n + j)]; };
    for (int64_t j = 0; j < n; ++j) {
        double s = at(j, j);
        for (int64_t k = 0; k < j; ++k) s -= at(j, k) * at(j, k);
        const double d = std::sqrt(std::max(s, 1e-300));
        at(j, j) = d;
        for (int64_t i = j + 1; i < n; ++i) {
            double t = at(i, j);
            for (int64_t k = 0; k < j; ++k) t -= at(i, k) * at(j, k);
            at(i, j) = t / d;
        }
    }
    std::vector<double> y(static_cast<size_t>(n)), x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        double t = b[static_cast<size_t>(i)];
        for (int64_t k = 0; k < i; ++k) t -= at(i, k) * y[static_cast<size_t>(k)];
        y[static_cast<size_t>(i)] = t / at(i, i);
    }
    for (int64_t i = n - 1; i >= 0; --i) {
        double t = y[static_cast<size_t>(i)];
        for (int64_t k = i + 1; k < n; ++k) t -= at(k, i) * x[static_cast<size_t>(k)];
        x[static_cast<size_t>(i)] = t / at(i, i);
    }
    return x;
}

}  // namespace

GraphBlindLinearRanker::GraphBlindLinearRanker(Collection kind, int64_t configWidth)
    : m_kind(kind),
      m_width(configWidth),
      m_dim(kind == Collection::Layout ? kOpcodeGroups * configWidth * limits::kLayoutValueCount + 1
                                       : 2 * configWidth) {
    m_xtx.assign(static_cast<size_t>(m_dim * m_dim), 0.0);
    m_xty.assign(static_cast<size_t>(m_dim), 0.0);
}

std::vector<std::vector<double>> GraphBlindLinearRanker::features(
    const TpuGraph& g, const std::vector<int64_t>& configs) const {
    if (g.collection() != m_kind || g.configFeatureWidth() != m_width)
        throwFormatError(
            g.path(), "",
            "the graph-blind baseline was built for another collection or config width");
    std::vector<std::vector<double>> out(configs.size(),
                                         std::vector<double>(static_cast<size_t>(m_dim), 0.0));
    if (m_kind == Collection::Layout) {
        const PreparedGraph p = prepareGraph(g, 0);  // only the configurable nodes matter here
        const int64_t nc = g.numConfigurable(), w = m_width;
        std::vector<int> group(static_cast<size_t>(nc));
        for (int64_t k = 0; k < nc; ++k)
            group[static_cast<size_t>(k)] =
                opcodeGroup(g.opcode(g.configurableNodes()[static_cast<size_t>(k)]));
        std::vector<float> row(static_cast<size_t>(nc * w));
        const double share = 1.0 / static_cast<double>(nc);
        for (size_t i = 0; i < configs.size(); ++i) {
            g.layoutConfigs()->read(configs[i], 1, row.data());
            auto& f = out[i];
            for (int64_t k = 0; k < nc; ++k)
                for (int64_t c = 0; c < w; ++c) {
                    const int v =
                        static_cast<int>(std::lround(row[static_cast<size_t>(k * w + c)])) -
                        limits::kLayoutValueMin;
                    if (v < 0 || v >= limits::kLayoutValueCount) continue;
                    f[static_cast<size_t>(
                        (group[static_cast<size_t>(k)] * w + c) * limits::kLayoutValueCount + v)] +=
                        share;
                }
            f[static_cast<size_t>(m_dim - 1)] = violationRatio(p, row.data(), w);
        }
    } else {
        std::vector<float> t(static_cast<size_t>(m_width));
        for (size_t i = 0; i < configs.size(); ++i) {
            transformTileConfig(g.tileConfig(configs[i]), m_width, t.data());
            for (int64_t c = 0; c < m_width; ++c) {
                out[i][static_cast<size_t>(c)] = t[static_cast<size_t>(c)];
                out[i][static_cast<size_t>(m_width + c)] =
                    double(t[static_cast<size_t>(c)]) * t[static_cast<size_t>(c)];
            }
        }
    }
    // Centre within the graph: only differences between one graph's configs carry signal.
    if (!out.empty())
        for (int64_t j = 0; j < m_dim; ++j) {
            double mean = 0;
            for (const auto& f : out) mean += f[static_cast<size_t>(j)];
            mean /= static_cast<double>(out.size());
            for (auto& f : out) f[static_cast<size_t>(j)] -= mean;
        }
    return out;
}

void GraphBlindLinearRanker::addGraph(const TpuGraph& g, int64_t maxConfigs,
                                      double skipHeldOutFraction) {
    if (!g.runtimesKnown()) return;
    std::vector<int64_t> ids;
    const std::vector<char> held = heldOutConfigs(g, skipHeldOutFraction);
    for (int64_t c = 0; c < g.numConfigs(); ++c)
        if (g.normalizedRuntime(c) > 0 && !held[static_cast<size_t>(c)]) ids.push_back(c);
    if (ids.size() < 2) return;
    if (maxConfigs > 0 && static_cast<int64_t>(ids.size()) > maxConfigs) {
        std::mt19937_64 rng(std::hash<std::string>{}(g.name()));
        std::shuffle(ids.begin(), ids.end(), rng);
        ids.resize(static_cast<size_t>(maxConfigs));
    }
    const auto x = features(g, ids);
    std::vector<double> y;
    y.reserve(ids.size());
    for (int64_t c : ids) y.push_back(std::log(g.normalizedRuntime(c)));
    const double mean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(y.size());
    // Each graph weighs the same, however many configs it has.
    const double weight = 1.0 / static_cast<double>(ids.size());
    for (size_t r = 0; r < ids.size(); ++r) {
        const auto& f = x[r];
        for (int64_t i = 0; i < m_dim; ++i) {
            const double fi = f[static_cast<size_t>(i)] * weight;
            if (fi == 0) continue;
            m_xty[static_cast<size_t>(i)] += fi * (y[r] - mean);
            double* rowp = m_xtx.data() + i * m_dim;
            for (int64_t j = 0; j < m_dim; ++j) rowp[j] += fi * f[static_cast<size_t>(j)];
        }
    }
    ++m_graphs;
}

void GraphBlindLinearRanker::fit(double ridge) {
    if (m_graphs == 0)
        throw FormatError("graph-blind baseline: no training graph with known runtimes");
    m_weights = solveRidge(m_xtx, m_xty, m_dim, ridge);
}

std::vector<double> GraphBlindLinearRanker::score(const TpuGraph& g,
                                                  const std::vector<int64_t>& configs) const {
    const auto x = features(g, configs);
    std::vector<double> s(configs.size(), 0.0);
    for (size_t r = 0; r < configs.size(); ++r)
        for (int64_t j = 0; j < m_dim; ++j)
            s[r] += x[r][static_cast<size_t>(j)] * m_weights[static_cast<size_t>(j)];
    return s;
}

}  // namespace tpg::nn
