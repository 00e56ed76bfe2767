#include "synth/TpuCostModel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "io/Error.h"
#include "synth/NodeFeatureColumns.h"
#include "graph/Schema.h"
#include "synth/SyntheticRandom.h"

namespace tpg::synth {

namespace {

// How an opcode behaves for layouts and cost.
enum class OpClass : uint8_t {
    Free,   // tuple, get-tuple-element, bitcast...: no work, no layout of their own
    Tuple,  // like Free, but its operands are the program's outputs: they keep their default layout
    Parameter,     // its layout is fixed by the caller
    Constant,      // materialised at compile time in whatever layout its user wants
    Generated,     // broadcast, iota: produced on the fly by their users, no memory read
    Elementwise,   // memory-bound, takes its layout from its first (non-generated) operand
    ReduceWindow,  // like Elementwise, plus window work
    Convolution,
    Dot,
    Reshape,
    Transpose,
    Reduce,
    Other,  // memory-bound, keeps its default layout
};

// Layouts as 21-bit codes: rank in bits 0-2, then minor-to-major dims, 3 bits each.
using LayoutCode = uint32_t;
constexpr LayoutCode kUnset = 0xFFFFFFFFu;
constexpr int kMaxRank = schema::kMaxRank;

LayoutCode encode(const int* dims, int rank) {
    LayoutCode c = static_cast<LayoutCode>(rank);
    for (int i = 0; i < rank; ++i) c |= static_cast<LayoutCode>(dims[i]) << (3 + 3 * i);
    return c;
}
int rankOf(LayoutCode c) {
    return static_cast<int>(c & 7u);
}
int dimAt(LayoutCode c, int i) {
    return static_cast<int>((c >> (3 + 3 * i)) & 7u);
}
LayoutCode descending(int rank) {
    int d[kMaxRank];
    for (int i = 0; i < rank; ++i) d[i] = rank - 1 - i;
    return encode(d, rank);
}
std::vector<int> decode(LayoutCode c) {
    std::vector<int> v(static_cast<size_t>(rankOf(c)));
    for (int i = 0; i < rankOf(c); ++i) v[static_cast<size_t>(i)] = dimAt(c, i);
    return v;
}
std::string layoutString(LayoutCode c) {
    std::string s = "{";
    for (int i = 0; i < rankOf(c); ++i) s += (i ? "," : "") + std::to_string(dimAt(c, i));
    return s + "}";
}

// A valid permutation of 0..rank-1 in the first `rank` values, -1 after: its code. All -1:
// kUnset. Anything else: `invalid` is set and kUnset returned.
LayoutCode parseSlot(const float* v, int rank, bool& invalid) {
    invalid = false;
    bool allUnset = true;
    for (int i = 0; i < kMaxRank; ++i) allUnset &= v[i] == -1.0f;
    if (allUnset) return kUnset;
    int d[kMaxRank];
    unsigned seen = 0;
    for (int i = 0; i < kMaxRank; ++i) {
        const float x = v[i];
        if (i >= rank) {
            if (x != -1.0f) invalid = true;
            continue;
        }
        if (!(x >= 0.0f && x < static_cast<float>(rank)) || x != std::floor(x)) {
            invalid = true;
            continue;
        }
        d[i] = static_cast<int>(x);
        if (seen & (1u << d[i])) invalid = true;
        seen |= 1u << d[i];
    }
    if (invalid || rank <= 0) {
        invalid = true;
        return kUnset;
    }
    return encode(d, rank);
}

std::string fmt(const char* f, double a) {
    char b[64];
    std::snprintf(b, sizeof b, f, a);
    return b;
}
std::string ns(double v) {
    return v >= 1e6   ? fmt("%.2f ms", v / 1e6)
           : v >= 1e3 ? fmt("%.1f us", v / 1e3)
                      : fmt("%.0f ns", v);
}
std::string bytesText(double b) {
    return b >= 1 << 20 ? fmt("%.1f MiB", b / (1 << 20))
           : b >= 1024  ? fmt("%.1f KiB", b / 1024)
                        : fmt("%.0f B", b);
}

OpClass classify(const std::string& name) {
    static const std::unordered_map<std::string, OpClass> table = [] {
        std::unordered_map<std::string, OpClass> t;
        for (const char* n :
             {"get-tuple-element", "bitcast", "after-all", "partition-id", "replica-id",
              "opt-barrier", "domain", "add-dependency", "get-dimension-size"})
            t[n] = OpClass::Free;
        t["tuple"] = OpClass::Tuple;
        t["parameter"] = OpClass::Parameter;
        t["constant"] = OpClass::Constant;
        t["broadcast"] = OpClass::Generated;
        t["iota"] = OpClass::Generated;
        for (const char* n : {"abs",
                              "add",
                              "and",
                              "atan2",
                              "cbrt",
                              "ceil",
                              "clamp",
                              "compare",
                              "complex",
                              "convert",
                              "cosine",
                              "divide",
                              "exponential",
                              "exponential-minus-one",
                              "floor",
                              "imag",
                              "is-finite",
                              "log",
                              "log-plus-one",
                              "logistic",
                              "maximum",
                              "minimum",
                              "multiply",
                              "negate",
                              "not",
                              "or",
                              "popcnt",
                              "power",
                              "real",
                              "reduce-precision",
                              "remainder",
                              "round-nearest-afz",
                              "round-nearest-even",
                              "rsqrt",
                              "select",
                              "shift-left",
                              "shift-right-arithmetic",
                              "shift-right-logical",
                              "sign",
                              "sine",
                              "sqrt",
                              "subtract",
                              "tan",
                              "tanh",
                              "xor",
                              "count-leading-zeros",
                              "bitcast-convert",
                              "stochastic-convert",
                              "map",
                              "pad",
                              "slice",
                              "dynamic-slice",
                              "dynamic-update-slice",
                              "reverse",
                              "concatenate"})
            t[n] = OpClass::Elementwise;
        t["reduce-window"] = OpClass::ReduceWindow;
        t["convolution"] = OpClass::Convolution;
        t["dot"] = OpClass::Dot;
        t["reshape"] = OpClass::Reshape;
        t["dynamic-reshape"] = OpClass::Reshape;
        t["transpose"] = OpClass::Transpose;
        t["reduce"] = OpClass::Reduce;
        return t;
    }();
    auto it = table.find(name);
    return it == table.end() ? OpClass::Other : it->second;
}

bool transcendental(const std::string& name) {
    for (const char* n : {"exponential", "exponential-minus-one", "log", "log-plus-one", "logistic",
                          "tanh", "rsqrt", "sqrt", "cbrt", "divide", "power", "sine", "cosine",
                          "tan", "atan2", "remainder"})
        if (name == n) return true;
    return false;
}

struct NodeInfo {
    OpClass cls = OpClass::Other;
    int8_t rank = 0;
    bool tuple = false;
    double elemBytes = 4;
    std::array<int64_t, kMaxRank> dims{};
    double volume = 1;
    LayoutCode defaultLayout = 0;
    double flopsPerElement = 1;
    // Convolution: feature dims from node_feat; dot: contracting / output dims derived from shapes.
    int8_t inFeature = -1, kernelOut = -1, outFeature = -1;
    int8_t lhsContract = -1, rhsOut = -1;
    double flops = 0;
    double windowProduct = 1;
    std::array<int8_t, kMaxRank> perm{};  // transpose
    uint8_t reducedMask = 0;              // reduce
    int32_t prodBegin = 0, prodEnd = 0;
};

}  // namespace

struct TpuCostModel::Impl {
    const TpuParameters& p;
    int64_t n = 0;
    std::vector<NodeInfo> nodes;
    std::vector<int32_t> prodNode;  // producers of each node, in operand (edge) order
    std::vector<int64_t> prodEdge;
    std::vector<int32_t> order;  // topological order (producers first)
    std::vector<int32_t> configIndex;
    std::vector<int32_t> configurable;
    uint64_t graphHash = 0;
    // Slot columns of a layout config row, and bound columns of a tile config, by schema name.
    int outSlot = 0, inSlot = 6, kernelSlot = 12;
    int kernelBounds = 0, outputBounds = 8, inputBounds = 16;
    int64_t configWidth = 0;
    // Tile: the tensors the bounds describe.
    int32_t tileOut = -1, tileIn = -1, tileKernel = -1;

