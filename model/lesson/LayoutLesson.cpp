#include "LayoutLesson.h"

#include <algorithm>
#include <numeric>
#include <utility>

namespace tpg::lesson {

using whatif::LayoutSlot;

const synth::EdgeCost* copyBetween(const synth::CostBreakdown& b, int32_t producer, int32_t consumer) {
    for (const synth::EdgeCost& e : b.copies)
        if (e.producer == producer && e.consumer == consumer) return &e;
    return nullptr;
}

namespace {

std::vector<std::vector<int>> permutationsOf(int rank) {
    std::vector<int> p(static_cast<size_t>(rank));
    std::iota(p.begin(), p.end(), 0);
    std::vector<std::vector<int>> all;
    do {
        all.push_back(p);
    } while (std::next_permutation(p.begin(), p.end()));
    return all;
}

// Convolutions first, then dots (what the lesson's text is about), then any other configurable
// op; each group heaviest first, so the lesson edits a node that matters.
std::vector<int32_t> producersToTry(const TpuGraph& g, const synth::CostBreakdown& start) {
    std::vector<std::pair<int, int32_t>> ranked;
    for (int32_t v : g.configurableNodes()) {
        const whatif::SlotTensor out = whatif::slotTensor(g, v, LayoutSlot::Output);
        if (!out.usable || out.rank() < 2) continue;
        const std::string op = g.opcodeName(v);
        ranked.emplace_back(op == "convolution" ? 0 : op == "dot" ? 1 : 2, v);
    }
    const auto cost = [&start](int32_t v) { return start.nodes[static_cast<size_t>(v)].totalNs(); };
    std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : cost(a.second) > cost(b.second);
    });
    std::vector<int32_t> nodes;
    for (size_t i = 0; i < ranked.size() && i < kMaxProducersTried; ++i) nodes.push_back(ranked[i].second);
    return nodes;
}

// The slot of `consumer` that lays out `tensor` (how it accepts a new layout instead of asking for
// a copy), if it has one.
std::optional<LayoutSlot> slotReading(const TpuGraph& g, int32_t consumer, int32_t tensor) {
    if (!g.isConfigurable(consumer)) return std::nullopt;
    for (LayoutSlot s : {LayoutSlot::Input, LayoutSlot::Kernel}) {
        const whatif::SlotTensor t = whatif::slotTensor(g, consumer, s);
        if (t.usable && t.tensorNode == tensor) return s;
    }
    return std::nullopt;
}

std::vector<float> withLayout(const TpuGraph& g, std::vector<float> row, int32_t node, LayoutSlot slot,
                              const std::vector<int>& layout) {
    whatif::applyLayoutEdit(g, row, whatif::LayoutEdit{node, slot, layout});
    return row;
}

std::vector<int32_t> nodesWhoseLayoutChanged(const synth::CostBreakdown& a, const synth::CostBreakdown& b,
                                             int32_t except) {
    std::vector<int32_t> nodes;
    for (size_t n = 0; n < a.nodes.size(); ++n)
        if (static_cast<int32_t>(n) != except && a.nodes[n].outputLayout != b.nodes[n].outputLayout)
            nodes.push_back(static_cast<int32_t>(n));
    return nodes;
}

bool isClean(const LayoutLesson& l) { return l.fixed.copies.size() <= l.start.copies.size(); }

// A scenario whose fix removes every copy the edit added reads best in class; then the one whose
// fix wins back the most.
bool betterLesson(const synth::CostBreakdown& start, const synth::CostBreakdown& bad,
                  const synth::CostBreakdown& fixed, const LayoutLesson& than) {
    const bool clean = fixed.copies.size() <= start.copies.size();
    if (clean != isClean(than)) return clean;
    return bad.totalNs - fixed.totalNs > than.bad.totalNs - than.fixed.totalNs;
}

