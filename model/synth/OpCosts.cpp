// Per-op costs: a node's own work under the layout it produces and the layouts it reads, split into
// compute (at unpadded, preferred layouts), (8 x 128) tile padding and op-specific layout
// preferences, with the reason in words.
#include "synth/TpuCostModelImpl.h"

namespace tpg::synth {

template <bool kExplain>
TpuCostModel::Impl::OpCost TpuCostModel::Impl::opCost(const NodeInfo& x, LayoutCode lv,
                                                      const OperandReads& r) const {
    switch (x.cls) {
        case OpClass::Free:
        case OpClass::Tuple:
        case OpClass::Parameter:
        case OpClass::Constant:
        case OpClass::Generated: {
            OpCost c;
            if constexpr (kExplain) {
                c.reason = x.cls == OpClass::Parameter
                               ? "parameter: layout " + layoutString(lv) + " fixed by the caller"
                           : x.cls == OpClass::Tuple
                               ? "tuple: its operands are outputs and keep their default layouts"
                           : x.cls == OpClass::Free
                               ? "no work of its own"
                               : "generated in whatever layout its users want: no cost";
            }
            return c;
        }
        case OpClass::Convolution:
        case OpClass::Dot:
            return matmulCost<kExplain>(x, lv, r);
        case OpClass::Reshape:
        case OpClass::Transpose:
            return relayoutCost<kExplain>(x, lv, r);
        default:
            return vectorCost<kExplain>(x, lv, r);  // Elementwise, ReduceWindow, Reduce, Other
    }
}

// The matrix unit's work, or the memory traffic when that is slower; slowed when a feature or
// contracting dimension is not most minor.
template <bool kExplain>
TpuCostModel::Impl::OpCost TpuCostModel::Impl::matmulCost(const NodeInfo& x, LayoutCode lv,
                                                          const OperandReads& r) const {
    OpCost c;
    const double bw = p.hbmBytesPerNs;
    const double outBytes = bytes(x), outPadded = outBytes * padRatio(x, lv);
    const double mxu = x.flops / p.mxuFlopsPerNs;
    const double outPad = padRatio(x, lv);
    const double mem = (r.bytes + outBytes) / bw, memPad = (r.paddedBytes + outPadded) / bw;
    double pref = 1;
    std::string prefWhy;
    auto prefer = [&](LayoutCode l, int wantedMinor, double factor, const char* what) {
        if (l == kUnset || wantedMinor < 0 || rankOf(l) == 0 || dimAt(l, 0) == wantedMinor) return;
        pref *= factor;
        if constexpr (kExplain)
            prefWhy += std::string("; ") + what + " dim " + std::to_string(wantedMinor) +
                       " not most minor in " + layoutString(l) + fmt(" (x%.2f)", factor);
    };
    if (x.cls == OpClass::Convolution) {
        prefer(r.layouts[0], x.inFeature, p.convInputPreference, "input feature");
        prefer(r.layouts[1], x.kernelOut, p.convKernelPreference, "kernel output-feature");
        prefer(lv, x.outFeature, p.convOutputPreference, "output feature");
    } else {
        prefer(r.layouts[0], x.lhsContract, p.dotOperandPreference, "lhs contracting");
        prefer(r.layouts[1], x.rhsOut, p.dotOperandPreference, "rhs output");
    }
    const double base = std::max(mxu, mem), withPad = std::max(mxu * outPad, memPad);
    const double withPref = std::max(mxu * outPad * pref, memPad);
    c.compute = p.opOverheadNs + base;
    c.padding = withPad - base;
    c.layoutExtra = withPref - withPad;
    if constexpr (kExplain)
        c.reason =
            schema::opcodeName(x.cls == OpClass::Convolution ? schema::opcodeId("convolution")
                                                             : schema::opcodeId("dot")) +
            fmt(": %.3g GFLOP", x.flops / 1e9) + " (" + ns(mxu) + " on the MXU), " +
            bytesText(r.bytes + outBytes) + " moved (" + ns(mem) + "); output " + layoutString(lv) +
            fmt(" pads x%.2f", outPad) + prefWhy;
    return c;
}

// Free as a bitcast when the element order survives, else a physical relayout through the
// transpose unit.
template <bool kExplain>
TpuCostModel::Impl::OpCost TpuCostModel::Impl::relayoutCost(const NodeInfo& x, LayoutCode lv,
                                                            const OperandReads& r) const {
    OpCost c;
    const double bw = p.hbmBytesPerNs;
    const double outBytes = bytes(x), outPadded = outBytes * padRatio(x, lv);
    bool bitcast;
    std::string need;
    if (x.cls == OpClass::Reshape) {
        // A reshape is free only when both sides keep the logical (row-major) element
        // order.
        const LayoutCode in = r.layouts[0] == kUnset ? descending(0) : r.layouts[0];
        const bool inRowMajor =
            x.prodEnd == x.prodBegin ||
            in == canonical(at(prodNode[static_cast<size_t>(x.prodBegin)]), descending(rankOf(in)));
        bitcast = inRowMajor && lv == canonical(x, descending(x.rank));
        if constexpr (kExplain)
            need = "both sides row-major (input " + layoutString(in) + ", output " +
                   layoutString(lv) + ")";
    } else {
        int e[kMaxRank];
        for (int j = 0; j < x.rank; ++j) e[j] = x.perm[static_cast<size_t>(dimAt(lv, j))];
        const LayoutCode equivalent =
            x.prodEnd > x.prodBegin
                ? canonical(at(prodNode[static_cast<size_t>(x.prodBegin)]), encode(e, x.rank))
                : kUnset;
        bitcast = r.layouts[0] == kUnset || equivalent == r.layouts[0];
        if constexpr (kExplain)
            need = "its input as " + layoutString(equivalent) + ", it arrives as " +
                   layoutString(r.layouts[0]);
    }
    if (!bitcast) {
        c.compute = p.opOverheadNs + (r.bytes + outBytes) / bw;
        c.padding = (r.paddedBytes + outPadded - r.bytes - outBytes) / bw;
        c.layoutExtra = (p.transposeFactor - 1) * (r.paddedBytes + outPadded) / bw;
    }
    if constexpr (kExplain)
        c.reason = std::string(x.cls == OpClass::Reshape ? "reshape" : "transpose") +
                   (bitcast ? ": a free bitcast (" + need + ")"
                            : ": a physical relayout of " + bytesText(outBytes) +
                                  " (a bitcast needs " + need + ")");
    return c;
}

// Vector unit or memory bound; a reduce over its most-minor dim needs cross-lane work.
template <bool kExplain>
TpuCostModel::Impl::OpCost TpuCostModel::Impl::vectorCost(const NodeInfo& x, LayoutCode lv,
                                                          const OperandReads& r) const {
    OpCost c;
    const double bw = p.hbmBytesPerNs;
    const double outBytes = bytes(x), outPadded = outBytes * padRatio(x, lv);
    double work = x.volume * x.flopsPerElement / p.vectorFlopsPerNs;
    if (x.cls == OpClass::ReduceWindow) work *= x.windowProduct;
    if (x.cls == OpClass::Reduce) work = r.bytes / std::max(1.0, x.elemBytes) / p.vectorFlopsPerNs;
    const double base = std::max(work, (r.bytes + outBytes) / bw);
    const double withPad = std::max(work, (r.paddedBytes + outPadded) / bw);
    double penalty = 1;
    if (x.cls == OpClass::Reduce && r.layouts[0] != kUnset && rankOf(r.layouts[0]) > 0 &&
        (x.reducedMask >> dimAt(r.layouts[0], 0) & 1u))
        penalty = p.reduceMinorPenalty;
    c.compute = p.opOverheadNs + base;
    c.padding = withPad - base;
    c.layoutExtra = withPad * (penalty - 1);
    if constexpr (kExplain) {
        c.reason = (work > (r.paddedBytes + outPadded) / bw ? "vector-bound, " : "memory-bound, ") +
                 bytesText(r.bytes + outBytes) + " moved; output " + layoutString(lv) +
                 fmt(" pads x%.2f", padRatio(x, lv));
        if (penalty > 1)
            c.reason += "; reduces its most-minor dim " + std::to_string(dimAt(r.layouts[0], 0)) +
                        fmt(" (x%.2f)", penalty);
    }
    return c;
}

template TpuCostModel::Impl::OpCost TpuCostModel::Impl::opCost<false>(const NodeInfo&, LayoutCode,
                                                                      const OperandReads&) const;
template TpuCostModel::Impl::OpCost TpuCostModel::Impl::opCost<true>(const NodeInfo&, LayoutCode,
                                                                     const OperandReads&) const;

}  // namespace tpg::synth