    explicit Impl(const TpuParameters& params) : p(params) {}

    const NodeInfo& at(int32_t v) const { return nodes[static_cast<size_t>(v)]; }

    double padRatio(const NodeInfo& x, LayoutCode l) const {
        if (x.rank == 0 || x.tuple || x.volume <= 0) return 1.0;
        // Integer division on purpose: round up to whole tiles.
        auto padded = [](int64_t d, int q) { return static_cast<double>((d + q - 1) / q * q); };  // NOLINT(bugprone-integer-division)
        const int64_t m0 = x.dims[static_cast<size_t>(dimAt(l, 0))];
        double r = padded(m0, p.tileLanes) / static_cast<double>(std::max<int64_t>(m0, 1));
        if (x.rank >= 2) {
            const int64_t m1 = x.dims[static_cast<size_t>(dimAt(l, 1))];
            r *= padded(m1, p.tileSublanes) / static_cast<double>(std::max<int64_t>(m1, 1));
        }
        return std::min(r, p.maxPaddingRatio);
    }
    // Size-1 dims hold no data: layouts that differ only in where they put them are the same
    // physical layout (the compiler drops degenerate dims before tiling). Canonical form: the
    // non-degenerate dims in order, then the degenerate ones, most-major.
    static LayoutCode canonical(const NodeInfo& x, LayoutCode c) {
        if (c == kUnset) return c;
        int d[kMaxRank], k = 0;
        const int r = rankOf(c);
        for (int i = 0; i < r; ++i)
            if (x.dims[static_cast<size_t>(dimAt(c, i))] != 1) d[k++] = dimAt(c, i);
        for (int i = r - 1; i >= 0; --i)
            if (x.dims[static_cast<size_t>(i)] == 1) d[k++] = i;
        return encode(d, r);
    }
    // The tensor a layout slot describes: the node (output), its first (input) or second
    // (kernel) operand.
    const NodeInfo& slotTensor(int32_t v, int slot) const {
        const NodeInfo& x = at(v);
        return slot == 0 ? x : at(prodNode[static_cast<size_t>(x.prodBegin + slot - 1)]);
    }

    double bytes(const NodeInfo& x) const { return x.tuple ? 0.0 : x.volume * x.elemBytes; }

    // Layout-config evaluation, pre-noise; kExplain fills `out` (same arithmetic, same order).
    template <bool kExplain>
    double layout(const float* config, uint64_t* configHash, CostBreakdown* out) const;
    template <bool kExplain>
    double tile(const float* config, CostBreakdown* out) const;
    double noiseFactor(uint64_t configHash) const;
    uint64_t tileHash(const float* config) const;
    int rankOfSlot(int32_t node, int slot) const;

    struct TileShape {
        std::array<int64_t, 6> out{}, in{}, kernel{};
    };
    struct TileTerms {
        int64_t numTiles = 1;
        double utilisation = 1, workingSet = 0, traffic = 0, tileOverhead = 0;
        bool spills = false;
    };
    TileTerms tileTerms(const TileShape& t) const;
    TileShape tileShape(const float* config, std::vector<std::string>* notes) const;
    double tileBaseNs = 0;  // the kernel's node costs at default layouts (computed once)

