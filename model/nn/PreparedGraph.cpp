#include "PreparedGraph.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "io/Error.h"
#include "NnLimits.h"
#include "graph/Schema.h"

namespace tpg::nn {

namespace {

float signedLog(float v) {
    return v >= 0 ? std::log1p(v) : -std::log1p(-v);
}

struct RowHash {
    size_t operator()(const std::array<uint64_t, 2>& h) const {
        return static_cast<size_t>(h[0] ^ (h[1] * 31));
    }
};

std::array<uint64_t, 2> hashRow(const float* row, int64_t n) {
    // FNV-1a over the float bits, twice with different seeds: collisions are astronomically rare.
    uint64_t a = 1469598103934665603ull, b = 0x9e3779b97f4a7c15ull;
    for (int64_t i = 0; i < n; ++i) {
        uint32_t bits;
        const float v = row[i] == 0.0f ? 0.0f : row[i];  // -0 == 0
        std::memcpy(&bits, &v, sizeof bits);
        a = (a ^ bits) * 1099511628211ull;
        b = (b ^ (bits + 0x51ed27u)) * 0x100000001b3ull;
        b ^= b >> 29;
    }
    return {a, b};
}

}  // namespace

void ColumnStats::apply(float* row) const {
    for (size_t i = 0; i < mean.size(); ++i) row[i] = (row[i] - mean[i]) * invStd[i];
}

void transformNodeFeatures(const float* in, int64_t width, float* out) {
    std::copy(in, in + width, out);
    if (width == schema::kNodeFeatureWidth) {
        for (int d = schema::shapeRank(in); d < schema::kMaxRank; ++d) out[schema::kNodeLayoutColumn + d] = -1.0f;
    }
    for (int64_t i = 0; i < width; ++i) out[i] = signedLog(out[i]);
}

void transformTileConfig(const float* in, int64_t width, float* out) {
    for (int64_t i = 0; i < width; ++i) out[i] = signedLog(in[i]);
}

int nodeRank(const TpuGraph& g, int64_t node) {
    if (g.nodeFeatureWidth() != schema::kNodeFeatureWidth) return 0;
    return schema::shapeRank(g.nodeFeatures(node));
}

int largestDimension(const TpuGraph& g, int64_t node) {
    const int rank = nodeRank(g, node);
    int best = -1;
    float bestSize = 0;
    for (int d = 0; d < rank; ++d) {
        const float s = g.nodeFeature(node, schema::kShapeDimColumn + d);
        if (s > bestSize) {
            bestSize = s;
            best = d;
        }
    }
    return best;
}

std::vector<int32_t> neighbourhood(int64_t numNodes,
                                   const std::vector<std::array<int32_t, 2>>& edges,
                                   const std::vector<int32_t>& seeds, int hops) {
    std::vector<int32_t> all;
    if (hops < 0) {
        all.resize(static_cast<size_t>(numNodes));
        for (int64_t i = 0; i < numNodes; ++i)
            all[static_cast<size_t>(i)] = static_cast<int32_t>(i);
        return all;
    }
    std::vector<int> dist(static_cast<size_t>(numNodes), -1);
    std::vector<int32_t> frontier;
    for (int32_t s : seeds)
        if (dist[static_cast<size_t>(s)] < 0) {
            dist[static_cast<size_t>(s)] = 0;
            frontier.push_back(s);
        }
    if (hops > 0) {
        // Undirected CSR, built once.
        std::vector<int32_t> start(static_cast<size_t>(numNodes) + 1, 0), adj(edges.size() * 2);
        for (const auto& e : edges) {
            start[static_cast<size_t>(e[0]) + 1]++;
            start[static_cast<size_t>(e[1]) + 1]++;
        }
        for (size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
        std::vector<int32_t> fill(start.begin(), start.end() - 1);
        for (const auto& e : edges) {
            adj[static_cast<size_t>(fill[static_cast<size_t>(e[0])]++)] = e[1];
            adj[static_cast<size_t>(fill[static_cast<size_t>(e[1])]++)] = e[0];
        }
        for (int h = 1; h <= hops && !frontier.empty(); ++h) {
            std::vector<int32_t> next;
            for (int32_t u : frontier)
                for (int32_t i = start[static_cast<size_t>(u)];
                     i < start[static_cast<size_t>(u) + 1]; ++i) {
                    const int32_t v = adj[static_cast<size_t>(i)];
                    if (dist[static_cast<size_t>(v)] < 0) {
                        dist[static_cast<size_t>(v)] = h;
                        next.push_back(v);
                    }
                }
            frontier.swap(next);
        }
    }
    for (int64_t i = 0; i < numNodes; ++i)
        if (dist[static_cast<size_t>(i)] >= 0) all.push_back(static_cast<int32_t>(i));
    return all;
}

size_t PreparedGraph::memoryBytes() const {
    size_t b = features.size() * sizeof(float) + opcodes.size() * 8 + edges.size() * 8 +
               nodeIds.size() * 4 + configurablePos.size() * 10;
    if (!graph.isNull()) {
        b += graph.data().nodeFeatures.size() * sizeof(float) + graph.data().edges.size() * 8 +
             graph.data().tileConfigFeatures.size() * sizeof(float) +
             graph.data().runtimes.size() * 16;
        if (graph.layoutConfigs()) b += graph.layoutConfigs()->residentBytes();
    }
    return b;
}

PreparedGraph prepareGraph(const TpuGraph& g, int hops) {
    PreparedGraph p;
    p.graph = g;
    const std::vector<int32_t>& seeds = g.configurableNodes();
    if (g.isLayout() && seeds.empty())
        throwFormatError(g.path(), "node_config_ids",
                         "a layout graph needs at least one configurable node");
    p.nodeIds = g.isLayout() ? neighbourhood(g.numNodes(), g.edges(), seeds, hops)
                             : neighbourhood(g.numNodes(), g.edges(), seeds, -1);
    const int64_t n = p.numNodes();
    std::vector<int32_t> newId(static_cast<size_t>(g.numNodes()), -1);
    for (int64_t i = 0; i < n; ++i)
        newId[static_cast<size_t>(p.nodeIds[static_cast<size_t>(i)])] = static_cast<int32_t>(i);

    p.featureWidth = g.nodeFeatureWidth();
    p.features.resize(static_cast<size_t>(n * p.featureWidth));
    p.opcodes.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const int32_t id = p.nodeIds[static_cast<size_t>(i)];
        transformNodeFeatures(g.nodeFeatures(id), p.featureWidth,
                              p.features.data() + i * p.featureWidth);
        const int op = g.opcode(id);
        p.opcodes[static_cast<size_t>(i)] = op >= 0 && op < limits::kOpcodeVocabulary ? op : 0;
    }
    for (const auto& e : g.edges()) {
        const int32_t a = newId[static_cast<size_t>(e[0])], b = newId[static_cast<size_t>(e[1])];
        if (a >= 0 && b >= 0 && a != b) p.edges.push_back({a, b});
    }
    for (int32_t c : seeds) {
        p.configurablePos.push_back(newId[static_cast<size_t>(c)]);
        p.largestDim.push_back(static_cast<int8_t>(largestDimension(g, c)));
        const int rank = nodeRank(g, c);
        p.defaultMinor.push_back(
            rank > 0 ? static_cast<int8_t>(g.nodeFeature(c, schema::kNodeLayoutColumn))
                     : int8_t{-1});
    }
    return p;
}

FeatureStats computeFeatureStats(const std::vector<TpuGraph>& graphs) {
    FeatureStats s;
    auto finish = [](std::vector<double>& sum, std::vector<double>& sq, double count,
                     ColumnStats& out) {
        out.mean.assign(sum.size(), 0.0f);
        out.invStd.assign(sum.size(), 1.0f);
        if (count <= 0) return;
        for (size_t i = 0; i < sum.size(); ++i) {
            const double m = sum[i] / count;
            const double var = std::max(0.0, sq[i] / count - m * m);
            const double sd = std::sqrt(var);
            out.mean[i] = static_cast<float>(m);
            out.invStd[i] = sd > limits::kMinStd ? static_cast<float>(1.0 / sd) : 1.0f;
        }
    };
    if (graphs.empty()) return s;
    const int64_t w = graphs.front().nodeFeatureWidth();
    std::vector<double> sum(static_cast<size_t>(w)), sq(static_cast<size_t>(w));
    std::vector<float> row(static_cast<size_t>(w));
    double count = 0;
    const bool tile = !graphs.front().isLayout();
    const int64_t cw = tile ? graphs.front().configFeatureWidth() : 0;
    std::vector<double> csum(static_cast<size_t>(cw)), csq(static_cast<size_t>(cw));
    std::vector<float> crow(static_cast<size_t>(cw));
    double ccount = 0;
    for (const TpuGraph& g : graphs) {
        if (g.nodeFeatureWidth() != w) continue;  // the trainer checks widths before this
        for (int64_t node = 0; node < g.numNodes(); ++node) {
            transformNodeFeatures(g.nodeFeatures(node), w, row.data());
            for (int64_t i = 0; i < w; ++i) {
                sum[static_cast<size_t>(i)] += row[static_cast<size_t>(i)];
                sq[static_cast<size_t>(i)] +=
                    double(row[static_cast<size_t>(i)]) * row[static_cast<size_t>(i)];
            }
            count += 1;
        }
        if (tile && g.configFeatureWidth() == cw)
            for (int64_t c = 0; c < g.numConfigs(); ++c) {
                transformTileConfig(g.tileConfig(c), cw, crow.data());
                for (int64_t i = 0; i < cw; ++i) {
                    csum[static_cast<size_t>(i)] += crow[static_cast<size_t>(i)];
                    csq[static_cast<size_t>(i)] +=
                        double(crow[static_cast<size_t>(i)]) * crow[static_cast<size_t>(i)];
                }
                ccount += 1;
            }
    }
    finish(sum, sq, count, s.node);
    if (tile) finish(csum, csq, ccount, s.tileConfig);
    return s;
}

float violationRatio(const PreparedGraph& p, const float* row, int64_t configWidth) {
    if (configWidth != schema::kLayoutConfigWidth || p.configurablePos.empty()) return 0.0f;
    int violations = 0;
    for (size_t k = 0; k < p.configurablePos.size(); ++k) {
        const int largest = p.largestDim[k];
        if (largest < 0) continue;
        int minor =
            static_cast<int>(row[static_cast<int64_t>(k) * configWidth]);  // output_layout_0
        if (minor < 0) minor = p.defaultMinor[k];
        if (minor >= 0 && minor != largest) ++violations;
    }
    return static_cast<float>(violations) / static_cast<float>(p.configurablePos.size());
}

DistinctConfigs distinctConfigs(const TpuGraph& g) {
    DistinctConfigs out;
    std::unordered_map<std::array<uint64_t, 2>, size_t, RowHash> seen;
    std::vector<int64_t> counts;
    auto add = [&](const std::array<uint64_t, 2>& h, int64_t c) {
        auto [it, fresh] = seen.emplace(h, out.index.size());
        out.groupOf.push_back(static_cast<int32_t>(it->second));
        if (fresh) {
            out.index.push_back(c);
            out.runtime.push_back(g.normalizedRuntime(c));
            counts.push_back(1);
        } else {
            out.runtime[it->second] += g.normalizedRuntime(c);
            counts[it->second]++;
        }
    };
    if (g.isLayout()) {
        const auto& t = *g.layoutConfigs();
        std::vector<float> rows;
        for (int64_t b = 0; b < t.numConfigs(); b += limits::kDedupReadRows) {
            const int64_t n = std::min(limits::kDedupReadRows, t.numConfigs() - b);
            rows.resize(static_cast<size_t>(n * t.rowSize()));
            t.read(b, n, rows.data());
            for (int64_t i = 0; i < n; ++i)
                add(hashRow(rows.data() + i * t.rowSize(), t.rowSize()), b + i);
        }
    } else {
        for (int64_t c = 0; c < g.numConfigs(); ++c)
            add(hashRow(g.tileConfig(c), g.configFeatureWidth()), c);
    }
    for (size_t i = 0; i < counts.size(); ++i) out.runtime[i] /= static_cast<double>(counts[i]);
    return out;
}

bool configHeldOut(const std::string& graphName, int64_t config, double fraction) {
    if (fraction <= 0) return false;
    uint64_t h = 1469598103934665603ull;
    for (char ch : graphName) h = (h ^ static_cast<uint8_t>(ch)) * 1099511628211ull;
    h ^= static_cast<uint64_t>(config) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return static_cast<double>(h % 1000000) < fraction * 1000000.0;
}

std::vector<char> heldOutConfigs(const TpuGraph& g, const DistinctConfigs& d, double fraction) {
    std::vector<char> held(static_cast<size_t>(g.numConfigs()), 0);
    if (fraction <= 0) return held;
    std::vector<char> groupHeld(d.index.size());
    for (size_t i = 0; i < d.index.size(); ++i)
        groupHeld[i] = configHeldOut(g.name(), d.index[i], fraction) ? 1 : 0;
    for (size_t c = 0; c < held.size(); ++c) held[c] = groupHeld[static_cast<size_t>(d.groupOf[c])];
    return held;
}

std::vector<char> heldOutConfigs(const TpuGraph& g, double fraction) {
    if (fraction <= 0) return std::vector<char>(static_cast<size_t>(g.numConfigs()), 0);
    return heldOutConfigs(g, distinctConfigs(g), fraction);
}

}  // namespace tpg::nn
