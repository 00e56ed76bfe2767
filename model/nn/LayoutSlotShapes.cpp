#include "LayoutSlotShapes.h"

#include <algorithm>
#include <cmath>

#include "graph/OpClass.h"
#include "graph/Schema.h"

namespace tpg::nn {

namespace {

// node_feat columns (resources/schema/node_features.tsv).
constexpr int kDimensionsColumn = 31;           // dimensions_0..5 (reduce: the reduced dims)
constexpr int kConvInputFeatureColumn = 94;     // convolution_dim_numbers_input_feature_dim
constexpr int kConvKernelOutFeatureColumn = 100;  // ..._kernel_output_feature_dim
constexpr int kConvOutputFeatureColumn = 106;   // ..._output_feature_dim

LayoutSlotShape shapeOf(const TpuGraph& g, int32_t node) {
    LayoutSlotShape s;
    const float* f = g.nodeFeatures(node);
    const bool tuple = g.opcode(node) == schema::opcodeId("tuple");
    s.rank = static_cast<int8_t>(tuple ? 0 : schema::shapeRank(f));
    s.dims.fill(1.0f);
    for (int d = 0; d < s.rank; ++d) s.dims[static_cast<size_t>(d)] = std::max(1.0f, f[schema::kShapeDimColumn + d]);
    // Files without a layout (all zeros) mean row-major: the last dim most minor.
    bool valid = true;
    std::array<bool, 6> seen{};
    for (int i = 0; i < s.rank; ++i) {
        const auto d = static_cast<int>(f[schema::kNodeLayoutColumn + i]);
        valid &= d >= 0 && d < s.rank && !seen[static_cast<size_t>(d)];
        if (valid) seen[static_cast<size_t>(d)] = true;
    }
    for (int i = 0; i < s.rank; ++i)
        s.defaultLayout[static_cast<size_t>(i)] =
            static_cast<int8_t>(valid ? static_cast<int>(f[schema::kNodeLayoutColumn + i]) : s.rank - 1 - i);
    return s;
}

int8_t featureDim(const float* f, int column, int rank) {
    const auto d = static_cast<int>(f[column]);
    return static_cast<int8_t>(d >= 0 && d < rank ? d : -1);
}

// A dot's contracting dim of the lhs and output dim of the rhs, from shapes alone (node_feat has
// no dot dimension numbers): leading dims shared by lhs, rhs and output are batch dims, and
// lhs.volume * rhs.volume / out.volume = batch * K^2 gives the contracted size K.
void dotPreferences(const LayoutSlotShape& out, LayoutSlotShape& lhs, LayoutSlotShape& rhs) {
    auto volume = [](const LayoutSlotShape& s) {
        double v = 1;
        for (int d = 0; d < s.rank; ++d) v *= s.dims[static_cast<size_t>(d)];
        return v;
    };
    int batch = 0;
    double batchVolume = 1;
    while (batch + 1 < lhs.rank && batch + 1 < rhs.rank && batch < out.rank &&
           lhs.dims[static_cast<size_t>(batch)] == rhs.dims[static_cast<size_t>(batch)] &&
           lhs.dims[static_cast<size_t>(batch)] == out.dims[static_cast<size_t>(batch)]) {
        batchVolume *= lhs.dims[static_cast<size_t>(batch)];
        ++batch;
    }
    const double k = std::sqrt(std::max(1.0, volume(lhs) * volume(rhs) / std::max(1.0, volume(out)) / batchVolume));
    const auto contracted = static_cast<float>(std::llround(k));
    for (int d = lhs.rank - 1; d >= batch; --d)
        if (lhs.dims[static_cast<size_t>(d)] == contracted) {
            lhs.preferredMinor = static_cast<int8_t>(d);
            break;
        }
    int rhsContract = -1;
    for (int d = batch; d < rhs.rank; ++d)
        if (rhs.dims[static_cast<size_t>(d)] == contracted) {
            rhsContract = d;
            break;
        }
    for (int d = rhs.rank - 1; d >= batch; --d)
        if (d != rhsContract) {
            rhs.preferredMinor = static_cast<int8_t>(d);
            break;
        }
}

// Where layouts flow in one graph: each node's owner is the configurable node (row) whose output
// layout it takes, following each layout-following op (elementwise, reduce-window) to its first
// operand of the same rank that is not made on the fly or a tuple; -1 when the chain ends
// elsewhere. Config-free: a configurable node owns its layout whether or not a config sets it.
struct LayoutFlow {
    std::vector<OpClass> cls;
    std::vector<int8_t> rank;
    std::vector<double> volume;  // elements
    std::vector<int32_t> owner;
    std::vector<char> programOutput;  // an operand of a tuple
    double totalVolume = 1;           // all nodes but tuples and no-op views
};

bool madeOnTheFly(OpClass c) { return c == OpClass::Constant || c == OpClass::Generated; }

LayoutFlow layoutFlow(const TpuGraph& g, const std::vector<int32_t>& rowOf,
                      const std::vector<std::vector<int32_t>>& operandsOf) {
    const auto n = static_cast<size_t>(g.numNodes());
    LayoutFlow f;
    f.cls.resize(n);
    f.rank.resize(n);
    f.volume.resize(n);
    f.programOutput.assign(n, 0);
    double total = 0;
    for (size_t v = 0; v < n; ++v) {
        const float* row = g.nodeFeatures(static_cast<int32_t>(v));
        f.cls[v] = classifyOpcode(g.opcode(static_cast<int32_t>(v)));
        f.rank[v] = static_cast<int8_t>(schema::shapeRank(row));
        double volume = 1;
        for (int d = 0; d < f.rank[v]; ++d) volume *= std::max(1.0f, row[schema::kShapeDimColumn + d]);
        f.volume[v] = volume;
        if (f.cls[v] != OpClass::Tuple && f.cls[v] != OpClass::Free) total += volume;
        if (f.cls[v] == OpClass::Tuple)
            for (int32_t p : operandsOf[v]) f.programOutput[static_cast<size_t>(p)] = 1;
    }
    f.totalVolume = std::max(1.0, total);
    auto parent = [&](size_t v) -> int32_t {
        if (f.cls[v] != OpClass::Elementwise && f.cls[v] != OpClass::ReduceWindow) return -1;
        for (int32_t p : operandsOf[v]) {
            const auto q = static_cast<size_t>(p);
            if (!madeOnTheFly(f.cls[q]) && f.cls[q] != OpClass::Tuple && f.rank[q] == f.rank[v]) return p;
        }
        return -1;
    };
    constexpr int32_t kUnknown = -2, kVisiting = -3;
    f.owner.assign(n, kUnknown);
    std::vector<size_t> chain;
    for (size_t start = 0; start < n; ++start) {
        size_t v = start;
        int32_t owner = kUnknown;
        while (owner == kUnknown) {
            if (f.owner[v] != kUnknown) {
                owner = f.owner[v] == kVisiting ? -1 : f.owner[v];  // a cycle (invalid input) ends the chain
            } else if (rowOf[v] >= 0) {
                owner = rowOf[v];
                f.owner[v] = owner;
            } else {
                const int32_t p = parent(v);
                f.owner[v] = kVisiting;
                chain.push_back(v);
                if (p < 0) owner = -1;
                else v = static_cast<size_t>(p);
            }
        }
        for (size_t u : chain) f.owner[u] = owner;
        chain.clear();
    }
    return f;
}

void addLayoutFlow(const TpuGraph& g, const LayoutFlow& f, const std::vector<int32_t>& rowOf,
                   const std::vector<std::vector<int32_t>>& operandsOf, std::vector<LayoutSlotShape>& out) {
    const std::vector<int32_t>& configurable = g.configurableNodes();
    for (size_t v = 0; v < f.owner.size(); ++v) {
        const int32_t k = f.owner[v];
        if (k < 0) continue;
        LayoutSlotShape& o = out[static_cast<size_t>(k) * kLayoutSlots];
        if (rowOf[v] < 0) o.volumeShare += static_cast<float>(f.volume[v] / f.totalVolume);
        if (f.programOutput[v]) o.programOutputShare += static_cast<float>(f.volume[v] / f.totalVolume);
    }
    for (size_t k = 0; k < configurable.size(); ++k) {
        const std::vector<int32_t>& in = operandsOf[static_cast<size_t>(configurable[k])];
        for (int slot = 1; slot < kLayoutSlots; ++slot) {
            LayoutSlotShape& s = out[k * kLayoutSlots + static_cast<size_t>(slot)];
            if (s.rank == 0 || in.size() < static_cast<size_t>(slot)) continue;
            const auto p = static_cast<size_t>(in[static_cast<size_t>(slot - 1)]);
            s.source = f.owner[p];
            s.layoutFree = madeOnTheFly(f.cls[p]);
            s.volumeShare = static_cast<float>(f.volume[p] / f.totalVolume);
        }
    }
}

// Operands of each node, in edge (operand) order.
std::vector<std::vector<int32_t>> operandLists(const TpuGraph& g) {
    std::vector<std::vector<int32_t>> operandsOf(static_cast<size_t>(g.numNodes()));
    for (const auto& e : g.edges())
        if (e[0] >= 0 && e[0] < g.numNodes() && e[1] >= 0 && e[1] < g.numNodes())
            operandsOf[static_cast<size_t>(e[0])].push_back(e[1]);
    return operandsOf;
}

// Each node's configurable row, -1 for the others.
std::vector<int32_t> rowsOfNodes(const TpuGraph& g) {
    std::vector<int32_t> rowOf(static_cast<size_t>(g.numNodes()), -1);
    const std::vector<int32_t>& configurable = g.configurableNodes();
    for (size_t k = 0; k < configurable.size(); ++k) rowOf[static_cast<size_t>(configurable[k])] = static_cast<int32_t>(k);
    return rowOf;
}

// A reshape's or transpose's shapes and permutation, from node_feat.
RelayoutOp relayoutShapes(const TpuGraph& g, int32_t v, int32_t operand) {
    RelayoutOp op;
    op.node = v;
    op.out = shapeOf(g, v);
    op.in = shapeOf(g, operand);
    const float* feat = g.nodeFeatures(v);
    for (int i = 0; i < schema::kMaxRank; ++i) {
        const auto d = static_cast<int>(feat[kDimensionsColumn + i]);
        op.perm[static_cast<size_t>(i)] = static_cast<int8_t>(d >= 0 && d < op.in.rank ? d : 0);
    }
    return op;
}

// The reshapes and transposes whose layouts a config can change, from the graph's layout flow.
std::vector<RelayoutOp> relayoutOps(const TpuGraph& g, const LayoutFlow& f, const std::vector<int32_t>& rowOf,
                                    const std::vector<std::vector<int32_t>>& operandsOf) {
    std::vector<RelayoutOp> ops;
    for (size_t v = 0; v < f.cls.size(); ++v) {
        if ((f.cls[v] != OpClass::Reshape && f.cls[v] != OpClass::Transpose) || operandsOf[v].empty()) continue;
        const int32_t p = operandsOf[v][0];
        const int32_t operandRow = madeOnTheFly(f.cls[static_cast<size_t>(p)]) ? -1 : f.owner[static_cast<size_t>(p)];
        if (rowOf[v] < 0 && operandRow < 0) continue;  // no configuration changes its layouts
        RelayoutOp op = relayoutShapes(g, static_cast<int32_t>(v), p);
        op.transpose = f.cls[v] == OpClass::Transpose;
        op.selfRow = rowOf[v];
        op.operandRow = operandRow;
        op.volumeShare = static_cast<float>(f.volume[v] / f.totalVolume);
        ops.push_back(op);
    }
    return ops;
}

}  // namespace

std::vector<LayoutSlotShape> layoutSlotShapes(const TpuGraph& g, std::vector<RelayoutOp>* relayouts) {
    std::vector<LayoutSlotShape> out;
    if (g.nodeFeatureWidth() != schema::kNodeFeatureWidth) return out;
    const std::vector<int32_t>& configurable = g.configurableNodes();
    const std::vector<int32_t> slotOf = rowsOfNodes(g);
    const auto operandsOf = operandLists(g);
    const int conv = schema::opcodeId("convolution"), dot = schema::opcodeId("dot"),
              reduce = schema::opcodeId("reduce");
    out.resize(configurable.size() * kLayoutSlots);
    for (size_t k = 0; k < configurable.size(); ++k) {
        const int32_t v = configurable[k];
        const float* f = g.nodeFeatures(v);
        const int op = g.opcode(v);
        const std::vector<int32_t>& in = operandsOf[static_cast<size_t>(v)];
        LayoutSlotShape* s = &out[k * kLayoutSlots];
        s[0] = shapeOf(g, v);
        if (!in.empty()) s[1] = shapeOf(g, in[0]);
        if ((op == conv || op == dot) && in.size() >= 2) s[2] = shapeOf(g, in[1]);
        if (op == conv) {
            s[0].preferredMinor = featureDim(f, kConvOutputFeatureColumn, s[0].rank);
            s[1].preferredMinor = featureDim(f, kConvInputFeatureColumn, s[1].rank);
            s[2].preferredMinor = featureDim(f, kConvKernelOutFeatureColumn, s[2].rank);
        } else if (op == dot && in.size() >= 2) {
            dotPreferences(s[0], s[1], s[2]);
        } else if (op == reduce && !in.empty()) {
            // `dimensions` lists the reduced dims; zeros beyond their count look like dim 0, so the
            // rank drop says how many there are.
            const int count = std::max(1, s[1].rank - s[0].rank);
            for (int i = 0; i < count && i < schema::kMaxRank; ++i) {
                const auto d = static_cast<int>(f[kDimensionsColumn + i]);
                if (d >= 0 && d < s[1].rank) s[1].reducedMask |= static_cast<uint8_t>(1u << d);
            }
        }
    }
    const LayoutFlow flow = layoutFlow(g, slotOf, operandsOf);
    addLayoutFlow(g, flow, slotOf, operandsOf, out);
    if (relayouts) *relayouts = relayoutOps(g, flow, slotOf, operandsOf);
    return out;
}

}  // namespace tpg::nn