    double copyCost(const NodeInfo& x, LayoutCode from, LayoutCode to) const {
        const double moved = bytes(x) * (padRatio(x, from) + padRatio(x, to));
        const bool minorChanges = dimAt(from, 0) != dimAt(to, 0);
        return p.copyOverheadNs +
               moved / p.hbmBytesPerNs * (minorChanges ? p.transposeFactor : 1.0);
    }
};

TpuCostModel::TpuCostModel(TpuCostModel&&) noexcept = default;
TpuCostModel& TpuCostModel::operator=(TpuCostModel&&) noexcept = default;
TpuCostModel::~TpuCostModel() = default;

TpuCostModel::TpuCostModel(const TpuGraph& graph, TpuParameters params)
    : m_graph(graph), m_params(params), m_impl(std::make_unique<Impl>(m_params)) {
    Impl& m = *m_impl;
    const std::string file = graph.path().empty() ? graph.name() : graph.path();
    if (graph.nodeFeatureWidth() != schema::kNodeFeatureWidth)
        throwFormatError(file, "node_feat",
                         "the synthetic TPU needs the schema's " +
                             std::to_string(schema::kNodeFeatureWidth) +
                             " columns to read shapes and layouts, got " +
                             std::to_string(graph.nodeFeatureWidth()));
    const auto& c = NodeColumns::get();
    m.n = graph.numNodes();
    m.nodes.resize(static_cast<size_t>(m.n));

    // Producers in operand order: edges of one consumer appear in the order of its operands.
    std::vector<int32_t> count(static_cast<size_t>(m.n) + 1, 0);
    const auto& edges = graph.edges();
    for (const auto& e : edges) ++count[static_cast<size_t>(e[0]) + 1];
    for (int64_t i = 0; i < m.n; ++i)
        count[static_cast<size_t>(i) + 1] += count[static_cast<size_t>(i)];
    m.prodNode.resize(edges.size());
    m.prodEdge.resize(edges.size());
    {
        std::vector<int32_t> fill(count.begin(), count.end() - 1);
        for (size_t i = 0; i < edges.size(); ++i) {
            const auto slot = static_cast<size_t>(fill[static_cast<size_t>(edges[i][0])]++);
            m.prodNode[slot] = edges[i][1];
            m.prodEdge[slot] = static_cast<int64_t>(i);
        }
    }

    uint64_t h = mix64(static_cast<uint64_t>(m.n));
    std::unordered_map<int, std::pair<OpClass, bool>> opCache;
    for (int64_t v = 0; v < m.n; ++v) {
        NodeInfo& x = m.nodes[static_cast<size_t>(v)];
        const float* f = graph.nodeFeatures(v);
        const int op = graph.opcode(v);
        auto it = opCache.find(op);
        if (it == opCache.end()) {
            const std::string name = schema::opcodeName(op);
            it = opCache.emplace(op, std::make_pair(classify(name), transcendental(name))).first;
        }
        x.cls = it->second.first;
        x.flopsPerElement = it->second.second ? 8.0 : 1.0;
        x.prodBegin = count[static_cast<size_t>(v)];
        x.prodEnd = count[static_cast<size_t>(v) + 1];
        x.tuple = f[c.typeTuple] != 0.0f;
        const float bits = f[c.elementSizeInBits];
        x.elemBytes = bits > 0 ? bits / 8.0 : 4.0;
        const int rank = x.tuple ? 0 : schema::shapeRank(f, c.shapeDims);
        x.rank = static_cast<int8_t>(rank);
        x.volume = 1;
        for (int i = 0; i < rank; ++i) {
            x.dims[static_cast<size_t>(i)] =
                std::max<int64_t>(1, static_cast<int64_t>(f[c.shapeDims + i]));
            x.volume *= static_cast<double>(x.dims[static_cast<size_t>(i)]);
        }
        bool invalid = false;
        float lay[kMaxRank];
        for (int i = 0; i < kMaxRank; ++i) lay[i] = i < rank ? f[c.layout + i] : -1.0f;
        const LayoutCode own = parseSlot(lay, rank, invalid);
        x.defaultLayout = Impl::canonical(x, own == kUnset ? descending(rank) : own);
        for (int i = 0; i < kMaxRank; ++i) {
            x.windowProduct *= i < kMaxRank && f[c.windowSize + i] > 0 ? f[c.windowSize + i] : 1.0;
            const int d = static_cast<int>(f[c.dimensions + i]);
            x.perm[static_cast<size_t>(i)] = static_cast<int8_t>(d >= 0 && d < kMaxRank ? d : 0);
        }
        if (x.cls == OpClass::Reduce) {
            // Reduced dims are the operand's dims listed in `dimensions` (zeros beyond their count
            // cannot be told from dim 0; a rank drop tells how many there are).
            const int inRank =
                x.prodEnd > x.prodBegin
                    ? m.nodes[static_cast<size_t>(m.prodNode[static_cast<size_t>(x.prodBegin)])]
                          .rank
                    : 0;
            const int k = std::max(1, inRank - rank);
            for (int i = 0; i < k && i < kMaxRank; ++i)
                x.reducedMask |= static_cast<uint8_t>(1u << x.perm[static_cast<size_t>(i)]);
        }
        if (x.cls == OpClass::Convolution) {
            x.inFeature = static_cast<int8_t>(f[c.convInputFeature]);
            x.kernelOut = static_cast<int8_t>(f[c.convKernelOutputFeature]);
            x.outFeature = static_cast<int8_t>(f[c.convOutputFeature]);
        }
        for (int i = 0; i < schema::kNodeFeatureWidth; ++i) {
            uint32_t bitsOf;
            std::memcpy(&bitsOf, &f[i], sizeof bitsOf);
            if (bitsOf)
                h = mix64(h ^ (static_cast<uint64_t>(bitsOf) << 8 | static_cast<uint64_t>(i)));
        }
        h = mix64(h ^ static_cast<uint64_t>(op) << 32);
    }
    for (const auto& e : edges)
        h = mix64(h ^ (static_cast<uint64_t>(e[0]) << 32 | static_cast<uint32_t>(e[1])));
    m.graphHash = h;

    // Work of convolutions and dots, from shapes (operands in edge order: input/lhs, kernel/rhs).
    for (int64_t v = 0; v < m.n; ++v) {
        NodeInfo& x = m.nodes[static_cast<size_t>(v)];
        if ((x.cls != OpClass::Convolution && x.cls != OpClass::Dot) || x.prodEnd - x.prodBegin < 2)
            continue;
        const NodeInfo& a = m.at(m.prodNode[static_cast<size_t>(x.prodBegin)]);
        const NodeInfo& b = m.at(m.prodNode[static_cast<size_t>(x.prodBegin) + 1]);
        if (x.cls == OpClass::Convolution) {
            const int64_t outF = x.outFeature >= 0 && x.outFeature < x.rank
                                     ? x.dims[static_cast<size_t>(x.outFeature)]
                                     : 1;
            x.flops = 2.0 * x.volume * b.volume / static_cast<double>(std::max<int64_t>(outF, 1));
            if (x.inFeature >= a.rank) x.inFeature = -1;
            if (x.kernelOut >= b.rank) x.kernelOut = -1;
            if (x.outFeature >= x.rank) x.outFeature = -1;
        } else {
            // Leading dims shared by lhs, rhs and output are batch dims; then a.volume * b.volume
            // / out.volume = batch * K^2 gives the contracted size K.
            int batch = 0;
            double batchVol = 1;
            while (batch < a.rank && batch < b.rank && batch < x.rank &&
                   a.dims[static_cast<size_t>(batch)] == b.dims[static_cast<size_t>(batch)] &&
                   a.dims[static_cast<size_t>(batch)] == x.dims[static_cast<size_t>(batch)] &&
                   batch + 1 < a.rank && batch + 1 < b.rank) {
                batchVol *= static_cast<double>(a.dims[static_cast<size_t>(batch)]);
                ++batch;
            }
            const double k =
                std::sqrt(std::max(1.0, a.volume * b.volume / std::max(1.0, x.volume) / batchVol));
            const auto kInt = static_cast<int64_t>(std::llround(k));
            x.flops = 2.0 * x.volume * std::max(1.0, k);
            for (int i = a.rank - 1; i >= batch; --i)
                if (a.dims[static_cast<size_t>(i)] == kInt) {
                    x.lhsContract = static_cast<int8_t>(i);
                    break;
                }
            int rc = -1;
            for (int i = batch; i < b.rank; ++i)
                if (b.dims[static_cast<size_t>(i)] == kInt) {
                    rc = i;
                    break;
                }
            for (int i = b.rank - 1; i >= batch; --i)
                if (i != rc) {
                    x.rhsOut = static_cast<int8_t>(i);
                    break;
                }
        }
    }

    // Topological order: ids already are in real files; otherwise Kahn's algorithm (nodes left in
    // a cycle follow in id order).
    bool sorted = true;
    for (const auto& e : edges) sorted &= e[1] < e[0];
    m.order.resize(static_cast<size_t>(m.n));
    if (sorted) {
        for (int64_t i = 0; i < m.n; ++i) m.order[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    } else {
        std::vector<int32_t> indeg(static_cast<size_t>(m.n), 0);
        std::vector<std::vector<int32_t>> users(static_cast<size_t>(m.n));
        for (const auto& e : edges) {
            if (e[0] == e[1]) continue;
            ++indeg[static_cast<size_t>(e[0])];
            users[static_cast<size_t>(e[1])].push_back(e[0]);
        }
        std::vector<char> placed(static_cast<size_t>(m.n), 0);
        size_t head = 0, filled = 0;
        for (int64_t i = 0; i < m.n; ++i)
            if (!indeg[static_cast<size_t>(i)])
                m.order[filled++] = static_cast<int32_t>(i), placed[static_cast<size_t>(i)] = 1;
        while (head < filled) {
            const int32_t v = m.order[head++];
            for (int32_t u : users[static_cast<size_t>(v)])
                if (--indeg[static_cast<size_t>(u)] == 0)
                    m.order[filled++] = u, placed[static_cast<size_t>(u)] = 1;
        }
        for (int64_t i = 0; i < m.n; ++i)
            if (!placed[static_cast<size_t>(i)]) m.order[filled++] = static_cast<int32_t>(i);
    }

    // Config columns by schema name.
    auto findIn = [](const std::vector<std::string>& names, const char* name, int fallback) {
        for (size_t i = 0; i < names.size(); ++i)
            if (names[i] == name) return static_cast<int>(i);
        return fallback;
    };
    m.outSlot = findIn(schema::layoutConfigFeatureNames(), "output_layout_0", 0);
    m.inSlot = findIn(schema::layoutConfigFeatureNames(), "input_layout_0", 6);
    m.kernelSlot = findIn(schema::layoutConfigFeatureNames(), "kernel_layout_0", 12);
    m.kernelBounds = findIn(schema::tileConfigFeatureNames(), "kernel_bounds_0", 0);
    m.outputBounds = findIn(schema::tileConfigFeatureNames(), "output_bounds_0", 8);
    m.inputBounds = findIn(schema::tileConfigFeatureNames(), "input_bounds_0", 16);
    m.configWidth = graph.isLayout() ? schema::kLayoutConfigWidth : schema::kTileConfigWidth;
    m.configurable = graph.configurableNodes();
    m.configIndex.assign(static_cast<size_t>(m.n), -1);
    for (size_t k = 0; k < m.configurable.size(); ++k)
        m.configIndex[static_cast<size_t>(m.configurable[k])] = static_cast<int32_t>(k);

    // Tile tensors: the kernel's root output; the input and kernel of its heaviest convolution
    // or dot (else of the root itself).
    int32_t root = -1;
    for (int64_t v = m.n - 1; v >= 0 && root < 0; --v)
        if (graph.nodeFeature(v, c.isRoot) != 0.0f) root = static_cast<int32_t>(v);
    if (root < 0) root = static_cast<int32_t>(m.n - 1);
    while (m.at(root).tuple && m.at(root).prodEnd > m.at(root).prodBegin)
        root = m.prodNode[static_cast<size_t>(m.at(root).prodBegin)];
    m.tileOut = root;
    int32_t anchor = root;
    double best = -1;
    for (int64_t v = 0; v < m.n; ++v)
        if (m.nodes[static_cast<size_t>(v)].flops > best &&
            m.nodes[static_cast<size_t>(v)].flops > 0) {
            best = m.nodes[static_cast<size_t>(v)].flops;
            anchor = static_cast<int32_t>(v);
        }
    const NodeInfo& an = m.at(anchor);
    if (an.prodEnd > an.prodBegin) m.tileIn = m.prodNode[static_cast<size_t>(an.prodBegin)];
    if (an.flops > 0 && an.prodEnd - an.prodBegin >= 2)
        m.tileKernel = m.prodNode[static_cast<size_t>(an.prodBegin) + 1];

    const std::vector<float> unset(m.configurable.size() * static_cast<size_t>(m.configWidth),
                                   -1.0f);
    uint64_t ignored = 0;
    m.tileBaseNs = m.layout<false>(unset.data(), &ignored, nullptr);
}

int TpuCostModel::Impl::rankOfSlot(int32_t node, int slot) const {
    const Impl& m = *this;
    if (node < 0 || node >= m.n) return -1;
    const NodeInfo& x = m.at(node);
    const int operands = x.prodEnd - x.prodBegin;
    if (slot == 0) return x.tuple ? -1 : x.rank;
    if (slot == 1)
        return operands >= 1 ? m.at(m.prodNode[static_cast<size_t>(x.prodBegin)]).rank : -1;
    if (slot == 2 && (x.cls == OpClass::Convolution || x.cls == OpClass::Dot) && operands >= 2)
        return m.at(m.prodNode[static_cast<size_t>(x.prodBegin) + 1]).rank;
    return -1;
}

int TpuCostModel::slotRank(int32_t node, int slot) const {
    return m_impl->rankOfSlot(node, slot);
}

std::vector<int> TpuCostModel::defaultLayout(int32_t node) const {
    return decode(m_impl->at(node).defaultLayout);
}

namespace {

constexpr int kDefaultTileSteps =
    64;  // shrink steps the default heuristic tries (ranks <= 6, few divisors each)

bool flexible(const NodeInfo& x) {
    return x.cls == OpClass::Constant || x.cls == OpClass::Generated;
}
bool propagates(const NodeInfo& x) {
    return x.cls == OpClass::Elementwise || x.cls == OpClass::ReduceWindow;
}
const char* slotName(int s) {
    return s == 0 ? "output_layout" : s == 1 ? "input_layout" : "kernel_layout";
}

}  // namespace

template <bool kExplain>
double TpuCostModel::Impl::layout(const float* config, uint64_t* configHash,
                                  CostBreakdown* out) const {
    const size_t nc = configurable.size();
    const auto width = static_cast<size_t>(configWidth);
    // 1. The configuration, slot by slot: an explicit layout, or unset (compiler default).
    std::vector<LayoutCode> slots(nc * 3, kUnset);
    for (size_t k = 0; k < nc; ++k) {
        const float* row = config + k * width;
        const int32_t v = configurable[k];
        for (int s = 0; s < 3; ++s) {
            const float* values = row + (s == 0 ? outSlot : s == 1 ? inSlot : kernelSlot);
            const int r = rankOfSlot(v, s);
            bool invalid = false;
            LayoutCode code = kUnset;
            if (r >= 0) {
                code = canonical(slotTensor(v, s), parseSlot(values, r, invalid));
            } else {
                for (int i = 0; i < kMaxRank; ++i) invalid |= values[i] != -1.0f;
            }
            slots[k * 3 + static_cast<size_t>(s)] = code;
            if constexpr (kExplain) {
                if (invalid) {
                    std::string vals;
                    for (int i = 0; i < kMaxRank; ++i)
                        vals += (i ? "," : "") + fmt("%g", values[i]);
                    out->notes.push_back("node " + std::to_string(v) + " " + slotName(s) + " {" +
                                         vals + "} ignored: " +
                                         (r < 0 ? std::string("the node has no such operand")
                                                : "not a permutation of its " + std::to_string(r) +
                                                      " dims padded with -1") +
                                         "; compiler default used");
                }
            }
        }
    }

    // 2. Layouts each node produces, producers first.
    std::vector<LayoutCode> L(static_cast<size_t>(n));
    for (int32_t v : order) {
        const NodeInfo& x = at(v);
        const int32_t k = configIndex[static_cast<size_t>(v)];
        LayoutCode code = x.defaultLayout;
        if (k >= 0 && slots[static_cast<size_t>(k) * 3] != kUnset) {
            code = slots[static_cast<size_t>(k) * 3];
        } else if (propagates(x)) {
            for (int32_t i = x.prodBegin; i < x.prodEnd; ++i) {
                const NodeInfo& px = at(prodNode[static_cast<size_t>(i)]);
                if (!flexible(px) && !px.tuple && px.rank == x.rank) {
                    code = L[static_cast<size_t>(prodNode[static_cast<size_t>(i)])];
                    break;
                }
            }
        }
        L[static_cast<size_t>(v)] = code;
    }
    // The noise is keyed by the compiled program (every node's layout and every inserted copy),
    // not by the raw values: configurations the compiler turns into the same program measure the
    // same, as identical executables do.
    uint64_t h = mix64(graphHash ^ 0x6c61796f7574ULL);
    for (LayoutCode code : L) h = mix64(h ^ code);

    // 3. Per node: copies on its operand edges, then its own cost.
    double nodesSum = 0, copiesSum = 0;
    const double bw = p.hbmBytesPerNs;
    if constexpr (kExplain) out->nodes.resize(static_cast<size_t>(n));
    for (int64_t vi = 0; vi < n; ++vi) {
        const auto v = static_cast<int32_t>(vi);
        const NodeInfo& x = at(v);
        const int32_t k = configIndex[static_cast<size_t>(v)];
        const LayoutCode lv = L[static_cast<size_t>(v)];
        LayoutCode reads[2] = {kUnset, kUnset};
        double inBytes = 0, inPadded = 0;
        for (int32_t i = x.prodBegin; i < x.prodEnd; ++i) {
            const int operand = i - x.prodBegin;
            const int32_t pv = prodNode[static_cast<size_t>(i)];
            const NodeInfo& px = at(pv);
            const LayoutCode have = L[static_cast<size_t>(pv)];
            LayoutCode want = have;
            const char* why = "";
            if (k >= 0 && operand == 0 && slots[static_cast<size_t>(k) * 3 + 1] != kUnset) {
                want = slots[static_cast<size_t>(k) * 3 + 1];
                why = "its input_layout";
            } else if (k >= 0 && operand == 1 &&
                       (x.cls == OpClass::Convolution || x.cls == OpClass::Dot) &&
                       slots[static_cast<size_t>(k) * 3 + 2] != kUnset) {
                want = slots[static_cast<size_t>(k) * 3 + 2];
                why = "its kernel_layout";
            } else if (propagates(x) && !flexible(px) && !px.tuple && px.rank == x.rank) {
                want = lv;
                why = "the layout of its output (elementwise operands must agree)";
            } else if (x.cls == OpClass::Tuple && !px.tuple) {
                want = px.defaultLayout;
                why = "its default layout (a program output)";
            }
            if (rankOf(want) != rankOf(have)) want = have;
            if (want != have && !flexible(px) && px.rank >= 2) {
                h = mix64(h ^
                          (static_cast<uint64_t>(prodEdge[static_cast<size_t>(i)]) << 24 | want));
                const double copy = copyCost(px, have, want);
                copiesSum += copy;
                if constexpr (kExplain) {
                    EdgeCost e;
                    e.edge = prodEdge[static_cast<size_t>(i)];
                    e.consumer = v;
                    e.producer = pv;
                    e.copyNs = copy;
                    e.fromLayout = decode(have);
                    e.toLayout = decode(want);
                    e.reason =
                        "node " + std::to_string(pv) + " writes " + layoutString(have) + ", node " +
                        std::to_string(v) + " wants " + layoutString(want) + " (" + why +
                        "): copy of " + bytesText(bytes(px)) +
                        (dimAt(have, 0) != dimAt(want, 0) ? " through the transpose unit" : "") +
                        ", " + ns(copy);
                    out->copies.push_back(std::move(e));
                }
            }
            if (operand < 2) reads[operand] = want;
            if (px.cls != OpClass::Generated) {
                inBytes += bytes(px);
                inPadded += bytes(px) * padRatio(px, want);
            }
        }

        double compute = 0, padding = 0, layoutExtra = 0;
        std::string reason;
        const double outBytes = bytes(x), outPadded = outBytes * padRatio(x, lv);
        switch (x.cls) {
            case OpClass::Free:
            case OpClass::Tuple:
            case OpClass::Parameter:
            case OpClass::Constant:
            case OpClass::Generated:
                if constexpr (kExplain) {
                    reason = x.cls == OpClass::Parameter
                                 ? "parameter: layout " + layoutString(lv) + " fixed by the caller"
                             : x.cls == OpClass::Tuple
                                 ? "tuple: its operands are outputs and keep their default layouts"
                             : x.cls == OpClass::Free
                                 ? "no work of its own"
                                 : "generated in whatever layout its users want: no cost";
                }
                break;
            case OpClass::Convolution:
            case OpClass::Dot: {
                const double mxu = x.flops / p.mxuFlopsPerNs;
                const double outPad = padRatio(x, lv);
                const double mem = (inBytes + outBytes) / bw, memPad = (inPadded + outPadded) / bw;
                double pref = 1;
                std::string prefWhy;
                auto prefer = [&](LayoutCode l, int wantedMinor, double factor, const char* what) {
                    if (l == kUnset || wantedMinor < 0 || rankOf(l) == 0 ||
                        dimAt(l, 0) == wantedMinor)
                        return;
                    pref *= factor;
                    if constexpr (kExplain)
                        prefWhy += std::string("; ") + what + " dim " +
                                   std::to_string(wantedMinor) + " not most minor in " +
                                   layoutString(l) + fmt(" (x%.2f)", factor);
                };
                if (x.cls == OpClass::Convolution) {
                    prefer(reads[0], x.inFeature, p.convInputPreference, "input feature");
                    prefer(reads[1], x.kernelOut, p.convKernelPreference, "kernel output-feature");
                    prefer(lv, x.outFeature, p.convOutputPreference, "output feature");
                } else {
                    prefer(reads[0], x.lhsContract, p.dotOperandPreference, "lhs contracting");
                    prefer(reads[1], x.rhsOut, p.dotOperandPreference, "rhs output");
                }
                const double base = std::max(mxu, mem), withPad = std::max(mxu * outPad, memPad);
                const double withPref = std::max(mxu * outPad * pref, memPad);
                compute = p.opOverheadNs + base;
                padding = withPad - base;
                layoutExtra = withPref - withPad;
                if constexpr (kExplain)
                    reason = schema::opcodeName(x.cls == OpClass::Convolution
                                                    ? schema::opcodeId("convolution")
                                                    : schema::opcodeId("dot")) +
                             fmt(": %.3g GFLOP", x.flops / 1e9) + " (" + ns(mxu) +
                             " on the MXU), " + bytesText(inBytes + outBytes) + " moved (" +
                             ns(mem) + "); output " + layoutString(lv) +
                             fmt(" pads x%.2f", outPad) + prefWhy;
                break;
            }
            case OpClass::Reshape:
            case OpClass::Transpose: {
                bool bitcast;
                std::string need;
                if (x.cls == OpClass::Reshape) {
                    // A reshape is free only when both sides keep the logical (row-major) element
                    // order.
                    const LayoutCode in = reads[0] == kUnset ? descending(0) : reads[0];
                    const bool inRowMajor =
                        x.prodEnd == x.prodBegin ||
                        in == canonical(at(prodNode[static_cast<size_t>(x.prodBegin)]),
                                        descending(rankOf(in)));
                    bitcast = inRowMajor && lv == canonical(x, descending(x.rank));
                    if constexpr (kExplain)
                        need = "both sides row-major (input " + layoutString(in) + ", output " +
                               layoutString(lv) + ")";
                } else {
                    int e[kMaxRank];
                    for (int j = 0; j < x.rank; ++j)
                        e[j] = x.perm[static_cast<size_t>(dimAt(lv, j))];
                    const LayoutCode equivalent =
                        x.prodEnd > x.prodBegin
                            ? canonical(at(prodNode[static_cast<size_t>(x.prodBegin)]),
                                        encode(e, x.rank))
                            : kUnset;
                    bitcast = reads[0] == kUnset || equivalent == reads[0];
                    if constexpr (kExplain)
                        need = "its input as " + layoutString(equivalent) + ", it arrives as " +
                               layoutString(reads[0]);
                }
                if (!bitcast) {
                    compute = p.opOverheadNs + (inBytes + outBytes) / bw;
                    padding = (inPadded + outPadded - inBytes - outBytes) / bw;
                    layoutExtra = (p.transposeFactor - 1) * (inPadded + outPadded) / bw;
                }
                if constexpr (kExplain)
                    reason = std::string(x.cls == OpClass::Reshape ? "reshape" : "transpose") +
                             (bitcast ? ": a free bitcast (" + need + ")"
                                      : ": a physical relayout of " + bytesText(outBytes) +
                                            " (a bitcast needs " + need + ")");
                break;
            }
            default: {  // Elementwise, ReduceWindow, Reduce, Other: vector unit or memory bound
                double work = x.volume * x.flopsPerElement / p.vectorFlopsPerNs;
                if (x.cls == OpClass::ReduceWindow) work *= x.windowProduct;
                if (x.cls == OpClass::Reduce)
                    work = inBytes / std::max(1.0, x.elemBytes) / p.vectorFlopsPerNs;
                const double base = std::max(work, (inBytes + outBytes) / bw);
                const double withPad = std::max(work, (inPadded + outPadded) / bw);
                double penalty = 1;
                if (x.cls == OpClass::Reduce && reads[0] != kUnset && rankOf(reads[0]) > 0 &&
                    (x.reducedMask >> dimAt(reads[0], 0) & 1u))
                    penalty = p.reduceMinorPenalty;
                compute = p.opOverheadNs + base;
                padding = withPad - base;
                layoutExtra = withPad * (penalty - 1);
                if constexpr (kExplain) {
                    reason =
                        (work > (inPadded + outPadded) / bw ? "vector-bound, " : "memory-bound, ") +
                        bytesText(inBytes + outBytes) + " moved; output " + layoutString(lv) +
                        fmt(" pads x%.2f", padRatio(x, lv));
                    if (penalty > 1)
                        reason += "; reduces its most-minor dim " +
                                  std::to_string(dimAt(reads[0], 0)) + fmt(" (x%.2f)", penalty);
                }
                break;
            }
        }
        nodesSum += compute + padding + layoutExtra;
        if constexpr (kExplain) {
            NodeCost& c = out->nodes[static_cast<size_t>(v)];
            c.node = v;
            c.computeNs = compute;
            c.paddingNs = padding;
            c.layoutNs = layoutExtra;
            c.outputLayout = decode(lv);
            c.reason = std::move(reason);
        }
    }
    *configHash = h;
    if constexpr (kExplain) {
        out->nodesNs = nodesSum;
        out->copiesNs = copiesSum;
    }
    return nodesSum + copiesSum;
}

double TpuCostModel::Impl::noiseFactor(uint64_t configHash) const {
    // Two uniforms from the (graph, config) hash -> one standard normal (Box-Muller).
    const uint64_t a = mix64(configHash ^ 0x6e6f697365ULL), b = mix64(a);
    const double u1 = (static_cast<double>(a >> 11) + 1.0) * 0x1.0p-53,
                 u2 = static_cast<double>(b >> 11) * 0x1.0p-53;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    return std::exp(p.noiseSigma * z);
}

namespace {

int64_t ceilDiv(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

// Tile dims under a layout: the (8 x 128) padding ratio of the tile's two most-minor dims.
double tilePadRatio(const std::array<int64_t, 6>& t, int rank, LayoutCode l,
                    const TpuParameters& p) {
    if (rank == 0) return 1.0;
    auto pad = [](int64_t d, int q) {
        return static_cast<double>(ceilDiv(d, q) * q) / static_cast<double>(d);
    };
    double r = pad(t[static_cast<size_t>(dimAt(l, 0))], p.tileLanes);
    if (rank >= 2) r *= pad(t[static_cast<size_t>(dimAt(l, 1))], p.tileSublanes);
    return std::min(r, p.maxPaddingRatio);
}

double volumeOf(const std::array<int64_t, 6>& t, int rank) {
    double v = 1;
    for (int i = 0; i < rank; ++i) v *= static_cast<double>(t[static_cast<size_t>(i)]);
    return v;
}

}  // namespace

TpuCostModel::Impl::TileShape TpuCostModel::Impl::tileShape(const float* config,
                                                            std::vector<std::string>* notes) const {
    TileShape t;
    auto read = [&](int32_t node, int col, std::array<int64_t, 6>& dst, const char* what) {
        if (node < 0) return;
        const NodeInfo& x = at(node);
        for (int i = 0; i < x.rank; ++i) {
            const int64_t d = x.dims[static_cast<size_t>(i)];
            const float b = config[col + i];
            int64_t v = d;
            if (b >= 1.0f && std::isfinite(b)) v = std::min<int64_t>(d, static_cast<int64_t>(b));
            if (notes && b > static_cast<float>(d) && std::isfinite(b))
                notes->push_back(std::string(what) + fmt(" bound %g", b) + " on dim " +
                                 std::to_string(i) + " exceeds the dimension (" +
                                 std::to_string(d) + "): clamped");
            dst[static_cast<size_t>(i)] = v;
        }
    };
    read(tileOut, outputBounds, t.out, "output");
    read(tileIn, inputBounds, t.in, "input");
    read(tileKernel, kernelBounds, t.kernel, "kernel");
    return t;
}

TpuCostModel::Impl::TileTerms TpuCostModel::Impl::tileTerms(const TileShape& t) const {
    TileTerms r;
    const NodeInfo& o = at(tileOut);
    double padded = 1;
    for (int i = 0; i < o.rank; ++i) {
        const int64_t d = o.dims[static_cast<size_t>(i)], b = t.out[static_cast<size_t>(i)];
        r.numTiles *= ceilDiv(d, b);
        padded *= static_cast<double>(ceilDiv(d, b) * b) / static_cast<double>(d);
    }
    const double laneTile = tilePadRatio(t.out, o.rank, o.defaultLayout, p);
    const double laneTensor = padRatio(o, o.defaultLayout);
    r.utilisation = 1.0 / (padded * std::max(1.0, laneTile / laneTensor));
    const double tiles = static_cast<double>(r.numTiles);
    double loads = 0, moved = 0, buffers = volumeOf(t.out, o.rank) * o.elemBytes * laneTile;
    // An operand tile smaller than an output tile's share needs several fetches; a larger one
    // fetches data that tile does not use.
    auto operand = [&](int32_t node, const std::array<int64_t, 6>& b, double share) {
        if (node < 0) return;
        const NodeInfo& x = at(node);
        const double vol = volumeOf(b, x.rank);
        const double need = std::max(1.0, share);
        loads += tiles * std::ceil(need / vol);
        moved += tiles * std::max(vol, need) * x.elemBytes;
        buffers += vol * x.elemBytes * tilePadRatio(b, x.rank, x.defaultLayout, p);
    };
    if (tileIn >= 0) operand(tileIn, t.in, at(tileIn).volume / tiles);
    if (tileKernel >= 0) {
        // The kernel slice a tile needs scales with its share of the output's most-minor dim.
        const int m0 = o.rank ? dimAt(o.defaultLayout, 0) : 0;
        const double frac = o.rank ? static_cast<double>(t.out[static_cast<size_t>(m0)]) /
                                         static_cast<double>(o.dims[static_cast<size_t>(m0)])
                                   : 1.0;
        operand(tileKernel, t.kernel, at(tileKernel).volume * frac);
    }
    r.traffic = moved / p.hbmBytesPerNs + loads * p.dmaOverheadNs;
    r.workingSet = 2 * buffers;
    r.spills = r.workingSet > p.vmemBytes;
    r.tileOverhead = tiles * p.perTileOverheadNs;
    return r;
}

template <bool kExplain>
double TpuCostModel::Impl::tile(const float* config, CostBreakdown* out) const {
    const TileShape t = tileShape(config, kExplain ? &out->notes : nullptr);
    const TileTerms r = tileTerms(t);
    const double base = tileBaseNs;
    const double waste = base * (1.0 / r.utilisation - 1.0);
    // Double buffering hides operand traffic behind the previous tile's compute; a single tile
    // has nothing to overlap with, and the first tile's fetch is always exposed.
    const double tiles = static_cast<double>(r.numTiles);
    const double exposed =
        r.numTiles <= 1 ? r.traffic : std::max(0.0, r.traffic - (base + waste)) + r.traffic / tiles;
    const double spill = r.spills ? (p.spillFactor - 1.0) * (base + waste + exposed) : 0.0;
    const double tileNs = p.kernelLaunchNs + r.tileOverhead + exposed + spill + waste;
    if constexpr (kExplain) {
        uint64_t ignored = 0;
        const std::vector<float> unset(configurable.size() * static_cast<size_t>(configWidth),
                                       -1.0f);
        layout<true>(unset.data(), &ignored, out);
        TileCost& c = out->tile;
        c.numTiles = r.numTiles;
        c.utilisation = r.utilisation;
        c.workingSetBytes = r.workingSet;
        c.spills = r.spills;
        c.launchNs = p.kernelLaunchNs;
        c.tileOverheadNs = r.tileOverhead;
        c.trafficNs = exposed;
        c.spillNs = spill;
        c.wasteNs = waste;
        c.outputTile = t.out;
        c.inputTile = t.in;
        c.kernelTile = t.kernel;
        out->tileNs = tileNs;
        out->notes.push_back(std::to_string(r.numTiles) + " output tiles, " +
                             fmt("%.0f%% of computed elements useful", 100 * r.utilisation) +
                             " (partial tiles and (8 x 128) lane padding): " + ns(waste) +
                             " wasted");
        out->notes.push_back("working set " + bytesText(r.workingSet) +
                             " double-buffered against " + bytesText(p.vmemBytes) +
                             " of on-chip memory" +
                             (r.spills ? ": SPILLS, " + ns(spill) + " extra" : ": fits"));
        out->notes.push_back("operand traffic and DMA setup " + ns(r.traffic) + ", " + ns(exposed) +
                             (r.numTiles <= 1 ? " exposed (one tile: nothing to overlap with)"
                                              : " not hidden by double buffering") +
                             "; per-tile overhead " + ns(r.tileOverhead));
    }
    return base + tileNs;
}

namespace {

void finish(CostBreakdown& b, double raw, double factor) {
    b.noiseFactor = factor;
    b.totalNs = raw * factor;
    b.noiseNs = b.totalNs - raw;
}

}  // namespace

double TpuCostModel::layoutRuntime(const float* config) const {
    uint64_t h = 0;
    const double raw = m_impl->layout<false>(config, &h, nullptr);
    return raw * m_impl->noiseFactor(h);
}

CostBreakdown TpuCostModel::explainLayout(const float* config) const {
    CostBreakdown b;
    uint64_t h = 0;
    const double raw = m_impl->layout<true>(config, &h, &b);
    finish(b, raw, m_impl->noiseFactor(h));
    return b;
}

// Keyed by the tiles the kernel is compiled with (bounds after clamping), like the layout noise.
uint64_t TpuCostModel::Impl::tileHash(const float* config) const {
    const TileShape t = tileShape(config, nullptr);
    uint64_t h = mix64(graphHash ^ 0x74696c65ULL);
    for (const auto* group : {&t.out, &t.in, &t.kernel})
        for (int64_t b : *group) h = mix64(h ^ static_cast<uint64_t>(b));
    return h;
}

double TpuCostModel::tileRuntime(const float* config) const {
    return m_impl->tile<false>(config, nullptr) * m_impl->noiseFactor(m_impl->tileHash(config));
}

CostBreakdown TpuCostModel::explainTile(const float* config) const {
    CostBreakdown b;
    const double raw = m_impl->tile<true>(config, &b);
    finish(b, raw, m_impl->noiseFactor(m_impl->tileHash(config)));
    return b;
}

std::vector<float> TpuCostModel::defaultTileConfig() const {
    const Impl& m = *m_impl;
    const NodeInfo& o = m.at(m.tileOut);
    auto encodeTile = [&](const Impl::TileShape& t) {
        std::vector<float> c(static_cast<size_t>(schema::kTileConfigWidth), 0.0f);
        auto write = [&](size_t col, int32_t node, const std::array<int64_t, 6>& b) {
            if (node < 0) return;
            const int r = m.at(node).rank;
            double sum = 0, prod = 1;
            for (int i = 0; i < r; ++i) {
                c[col + static_cast<size_t>(i)] = static_cast<float>(b[static_cast<size_t>(i)]);
                sum += static_cast<double>(b[static_cast<size_t>(i)]);
                prod *= static_cast<double>(b[static_cast<size_t>(i)]);
            }
            c[col + 6] = static_cast<float>(sum);
            c[col + 7] = r ? static_cast<float>(prod) : 0.0f;
        };
        write(m.kernelBounds, m.tileKernel, t.kernel);
        write(m.outputBounds, m.tileOut, t.out);
        write(m.inputBounds, m.tileIn, t.in);
        return c;
    };
    // Operand tiles just covering what one output tile reads: the whole tensor, halved from its
    // most-major dim down to about that share.
    auto cover = [&](int32_t node, std::array<int64_t, 6>& b, double share) {
        if (node < 0) return;
        const NodeInfo& x = m.at(node);
        double vol = x.volume;
        for (int i = 0; i < x.rank; ++i) b[static_cast<size_t>(i)] = x.dims[static_cast<size_t>(i)];
        for (int j = x.rank - 1; j >= 0 && vol > 2 * share; --j) {
            auto& d = b[static_cast<size_t>(dimAt(x.defaultLayout, j))];
            while (d > 1 && vol > 2 * share) {
                vol /= static_cast<double>(d);
                d = (d + 1) / 2;
                vol *= static_cast<double>(d);
            }
        }
    };
    // The compiler's heuristic, greedy and one-dimensional: start from the whole output and
    // shrink its most-major shrinkable dim to the next smaller divisor, step by step; keep the
    // step its own (noise-free) estimate likes best. It never explores other shapes, so sampled
    // configurations can beat it.
    Impl::TileShape t;
    for (int i = 0; i < o.rank; ++i) t.out[static_cast<size_t>(i)] = o.dims[static_cast<size_t>(i)];
    std::vector<float> best;
    double bestNs = 0;
    for (int step = 0; step < kDefaultTileSteps; ++step) {
        double tiles = 1;
        for (int i = 0; i < o.rank; ++i)
            tiles *= static_cast<double>(
                ceilDiv(o.dims[static_cast<size_t>(i)], t.out[static_cast<size_t>(i)]));
        if (m.tileIn >= 0) cover(m.tileIn, t.in, m.at(m.tileIn).volume / tiles);
        if (m.tileKernel >= 0) {
            const int m0 = o.rank ? dimAt(o.defaultLayout, 0) : 0;
            const double frac = o.rank ? static_cast<double>(t.out[static_cast<size_t>(m0)]) /
                                             static_cast<double>(o.dims[static_cast<size_t>(m0)])
                                       : 1.0;
            cover(m.tileKernel, t.kernel, m.at(m.tileKernel).volume * frac);
        }
        std::vector<float> c = encodeTile(t);
        const double ns = m.tile<false>(c.data(), nullptr);
        if (best.empty() || ns < bestNs) {
            best = std::move(c);
            bestNs = ns;
        }
        bool shrunk = false;
        for (int j = o.rank - 1; j >= 0 && !shrunk; --j) {
            const auto dim = static_cast<size_t>(dimAt(o.defaultLayout, j));
            const int64_t d = o.dims[dim];
            for (int64_t cand = t.out[dim] - 1; cand >= 1 && !shrunk; --cand)
                if (d % cand == 0) {
                    t.out[dim] = cand;
                    shrunk = true;
                }
        }
        if (!shrunk) break;
    }
    return best;
}

TpuCostModel::TileTensors TpuCostModel::tileTensors() const {
    const Impl& m = *m_impl;
    auto dims = [&](int32_t node) {
        std::vector<int64_t> d;
        if (node >= 0)
            for (int i = 0; i < m.at(node).rank; ++i)
                d.push_back(m.at(node).dims[static_cast<size_t>(i)]);
        return d;
    };
    TileTensors t;
    t.output = dims(m.tileOut);
    t.input = dims(m.tileIn);
    t.kernel = dims(m.tileKernel);
    t.outputLayout = decode(m.at(m.tileOut).defaultLayout);
    if (m.tileIn >= 0) t.inputLayout = decode(m.at(m.tileIn).defaultLayout);
    if (m.tileKernel >= 0) t.kernelLayout = decode(m.at(m.tileKernel).defaultLayout);
    return t;
}

double TpuCostModel::runtime(int64_t c) const {
    if (m_graph.isLayout()) {
        if (m_graph.configFeatureWidth() != schema::kLayoutConfigWidth)
            throwFormatError(m_graph.path(), "node_config_feat",
                             "the synthetic TPU needs 18 values per configurable node");
        return layoutRuntime(m_graph.layoutConfigs()->config(c).data());
    }
    if (m_graph.configFeatureWidth() != schema::kTileConfigWidth)
        throwFormatError(m_graph.path(), "config_feat",
                         "the synthetic TPU needs 24 values per configuration");
    return tileRuntime(m_graph.tileConfig(c));
}

CostBreakdown TpuCostModel::explain(int64_t c) const {
    if (m_graph.isLayout()) {
        if (m_graph.configFeatureWidth() != schema::kLayoutConfigWidth)
            throwFormatError(m_graph.path(), "node_config_feat",
                             "the synthetic TPU needs 18 values per configurable node");
        return explainLayout(m_graph.layoutConfigs()->config(c).data());
    }
    if (m_graph.configFeatureWidth() != schema::kTileConfigWidth)
        throwFormatError(m_graph.path(), "config_feat",
                         "the synthetic TPU needs 24 values per configuration");
    return explainTile(m_graph.tileConfig(c));
}

}  // namespace tpg::synth