// Every copy `bad` has and `start` has not, each with its fix tried; `best` keeps the scenario
// whose fix wins back the most.
void tryFixes(const TpuGraph& g, const synth::TpuCostModel& tpu, LayoutLesson&& candidate,
              std::optional<LayoutLesson>& best) {
    for (const synth::EdgeCost& copy : candidate.bad.copies) {
        if (copyBetween(candidate.start, copy.producer, copy.consumer)) continue;
        const std::optional<LayoutSlot> slot = slotReading(g, copy.consumer, copy.producer);
        if (!slot) continue;
        std::vector<float> fixedRow = withLayout(g, candidate.badRow, copy.consumer, *slot, copy.fromLayout);
        synth::CostBreakdown fixed = tpu.explainLayout(fixedRow.data());
        if (copyBetween(fixed, copy.producer, copy.consumer) || fixed.totalNs >= candidate.bad.totalNs) continue;
        if (best && !betterLesson(candidate.start, candidate.bad, fixed, *best)) continue;
        LayoutLesson l = candidate;
        l.copy = copy;
        l.consumerSlot = *slot;
        l.fixedRow = std::move(fixedRow);
        l.fixed = std::move(fixed);
        best = std::move(l);
    }
}

}  // namespace

std::vector<float> withOperandLayoutsWritten(const TpuGraph& g, const synth::TpuCostModel& tpu,
                                             const std::vector<float>& row) {
    const synth::CostBreakdown b = tpu.explainLayout(row.data());
    std::vector<float> pinned = row;
    for (int32_t v : g.configurableNodes()) {
        for (LayoutSlot s : {LayoutSlot::Input, LayoutSlot::Kernel}) {
            const whatif::SlotTensor t = whatif::slotTensor(g, v, s);
            if (!t.usable || !whatif::layoutOf(g, row, v, s).empty()) continue;
            const std::vector<int>& reads = b.nodes[static_cast<size_t>(t.tensorNode)].outputLayout;
            if (static_cast<int>(reads.size()) == t.rank()) pinned = withLayout(g, std::move(pinned), v, s, reads);
        }
    }
    // The same program, or the row as it was (a slot the compiler reads differently).
    return tpu.layoutRuntime(pinned.data()) == b.totalNs ? pinned : row;
}

std::optional<LayoutLesson> findLayoutLesson(const TpuGraph& g, const synth::TpuCostModel& tpu,
                                             const std::vector<float>& startRow,
                                             const std::function<bool(double)>& keepGoing) {
    if (!g.isLayout() || !whatif::layoutEditingUnavailable(g).empty()) return std::nullopt;
    const int64_t budget = std::max<int64_t>(1, kSearchNodeEvaluations / std::max<int64_t>(1, g.numNodes()));
    int64_t spent = 0;
    LayoutLesson candidate;
    candidate.startRow = withOperandLayoutsWritten(g, tpu, startRow);
    candidate.start = tpu.explainLayout(candidate.startRow.data());
    std::optional<LayoutLesson> best;
    for (int32_t v : producersToTry(g, candidate.start)) {
        candidate.producer = v;
        candidate.startLayout = candidate.start.nodes[static_cast<size_t>(v)].outputLayout;
        for (const std::vector<int>& layout : permutationsOf(static_cast<int>(candidate.startLayout.size()))) {
            if (layout == candidate.startLayout) continue;
            if (spent >= budget) return best;
            if (keepGoing && !keepGoing(static_cast<double>(spent) / static_cast<double>(budget))) return std::nullopt;
            ++spent;
            candidate.badLayout = layout;
            candidate.badRow = withLayout(g, candidate.startRow, v, LayoutSlot::Output, layout);
            candidate.bad = tpu.explainLayout(candidate.badRow.data());
            if (candidate.bad.totalNs <= candidate.start.totalNs) continue;
            candidate.propagatedTo = nodesWhoseLayoutChanged(candidate.start, candidate.bad, v);
            tryFixes(g, tpu, LayoutLesson(candidate), best);
        }
    }
    return best;
}

std::vector<LessonStart> layoutLessonStarts(const TpuGraph& g) {
    if (!g.isLayout()) return {};
    const auto& configs = *g.layoutConfigs();
    std::vector<LessonStart> starts{
        {std::vector<float>(static_cast<size_t>(configs.rowSize()), -1.0F),
         "the compiler's default configuration"}};
    if (g.runtimesKnown() && g.numConfigs() > 0) {
        const auto& runtimes = g.runtimes();
        const int64_t best = std::min_element(runtimes.begin(), runtimes.end()) - runtimes.begin();
        std::vector<float> row(static_cast<size_t>(configs.rowSize()));
        configs.read(best, 1, row.data());
        starts.push_back(
            {std::move(row), "configuration " + std::to_string(best) + ", the fastest measured"});
    }
    return starts;
}

}  // namespace tpg::lesson
