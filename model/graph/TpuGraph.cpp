#include "graph/TpuGraph.h"

#include <algorithm>
#include <cmath>

#include "graph/Schema.h"
#include "io/ConfigValues.h"
#include "io/Error.h"

namespace tpg {

const char* collectionName(Collection c) { return c == Collection::Tile ? "tile" : "layout"; }

namespace {

// "WHERE holds V (expected ...)": a configuration value a file may not hold (io/ConfigValues.h).
std::string refusedValue(const std::string& where, float value, bool layout) {
    return where + " holds " + config_values::valueText(value) + " (expected " +
           (layout ? config_values::kLayoutExpected : config_values::kTileExpected) + ")";
}

std::string shapeOf(std::initializer_list<int64_t> dims) {
    std::string s = "(";
    size_t i = 0;
    for (int64_t d : dims) {
        if (i++) s += ", ";
        s += std::to_string(d);
    }
    return s + (dims.size() == 1 ? ",)" : ")");
}

void checkRuntimes(const std::string& file, const char* key, const std::vector<double>& v, size_t c) {
    if (v.size() != c)
        throwFormatError(file, key, "expected " + std::to_string(c) + " values (one per configuration), got " +
                                        std::to_string(v.size()));
    for (size_t i = 0; i < v.size(); ++i) {
        if (!std::isfinite(v[i]))
            throwFormatError(file, key, "value " + std::to_string(i) + " is not finite (expected a runtime in ns)");
        if (v[i] < 0)
            throwFormatError(file, key, "value " + std::to_string(i) + " is negative (expected a runtime >= 0)");
    }
}

// CSR from (key, value) pairs: for each node, the values of the edges whose key is that node.
void buildCsr(int64_t n, const std::vector<std::array<int32_t, 2>>& edges, int keySide,
              std::vector<int32_t>& start, std::vector<int32_t>& out) {
    start.assign(static_cast<size_t>(n + 1), 0);
    for (const auto& e : edges) ++start[static_cast<size_t>(e[keySide]) + 1];
    for (int64_t i = 0; i < n; ++i) start[static_cast<size_t>(i + 1)] += start[static_cast<size_t>(i)];
    out.resize(edges.size());
    std::vector<int32_t> fill(start.begin(), start.end() - 1);
    for (const auto& e : edges) out[static_cast<size_t>(fill[static_cast<size_t>(e[keySide])]++)] = e[1 - keySide];
}

}  // namespace

TpuGraph::TpuGraph(TpuGraphData data) {
    const std::string& f = data.path.empty() ? data.name : data.path;
    const int64_t n = data.numNodes;
    if (n <= 0) throwFormatError(f, "node_opcode", "expected at least one node");
    if (static_cast<int64_t>(data.opcodes.size()) != n)
        throwFormatError(f, "node_opcode", "expected shape " + shapeOf({n}) + " to match node_feat, got " +
                                               shapeOf({static_cast<int64_t>(data.opcodes.size())}));
    if (static_cast<int64_t>(data.nodeFeatures.size()) != n * data.nodeFeatureWidth)
        throwFormatError(f, "node_feat", "expected " + std::to_string(n) + " rows");
    for (size_t i = 0; i < data.opcodes.size(); ++i)
        if (data.opcodes[i] < 0)
            throwFormatError(f, "node_opcode", "node " + std::to_string(i) + " has negative opcode " +
                                                   std::to_string(data.opcodes[i]));
    for (size_t i = 0; i < data.edges.size(); ++i) {
        for (int side = 0; side < 2; ++side) {
            const int32_t v = data.edges[i][side];
            if (v < 0 || v >= n)
                throwFormatError(f, "edge_index", "edge " + std::to_string(i) + " refers to node " +
                                                      std::to_string(v) + ", expected ids in [0, " +
                                                      std::to_string(n) + ")");
        }
    }
    for (size_t i = 0; i < data.nodeSplits.size(); ++i) {
        const int64_t s = data.nodeSplits[i];
        if (s < 0 || s > n)
            throwFormatError(f, "node_splits", "split " + std::to_string(s) + " outside [0, " + std::to_string(n) + "]");
        if (i && s < data.nodeSplits[i - 1])
            throwFormatError(f, "node_splits", "expected increasing node ids, got " +
                                                   std::to_string(data.nodeSplits[i - 1]) + " then " + std::to_string(s));
    }

    const size_t c = data.runtimes.size();
    checkRuntimes(f, "config_runtime", data.runtimes, c);
    auto index = std::make_shared<Index>();
    index->runtimesKnown =
        std::any_of(data.runtimes.begin(), data.runtimes.end(), [](double r) { return r > 0; });

    std::vector<int32_t>& configIndex = index->configIndex;
    configIndex.assign(static_cast<size_t>(n), -1);
    if (data.collection == Collection::Tile) {
        checkRuntimes(f, "config_runtime_normalizers", data.runtimeNormalizers, c);
        for (size_t i = 0; i < c; ++i)
            if (data.runtimes[i] > 0 && data.runtimeNormalizers[i] <= 0)
                throwFormatError(f, "config_runtime_normalizers",
                                 "value " + std::to_string(i) + " is 0 for a known runtime (expected > 0)");
        if (data.tileConfigFeatures.size() != c * static_cast<size_t>(data.configFeatureWidth))
            throwFormatError(f, "config_feat", "expected " + std::to_string(c) + " rows, one per configuration");
        const std::vector<float>& values = data.tileConfigFeatures;
        if (const int64_t bad = config_values::firstNonTileValue(values.data(), values.size());
            bad >= 0) {
            const auto w = static_cast<int>(data.configFeatureWidth);
            throwFormatError(f, "config_feat",
                             refusedValue("configuration " + std::to_string(bad / w) + ", column " +
                                              schema::featureName(schema::tileConfigFeatureNames(),
                                                                  w, static_cast<int>(bad % w)),
                                          values[static_cast<size_t>(bad)], false));
        }
    } else {
        for (size_t k = 0; k < data.configurableNodes.size(); ++k) {
            const int32_t id = data.configurableNodes[k];
            if (id < 0 || id >= n)
                throwFormatError(f, "node_config_ids", "id " + std::to_string(id) + " outside [0, " +
                                                           std::to_string(n) + ")");
            if (configIndex[static_cast<size_t>(id)] >= 0)
                throwFormatError(f, "node_config_ids", "node " + std::to_string(id) +
                                                           " is listed twice (expected unique ids)");
            configIndex[static_cast<size_t>(id)] = static_cast<int32_t>(k);
        }
        const auto& t = data.layoutConfigs;
        if (!t) throwFormatError(f, "node_config_feat", "missing");
        const auto nc = static_cast<int64_t>(data.configurableNodes.size());
        if (t->numConfigs() != static_cast<int64_t>(c) || t->numNodes() != nc)
            throwFormatError(f, "node_config_feat", "expected shape " + shapeOf({static_cast<int64_t>(c), nc, t->width()}) +
                                                        " (configs from config_runtime, nodes from node_config_ids), got " +
                                                        shapeOf({t->numConfigs(), t->numNodes(), t->width()}));
    }

    buildCsr(n, data.edges, 1, index->consStart, index->cons);  // keyed by producer: its consumers
    buildCsr(n, data.edges, 0, index->prodStart, index->prod);  // keyed by consumer: its producers
    m_d = std::make_shared<const TpuGraphData>(std::move(data));
    m_index = std::move(index);
}

int64_t TpuGraph::configRowWidth() const {
    return isLayout() ? numConfigurable() * configFeatureWidth() : configFeatureWidth();
}

std::string TpuGraph::configRowProblem(const std::vector<float>& row) const {
    const int64_t width = configRowWidth();
    if (static_cast<int64_t>(row.size()) != width)
        return "expected " + std::to_string(width) + " values for " +
               (path().empty() ? name() : path()) + ", got " + std::to_string(row.size());
    const int64_t bad = isLayout() ? config_values::firstNonLayoutValue(row.data(), row.size())
                                   : config_values::firstNonTileValue(row.data(), row.size());
    if (bad < 0) return {};
    const auto w = static_cast<int>(configFeatureWidth());
    const int col = static_cast<int>(bad % w);
    const std::string where =
        isLayout() ? "node " + std::to_string(configurableNodes()[static_cast<size_t>(bad / w)]) +
                         ", " + schema::featureName(schema::layoutConfigFeatureNames(), w, col)
                   : schema::featureName(schema::tileConfigFeatureNames(), w, col);
    return refusedValue("value " + std::to_string(bad) + " (" + where + ")",
                        row[static_cast<size_t>(bad)], isLayout());
}

std::string TpuGraph::opcodeName(int64_t node) const { return schema::opcodeName(opcode(node)); }

std::vector<int32_t> TpuGraph::producers(int64_t node) const {
    const Index& x = *m_index;
    return {x.prod.begin() + x.prodStart[static_cast<size_t>(node)],
            x.prod.begin() + x.prodStart[static_cast<size_t>(node) + 1]};
}

std::vector<int32_t> TpuGraph::consumers(int64_t node) const {
    const Index& x = *m_index;
    return {x.cons.begin() + x.consStart[static_cast<size_t>(node)],
            x.cons.begin() + x.consStart[static_cast<size_t>(node) + 1]};
}

int TpuGraph::computationOf(int64_t node) const {
    const auto& s = m_d->nodeSplits;
    // Splits mark where computations start; nodes before the first split belong to computation 0.
    return static_cast<int>(std::upper_bound(s.begin(), s.end(), node) - s.begin());
}

double TpuGraph::normalizedRuntime(int64_t config) const {
    const double r = m_d->runtimes[static_cast<size_t>(config)];
    if (m_d->collection != Collection::Tile) return r;
    const double norm = m_d->runtimeNormalizers[static_cast<size_t>(config)];
    return norm > 0 ? r / norm : 0.0;
}

}  // namespace tpg
