#include "GraphvizLayout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <QElapsedTimer>
#include <algorithm>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tpg {

namespace {

constexpr double kPointsPerInch = 72.0;
constexpr double kNodeSep = 0.22;  // inches between boxes of one rank
constexpr double kRankSep = 0.42;  // inches between ranks

std::mutex& graphvizMutex() {
    static std::mutex m;
    return m;
}

// One context for the process (loading plugins is not free); used under graphvizMutex only.
GVC_t* graphvizContext() {
    static GVC_t* gvc = gvContext();
    return gvc;
}

// Which edges dot routes. Every rank an edge spans becomes a virtual node in dot's crossing
// minimisation, so long HLO edges (a weight read 300 ops later) dominate its cost. Ranks are
// estimated by longest path; a producer sits just above its nearest consumer (as dot's
// network simplex places it). An edge spanning more than kMaxDotEdgeSpan ranks from there is
// left to us, except each producer keeps its nearest edge so it stays placed near a consumer;
// and at most kMaxDotEdges edges go to dot, the shortest first.
std::vector<bool> edgesForDot(const ViewGraph& v) {
    const size_t n = v.items.size();
    std::vector<std::vector<int>> out(n);
    std::vector<int> indeg(n, 0);
    for (size_t e = 0; e < v.edges.size(); ++e) {
        out[static_cast<size_t>(v.edges[e].producer)].push_back(static_cast<int>(e));
        ++indeg[static_cast<size_t>(v.edges[e].consumer)];
    }
    std::vector<int> rank(n, 0), queue;
    for (size_t i = 0; i < n; ++i)
        if (indeg[i] == 0) queue.push_back(static_cast<int>(i));
    for (size_t q = 0; q < queue.size(); ++q) {  // Kahn; items on a cycle keep rank 0
        const int u = queue[q];
        for (int e : out[static_cast<size_t>(u)]) {
            const auto c = static_cast<size_t>(v.edges[static_cast<size_t>(e)].consumer);
            rank[c] = std::max(rank[c], rank[static_cast<size_t>(u)] + 1);
            if (--indeg[c] == 0) queue.push_back(static_cast<int>(c));
        }
    }
    std::vector<bool> keep(v.edges.size(), false), nearestOf(v.edges.size(), false);
    std::vector<int> span(v.edges.size(), 0);
    for (size_t p = 0; p < n; ++p) {
        if (out[p].empty()) continue;
        int nearest = out[p].front(), nearestRank = 1 << 30;
        for (int e : out[p]) {
            const int r = rank[static_cast<size_t>(v.edges[static_cast<size_t>(e)].consumer)];
            if (r < nearestRank) nearestRank = r, nearest = e;
        }
        const int placed = std::max(rank[p], nearestRank - 1);
        for (int e : out[p])
            span[static_cast<size_t>(e)] =
                rank[static_cast<size_t>(v.edges[static_cast<size_t>(e)].consumer)] - placed;
        nearestOf[static_cast<size_t>(nearest)] = true;
    }
    // Each producer keeps its nearest edge; the shortest of the others fill the edge budget.
    std::vector<int> others;
    int kept = 0;
    for (size_t e = 0; e < v.edges.size(); ++e) {
        if (nearestOf[e]) {
            keep[e] = true;
            ++kept;
        } else if (span[e] <= vizlimits::kMaxDotEdgeSpan) {
            others.push_back(static_cast<int>(e));
        }
    }
    std::stable_sort(others.begin(), others.end(), [&](int a, int b) {
        return span[static_cast<size_t>(a)] < span[static_cast<size_t>(b)];
    });
    for (int e : others) {
        if (kept >= vizlimits::kMaxDotEdges) break;
        keep[static_cast<size_t>(e)] = true;
        ++kept;
    }
    return keep;
}

struct GraphAttributes {
    std::string splines, mclimit, nslimit;
};

GraphAttributes attributesFor(const ViewGraph& v) {
    GraphAttributes a;
    const bool big = static_cast<int>(v.items.size()) > vizlimits::kMaxSplineNodes;
    a.splines = big ? "polyline" : "true";
    if (big) {
        a.mclimit = std::to_string(vizlimits::kBigViewMcLimit);
        a.nslimit = std::to_string(vizlimits::kBigViewNsLimit);
    }
    return a;
}

std::string fmt(double v) {
    std::ostringstream s;
    s.precision(4);
    s << v;
    return s.str();
}

// A cubic from the producer's bottom to the consumer's top, for edges dot does not route.
void routeOurselves(const QRectF& from, const QRectF& to, std::vector<QPointF>& pts, QPointF& tip) {
    const QPointF a(from.center().x(), from.bottom());
    tip = QPointF(to.center().x(), to.top());
    const double bend = std::max(40.0, (tip.y() - a.y()) * 0.35);
    pts = {a, a + QPointF(0, bend), tip - QPointF(0, bend), tip};
}

}  // namespace

