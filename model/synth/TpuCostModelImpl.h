#pragma once

// The synthetic TPU's state after reading a graph, shared by the files that evaluate it:
// CostModelGraph.cpp (reading the graph), LayoutCosts.cpp (layouts and copies), OpCosts.cpp
// (per-op costs), TileCosts.cpp (tile terms), MeasurementNoise.cpp. Internal to model/synth.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "synth/LayoutCode.h"
#include "graph/OpClass.h"
#include "synth/TpuCostModel.h"

namespace tpg::synth {

namespace detail {

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

// Layout slots a compiler may leave to its users: generated and constant tensors take the layout
// their user wants; elementwise and reduce-window ops take their operands' layout.
inline bool flexible(const NodeInfo& x) {
    return x.cls == OpClass::Constant || x.cls == OpClass::Generated;
}
inline bool propagates(const NodeInfo& x) {
    return x.cls == OpClass::Elementwise || x.cls == OpClass::ReduceWindow;
}

}  // namespace detail

using namespace detail;  // NOLINT(google-build-using-namespace): the parts share these names

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
        auto padded = [](int64_t d, int q) {
            return static_cast<double>((d + q - 1) / q * q);  // NOLINT(bugprone-integer-division)
        };
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

    // Reading the graph (CostModelGraph.cpp), once, in this order.
    std::vector<int32_t> indexProducers(const std::vector<std::array<int32_t, 2>>& edges);
    void readNodes(const TpuGraph& graph, const std::vector<int32_t>& producerStart);
    void deriveMatmulWork();
    void orderTopologically(const std::vector<std::array<int32_t, 2>>& edges);
    void findConfigColumns(const TpuGraph& graph);
    void findTileTensors(const TpuGraph& graph);

    // Layout-config evaluation, pre-noise; kExplain fills `out` (same arithmetic, same order).
    template <bool kExplain>
    double layout(const float* config, uint64_t* configHash, CostBreakdown* out) const;
    // Its parts (LayoutCosts.cpp): the configuration slot by slot, the layout each node produces,
    // and the copies on a node's operand edges with what the node then reads.
    template <bool kExplain>
    std::vector<LayoutCode> resolveSlots(const float* config, CostBreakdown* out) const;
    std::vector<LayoutCode> propagateLayouts(const std::vector<LayoutCode>& slots) const;
    struct OperandReads {
        LayoutCode layouts[2] = {kUnset, kUnset};  // first two operands, as the node reads them
        double bytes = 0, paddedBytes = 0;
    };
    template <bool kExplain>
    OperandReads readOperands(int32_t v, const std::vector<LayoutCode>& slots,
                              const std::vector<LayoutCode>& L, uint64_t& hash, double& copiesSum,
                              CostBreakdown* out) const;
    // A node's own cost under its output layout and what it reads (OpCosts.cpp).
    struct OpCost {
        double compute = 0, padding = 0, layoutExtra = 0;
        std::string reason;
    };
    template <bool kExplain>
    OpCost opCost(const NodeInfo& x, LayoutCode lv, const OperandReads& r) const;
    template <bool kExplain>
    OpCost matmulCost(const NodeInfo& x, LayoutCode lv, const OperandReads& r) const;
    template <bool kExplain>
    OpCost relayoutCost(const NodeInfo& x, LayoutCode lv, const OperandReads& r) const;
    template <bool kExplain>
    OpCost vectorCost(const NodeInfo& x, LayoutCode lv, const OperandReads& r) const;
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
    std::vector<float> encodeTile(const TileShape& t) const;
    void cover(int32_t node, std::array<int64_t, 6>& b, double share) const;
    double tileBaseNs = 0;  // the kernel's node costs at default layouts (computed once)

    double copyCost(const NodeInfo& x, LayoutCode from, LayoutCode to) const {
        const double moved = bytes(x) * (padRatio(x, from) + padRatio(x, to));
        const bool minorChanges = dimAt(from, 0) != dimAt(to, 0);
        return p.copyOverheadNs +
               moved / p.hbmBytesPerNs * (minorChanges ? p.transposeFactor : 1.0);
    }
};

}  // namespace tpg::synth
