// Layouts and copies: what each node produces under a configuration (set by it, propagated
// through elementwise ops, or the compiler's default) and the copies the compiler inserts where a
// consumer wants another layout than its producer writes.
#include <utility>

#include "synth/SyntheticRandom.h"
#include "synth/TpuCostModelImpl.h"

namespace tpg::synth {

namespace {

const char* slotName(int s) {
    return s == 0 ? "output_layout" : s == 1 ? "input_layout" : "kernel_layout";
}

}  // namespace

// An explicit layout per slot, or unset (compiler default); a slot that is neither is reported.
template <bool kExplain>
std::vector<LayoutCode> TpuCostModel::Impl::resolveSlots(const float* config,
                                                         CostBreakdown* out) const {
    const size_t nc = configurable.size();
    const auto width = static_cast<size_t>(configWidth);
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
    return slots;
}

// Producers first: a node's output layout is its slot's, else (elementwise) its first real
// operand's, else its default.
std::vector<LayoutCode> TpuCostModel::Impl::propagateLayouts(
    const std::vector<LayoutCode>& slots) const {
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
    return L;
}

namespace {

// The layout node `x` (configurable index k, -1 if not) wants for its `operand`-th operand `px`
// that arrives as `have`, and why; `have` itself when it does not care.
LayoutCode wantedLayout(const NodeInfo& x, int32_t k, int operand, const NodeInfo& px,
                        LayoutCode have, LayoutCode lv, const std::vector<LayoutCode>& slots,
                        const char** why) {
    LayoutCode want = have;
    if (k >= 0 && operand == 0 && slots[static_cast<size_t>(k) * 3 + 1] != kUnset) {
        want = slots[static_cast<size_t>(k) * 3 + 1];
        *why = "its input_layout";
    } else if (k >= 0 && operand == 1 && (x.cls == OpClass::Convolution || x.cls == OpClass::Dot) &&
               slots[static_cast<size_t>(k) * 3 + 2] != kUnset) {
        want = slots[static_cast<size_t>(k) * 3 + 2];
        *why = "its kernel_layout";
    } else if (propagates(x) && !flexible(px) && !px.tuple && px.rank == x.rank) {
        want = lv;
        *why = "the layout of its output (elementwise operands must agree)";
    } else if (x.cls == OpClass::Tuple && !px.tuple) {
        want = px.defaultLayout;
        *why = "its default layout (a program output)";
    }
    return want;
}

}  // namespace

template <bool kExplain>
TpuCostModel::Impl::OperandReads TpuCostModel::Impl::readOperands(
    int32_t v, const std::vector<LayoutCode>& slots, const std::vector<LayoutCode>& L,
    uint64_t& hash, double& copiesSum, CostBreakdown* out) const {
    const NodeInfo& x = at(v);
    const int32_t k = configIndex[static_cast<size_t>(v)];
    const LayoutCode lv = L[static_cast<size_t>(v)];
    OperandReads r;
    for (int32_t i = x.prodBegin; i < x.prodEnd; ++i) {
        const int operand = i - x.prodBegin;
        const int32_t pv = prodNode[static_cast<size_t>(i)];
        const NodeInfo& px = at(pv);
        const LayoutCode have = L[static_cast<size_t>(pv)];
        const char* why = "";
        LayoutCode want = wantedLayout(x, k, operand, px, have, lv, slots, &why);
        if (rankOf(want) != rankOf(have)) want = have;
        if (want != have && !flexible(px) && px.rank >= 2) {
            hash = mix64(hash ^
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
                e.reason = "node " + std::to_string(pv) + " writes " + layoutString(have) +
                           ", node " + std::to_string(v) + " wants " + layoutString(want) + " (" +
                           why + "): copy of " + bytesText(bytes(px)) +
                           (dimAt(have, 0) != dimAt(want, 0) ? " through the transpose unit" : "") +
                           ", " + ns(copy);
                out->copies.push_back(std::move(e));
            }
        }
        if (operand < 2) r.layouts[operand] = want;
        if (px.cls != OpClass::Generated) {
            r.bytes += bytes(px);
            r.paddedBytes += bytes(px) * padRatio(px, want);
        }
    }
    return r;
}

template <bool kExplain>
double TpuCostModel::Impl::layout(const float* config, uint64_t* configHash,
                                  CostBreakdown* out) const {
    const std::vector<LayoutCode> slots = resolveSlots<kExplain>(config, out);
    const std::vector<LayoutCode> L = propagateLayouts(slots);
    // The noise is keyed by the compiled program (every node's layout and every inserted copy),
    // not by the raw values: configurations the compiler turns into the same program measure the
    // same, as identical executables do.
    uint64_t h = mix64(graphHash ^ 0x6c61796f7574ULL);
    for (LayoutCode code : L) h = mix64(h ^ code);

    // Per node: copies on its operand edges, then its own cost.
    double nodesSum = 0, copiesSum = 0;
    if constexpr (kExplain) out->nodes.resize(static_cast<size_t>(n));
    for (int64_t vi = 0; vi < n; ++vi) {
        const auto v = static_cast<int32_t>(vi);
        const NodeInfo& x = at(v);
        const LayoutCode lv = L[static_cast<size_t>(v)];
        const OperandReads reads = readOperands<kExplain>(v, slots, L, h, copiesSum, out);
        OpCost cost = opCost<kExplain>(x, lv, reads);
        nodesSum += cost.compute + cost.padding + cost.layoutExtra;
        if constexpr (kExplain) {
            NodeCost& c = out->nodes[static_cast<size_t>(v)];
            c.node = v;
            c.computeNs = cost.compute;
            c.paddingNs = cost.padding;
            c.layoutNs = cost.layoutExtra;
            c.outputLayout = decode(lv);
            c.reason = std::move(cost.reason);
        }
    }
    *configHash = h;
    if constexpr (kExplain) {
        out->nodesNs = nodesSum;
        out->copiesNs = copiesSum;
    }
    return nodesSum + copiesSum;
}

template double TpuCostModel::Impl::layout<false>(const float*, uint64_t*, CostBreakdown*) const;
template double TpuCostModel::Impl::layout<true>(const float*, uint64_t*, CostBreakdown*) const;

}  // namespace tpg::synth