std::string toDot(const ViewGraph& v) {
    const GraphAttributes a = attributesFor(v);
    const auto keep = edgesForDot(v);
    std::ostringstream s;
    s << "digraph view {\n  rankdir=TB; nodesep=" << kNodeSep << "; ranksep=" << kRankSep
      << "; splines=" << a.splines << ";";
    if (!a.mclimit.empty())
        s << " mclimit=" << a.mclimit << "; nslimit=" << a.nslimit << "; nslimit1=" << a.nslimit
          << ";";
    s << "\n  node [shape=box, fixedsize=true, label=\"\"];\n";
    for (size_t i = 0; i < v.items.size(); ++i)
        s << "  n" << i << " [width=" << fmt(v.items[i].width / kPointsPerInch)
          << ", height=" << fmt(v.items[i].height / kPointsPerInch) << "];\n";
    for (size_t e = 0; e < v.edges.size(); ++e)
        if (keep[e]) s << "  n" << v.edges[e].producer << " -> n" << v.edges[e].consumer << ";\n";
    s << "}\n";
    return s.str();
}

std::shared_ptr<const LayoutResult> layoutWithGraphviz(ViewGraph view) {
    auto r = std::make_shared<LayoutResult>();
    r->layoutThread = std::this_thread::get_id();
    const size_t n = view.items.size();
    r->itemRects.resize(n);
    r->edgePoints.resize(view.edges.size());
    r->arrowTips.resize(view.edges.size());
    r->routedByDot = edgesForDot(view);
    if (n == 0) {
        r->view = std::move(view);
        return r;
    }
    const GraphAttributes attrs = attributesFor(view);
    QElapsedTimer timer;
    timer.start();
    {
        std::lock_guard<std::mutex> lock(graphvizMutex());
        GVC_t* gvc = graphvizContext();
        Agraph_t* g = agopen(const_cast<char*>("view"), Agdirected, nullptr);
        if (!g) throw std::runtime_error("Graphviz could not create a graph");
        auto set = [](void* obj, const char* key, const std::string& value) {
            agsafeset(obj, const_cast<char*>(key), const_cast<char*>(value.c_str()),
                      const_cast<char*>(""));
        };
        set(g, "rankdir", "TB");
        set(g, "nodesep", fmt(kNodeSep));
        set(g, "ranksep", fmt(kRankSep));
        set(g, "splines", attrs.splines);
        if (!attrs.mclimit.empty()) {
            set(g, "mclimit", attrs.mclimit);
            set(g, "nslimit", attrs.nslimit);
            set(g, "nslimit1", attrs.nslimit);
        }
        agattr(g, AGNODE, const_cast<char*>("shape"), const_cast<char*>("box"));
        agattr(g, AGNODE, const_cast<char*>("fixedsize"), const_cast<char*>("true"));
        agattr(g, AGNODE, const_cast<char*>("label"), const_cast<char*>(""));
        agattr(g, AGNODE, const_cast<char*>("width"), const_cast<char*>("1"));
        agattr(g, AGNODE, const_cast<char*>("height"), const_cast<char*>("0.5"));
        std::vector<Agnode_t*> nodes(n);
        for (size_t i = 0; i < n; ++i) {
            std::string name = "n" + std::to_string(i);
            nodes[i] = agnode(g, name.data(), 1);
            set(nodes[i], "width", fmt(view.items[i].width / kPointsPerInch));
            set(nodes[i], "height", fmt(view.items[i].height / kPointsPerInch));
        }
        std::vector<Agedge_t*> edges(view.edges.size(), nullptr);
        for (size_t e = 0; e < view.edges.size(); ++e) {
            if (!r->routedByDot[e]) continue;
            std::string name = "e" + std::to_string(e);
            edges[e] = agedge(g, nodes[static_cast<size_t>(view.edges[e].producer)],
                              nodes[static_cast<size_t>(view.edges[e].consumer)], name.data(), 1);
        }
        if (gvLayout(gvc, g, "dot") != 0) {
            agclose(g);
            throw std::runtime_error("Graphviz dot could not lay out the view");
        }
        const boxf bb = GD_bb(g);
        const double top = bb.UR.y;  // Graphviz has y up; the scene has y down
        auto toScene = [top](pointf p) { return QPointF(p.x, top - p.y); };
        for (size_t i = 0; i < n; ++i) {
            const QPointF c = toScene(ND_coord(nodes[i]));
            const double w = view.items[i].width, h = view.items[i].height;
            r->itemRects[i] = QRectF(c.x() - w / 2, c.y() - h / 2, w, h);
        }
        for (size_t e = 0; e < view.edges.size(); ++e) {
            Agedge_t* ge = edges[e];
            if (!ge || !ED_spl(ge) || ED_spl(ge)->size < 1) {
                r->routedByDot[e] = false;
                continue;
            }
            // Producer -> consumer; dot may have reversed an edge to break a cycle.
            const bezier& bz = ED_spl(ge)->list[0];
            auto& pts = r->edgePoints[e];
            for (int k = 0; k < bz.size; ++k) pts.push_back(toScene(bz.list[k]));
            r->arrowTips[e] = bz.eflag ? toScene(bz.ep) : pts.back();
        }
        gvFreeLayout(gvc, g);
        agclose(g);
    }
    r->layoutMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    for (size_t e = 0; e < view.edges.size(); ++e)
        if (!r->routedByDot[e])
            routeOurselves(r->itemRects[static_cast<size_t>(view.edges[e].producer)],
                           r->itemRects[static_cast<size_t>(view.edges[e].consumer)],
                           r->edgePoints[e], r->arrowTips[e]);
    QRectF bounds;
    for (const auto& rect : r->itemRects) bounds = bounds.united(rect);
    r->bounds = bounds.adjusted(-20, -20, 20, 20);
    r->view = std::move(view);
    return r;
}

}  // namespace tpg
