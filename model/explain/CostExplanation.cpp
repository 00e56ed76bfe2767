#include "CostExplanation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "graph/Schema.h"
#include "metrics/Metrics.h"

namespace tpg::explain {

namespace {

// Each node's own cost plus the copies into it: what changes when its layouts change.
std::vector<double> perNodeNs(const TpuGraph& g, const synth::CostBreakdown& b) {
    std::vector<double> ns(static_cast<size_t>(g.numNodes()), 0.0);
    for (const auto& n : b.nodes) ns[static_cast<size_t>(n.node)] += n.totalNs();
    for (const auto& e : b.copies) ns[static_cast<size_t>(e.consumer)] += e.copyNs;
    return ns;
}

std::string signedNs(double ns) { return (ns >= 0 ? "+" : "-") + nsText(std::abs(ns)); }

// "padding on" when most of a node's change is padding, etc., with the word that leads to the
// node ("copies into #88", where "copies into on #88" was written).
std::string dominantPart(const synth::NodeCost* a, const synth::NodeCost* b, double copyDelta) {
    const double compute = (b ? b->computeNs : 0) - (a ? a->computeNs : 0);
    const double padding = (b ? b->paddingNs : 0) - (a ? a->paddingNs : 0);
    const double layout = (b ? b->layoutNs : 0) - (a ? a->layoutNs : 0);
    const std::pair<double, const char*> parts[] = {{compute, "compute on"},
                                                    {padding, "padding on"},
                                                    {layout, "layout preference on"},
                                                    {copyDelta, "copies into"}};
    const auto* best = &parts[0];
    for (const auto& p : parts)
        if (std::abs(p.first) > std::abs(best->first)) best = &p;
    return best->second;
}

}  // namespace

std::string nsText(double ns) {
    char buf[48];
    const double a = std::abs(ns);
    if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
    else if (a >= 1e3) std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
    else std::snprintf(buf, sizeof buf, "%.0f ns", ns);
    return buf;
}

std::string layoutText(const std::vector<int>& l) {
    std::string s = "{";
    for (size_t i = 0; i < l.size(); ++i) s += (i ? "," : "") + std::to_string(l[i]);
    return s + "}";
}

bool isTransposing(const synth::EdgeCost& e) {
    return !e.fromLayout.empty() && !e.toLayout.empty() && e.fromLayout[0] != e.toLayout[0];
}

std::vector<const synth::NodeCost*> costliestNodes(const synth::CostBreakdown& b, size_t count) {
    std::vector<const synth::NodeCost*> nodes;
    nodes.reserve(b.nodes.size());
    for (const auto& n : b.nodes) nodes.push_back(&n);
    const size_t k = std::min(count, nodes.size());
    std::partial_sort(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(k), nodes.end(),
                      [](const auto* x, const auto* y) { return x->totalNs() > y->totalNs(); });
    nodes.resize(k);
    return nodes;
}

std::vector<const synth::EdgeCost*> costliestCopies(const synth::CostBreakdown& b, size_t count) {
    std::vector<const synth::EdgeCost*> copies;
    copies.reserve(b.copies.size());
    for (const auto& c : b.copies) copies.push_back(&c);
    const size_t k = std::min(count, copies.size());
    std::partial_sort(copies.begin(), copies.begin() + static_cast<std::ptrdiff_t>(k), copies.end(),
                      [](const auto* x, const auto* y) { return x->copyNs > y->copyNs; });
    copies.resize(k);
    return copies;
}

double CostSummary::categoryNs(const std::string& name) const {
    for (const auto& c : categories)
        if (c.name == name) return c.ns;
    return 0;
}

namespace {

// Index of the node's largest output dimension (the first of equals); -1 below rank 2.
int largestDim(const TpuGraph& g, int32_t node) {
    const float* row = g.nodeFeatures(node);
    const int rank = schema::shapeRank(row);
    if (rank < 2) return -1;
    const float* dims = row + schema::kShapeDimColumn;
    return static_cast<int>(std::max_element(dims, dims + rank) - dims);
}

bool featuresHaveShapes(const TpuGraph& g) {
    return g.isLayout() && g.numConfigurable() > 0 && g.nodeFeatureWidth() >= schema::kNodeFeatureWidth;
}

}  // namespace

double violationRatio(const TpuGraph& g, const float* layoutRow) {
    if (!featuresHaveShapes(g)) return 0;
    int violations = 0;
    const auto& nodes = g.configurableNodes();
    for (size_t k = 0; k < nodes.size(); ++k) {
        const int largest = largestDim(g, nodes[k]);
        if (largest < 0) continue;
        int minor = static_cast<int>(layoutRow[k * schema::kLayoutConfigWidth]);  // output_layout_0
        if (minor < 0) minor = static_cast<int>(g.nodeFeature(nodes[k], schema::kNodeLayoutColumn));
        if (minor != largest) ++violations;
    }
    return static_cast<double>(violations) / static_cast<double>(nodes.size());
}

double violationRatio(const TpuGraph& g, const synth::CostBreakdown& b) {
    if (!featuresHaveShapes(g)) return 0;
    int violations = 0;
    for (int32_t n : g.configurableNodes()) {
        const int largest = largestDim(g, n);
        const auto& layout = b.nodes[static_cast<size_t>(n)].outputLayout;
        if (largest >= 0 && !layout.empty() && layout[0] != largest) ++violations;
    }
    return static_cast<double>(violations) / static_cast<double>(g.numConfigurable());
}

CostSummary summarize(const TpuGraph& g, const synth::CostBreakdown& b) {
    CostSummary s;
    s.totalNs = b.totalNs;
    double compute = 0, padding = 0, layout = 0;
    for (const auto& n : b.nodes) {
        compute += n.computeNs;
        padding += n.paddingNs;
        layout += n.layoutNs;
    }
    s.categories = {{"compute", compute}, {"padding", padding}, {"layout preference", layout}, {"copies", b.copiesNs}};
    if (!g.isLayout()) {
        const synth::TileCost& t = b.tile;
        s.categories.push_back({"tile launch", t.launchNs});
        s.categories.push_back({"tile overhead", t.tileOverheadNs});
        s.categories.push_back({"tile traffic", t.trafficNs});
        s.categories.push_back({"tile spill", t.spillNs});
        s.categories.push_back({"tile waste", t.wasteNs});
    }
    s.categories.push_back({"noise", b.noiseNs});
    s.copies = static_cast<int>(b.copies.size());
    s.transposingCopies = static_cast<int>(std::count_if(b.copies.begin(), b.copies.end(), isTransposing));
    s.violationRatio = violationRatio(g, b);
    return s;
}

std::string changeSentence(double aNs, double bNs) {
    if (bNs == aNs) return "B takes the same time";
    const double pct = aNs > 0 ? 100.0 * (bNs / aNs - 1.0) : 0.0;
    // Two decimals below a tenth of a percent: "0.0% slower" read as no change.
    char head[96];
    std::snprintf(head, sizeof head, std::abs(pct) < 0.1 ? "B is %.2f%% %s" : "B is %.1f%% %s",
                  std::abs(pct), pct >= 0 ? "slower" : "faster");
    return head;
}

Comparison compare(const TpuGraph& g, const synth::CostBreakdown& a, const synth::CostBreakdown& b, size_t topCount) {
    Comparison c;
    c.aNs = a.totalNs;
    c.bNs = b.totalNs;
    for (int32_t n : g.configurableNodes())
        if (a.nodes[static_cast<size_t>(n)].outputLayout != b.nodes[static_cast<size_t>(n)].outputLayout)
            c.differingNodes.push_back(n);
    const CostSummary sa = summarize(g, a), sb = summarize(g, b);
    for (size_t i = 0; i < sa.categories.size(); ++i)
        c.categoryDeltas.push_back({sa.categories[i].name, sb.categories[i].ns - sa.categories[i].ns});
    c.copyDelta = sb.copies - sa.copies;

    const std::vector<double> na = perNodeNs(g, a), nb = perNodeNs(g, b);
    std::map<int32_t, double> copiesA, copiesB;
    for (const auto& e : a.copies) copiesA[e.consumer] += e.copyNs;
    for (const auto& e : b.copies) copiesB[e.consumer] += e.copyNs;
    std::vector<int32_t> order(na.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
    const size_t k = std::min(topCount, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), [&](int32_t x, int32_t y) {
        return std::abs(nb[static_cast<size_t>(x)] - na[static_cast<size_t>(x)]) >
               std::abs(nb[static_cast<size_t>(y)] - na[static_cast<size_t>(y)]);
    });
    for (size_t i = 0; i < k; ++i) {
        const int32_t n = order[i];
        const double delta = nb[static_cast<size_t>(n)] - na[static_cast<size_t>(n)];
        if (std::abs(delta) < 0.5) break;  // nothing left that moved by a nanosecond
        const std::string part = dominantPart(&a.nodes[static_cast<size_t>(n)], &b.nodes[static_cast<size_t>(n)],
                                              copiesB[n] - copiesA[n]);
        c.topNodes.push_back(
            {n, delta,
             part + " #" + std::to_string(n) + " " + g.opcodeName(n) + " " + signedNs(delta)});
    }

    std::string sentence = changeSentence(a.totalNs, b.totalNs);
    std::vector<std::string> reasons;
    if (c.copyDelta != 0)
        reasons.push_back(std::to_string(std::abs(c.copyDelta)) + (c.copyDelta > 0 ? " more" : " fewer") +
                          (std::abs(c.copyDelta) == 1 ? " copy " : " copies ") +
                          signedNs(sb.categoryNs("copies") - sa.categoryNs("copies")));
    for (size_t i = 0; i < c.topNodes.size() && reasons.size() < 3; ++i) reasons.push_back(c.topNodes[i].what);
    for (size_t i = 0; i < reasons.size(); ++i) sentence += (i == 0 ? ": " : "; ") + reasons[i];
    c.sentence = sentence;
    return c;
}

bool synthIsGroundTruth(const TpuGraph& g, const synth::TpuCostModel& tpu) {
    // A real file matches none of a few configurations, a synthetic one all (rounded to whole ns).
    constexpr int64_t kChecks = 3;
    if (!g.runtimesKnown() || g.numConfigs() == 0) return false;
    for (int64_t c = 0; c < std::min<int64_t>(kChecks, g.numConfigs()); ++c)
        if (std::llround(tpu.runtime(c)) != std::llround(g.runtimes()[static_cast<size_t>(c)])) return false;
    return true;
}

Agreement synthAgreement(const TpuGraph& g, const synth::TpuCostModel& tpu, int64_t maxConfigs) {
    Agreement out;
    if (!g.runtimesKnown() || g.numConfigs() < 2) {
        out.kendall = std::numeric_limits<double>::quiet_NaN();
        return out;
    }
    const int64_t n = std::min<int64_t>(g.numConfigs(), std::max<int64_t>(2, maxConfigs));
    std::vector<double> synthNs, measured;
    for (int64_t i = 0; i < n; ++i) {
        const int64_t c = i * g.numConfigs() / n;  // evenly spread
        synthNs.push_back(tpu.runtime(c));
        measured.push_back(g.runtimes()[static_cast<size_t>(c)]);  // both in ns, tile files too
    }
    out.kendall = metrics::kendallTau(synthNs, measured);
    out.configs = n;
    return out;
}

std::vector<TiledTensor> tiledTensors(const synth::TpuCostModel::TileTensors& t,
                                      const synth::TileCost& c) {
    std::vector<TiledTensor> out;
    const auto add = [&out](const char* role, int32_t node, const std::vector<int64_t>& dims,
                            const std::vector<int>& layout, const std::array<int64_t, 6>& tile) {
        if (node < 0 || dims.size() > tile.size()) return;
        out.push_back({role, node, dims, layout,
                       std::vector<int64_t>(
                           tile.begin(), tile.begin() + static_cast<std::ptrdiff_t>(dims.size()))});
    };
    add("output", t.outputNode, t.output, t.outputLayout, c.outputTile);
    add("input", t.inputNode, t.input, t.inputLayout, c.inputTile);
    add("kernel", t.kernelNode, t.kernel, t.kernelLayout, c.kernelTile);
    return out;
}

std::string dimsText(const std::vector<int64_t>& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
}

std::string tileChanges(const std::vector<TiledTensor>& a, const std::vector<TiledTensor>& b,
                        const std::string& arrow) {
    std::string out;
    for (const TiledTensor& x : a)
        for (const TiledTensor& y : b)
            if (x.role == y.role && x.tile != y.tile)
                out += (out.empty() ? "" : "; ") + x.role + " " + dimsText(x.tile) + arrow +
                       dimsText(y.tile);
    return out;
}

}  // namespace tpg::explain
