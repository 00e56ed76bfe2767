#include <QTest>
#include <deque>
#include <set>

#include "GraphvizLayout.h"
#include "SyntheticHloGraph.h"
#include "ViewGraph.h"

using namespace tpg;
using tpg::testing::HloGraphSpec;
using tpg::testing::makeHloGraph;

namespace {

// A node with `users` consumers: 0 is a parameter read by nodes 1..users.
TpuGraph starGraph(int users) {
    TpuGraphData d;
    d.name = "star";
    d.collection = Collection::Tile;
    d.numNodes = users + 1;
    d.nodeFeatureWidth = 140;
    d.nodeFeatures.assign(static_cast<size_t>(d.numNodes * 140), 0.0f);
    d.opcodes.assign(static_cast<size_t>(d.numNodes), schema::opcodeId("add"));
    d.opcodes[0] = schema::opcodeId("parameter");
    for (int i = 1; i <= users; ++i) d.edges.push_back({i, 0});
    d.runtimes = {1.0};
    d.runtimeNormalizers = {1.0};
    d.configFeatureWidth = 24;
    d.tileConfigFeatures.assign(24, 1.0f);
    return TpuGraph(std::move(d));
}

int pathLength(const TpuGraph& g, int32_t from, int32_t to) {  // producer -> consumer hops
    std::vector<int> dist(static_cast<size_t>(g.numNodes()), -1);
    std::deque<int32_t> q{from};
    dist[static_cast<size_t>(from)] = 0;
    while (!q.empty()) {
        const int32_t n = q.front();
        q.pop_front();
        if (n == to) return dist[static_cast<size_t>(n)];
        for (int32_t c : g.consumers(n))
            if (dist[static_cast<size_t>(c)] < 0) {
                dist[static_cast<size_t>(c)] = dist[static_cast<size_t>(n)] + 1;
                q.push_back(c);
            }
    }
    return -1;
}

}  // namespace

class TestViewGraph : public QObject {
    Q_OBJECT
private slots:
    void smallGraphIsShownWhole() {
        const TpuGraph g = makeHloGraph({60, 2});
        const ViewSpec spec = defaultViewSpec(g);
        QCOMPARE(spec.mode, ViewMode::Whole);
        const ViewGraph v = buildViewGraph(g, spec);
        QCOMPARE(v.nodeCount(), g.numNodes());
        QCOMPARE(static_cast<int64_t>(v.edges.size()), g.numEdges());
        QVERIFY(!v.truncated);
        // Edges point producer -> consumer: the dataset's [u, v] is drawn v -> u.
        for (const ViewEdge& e : v.edges) {
            const int32_t p = v.items[static_cast<size_t>(e.producer)].node;
            const int32_t c = v.items[static_cast<size_t>(e.consumer)].node;
            const auto producers = g.producers(c);
            QVERIFY(std::find(producers.begin(), producers.end(), p) != producers.end());
        }
        QVERIFY(v.items[0].title.startsWith(QStringLiteral("#0 parameter")));
        QCOMPARE(v.items[0].subtitle, QStringLiteral("f32[8,56,56,64]{3,2,1,0}"));
    }

    // An export's file name says the view in words of bounded length: a program view's key lists
    // every group opened, so with a few hundred open it passed a file name's 255 bytes.
    void viewsNameTheirFiles() {
        ViewSpec program;
        program.mode = ViewMode::Groups;
        for (int id = 10000; id < 10300; ++id) program.open.push_back(id);
        QVERIFY(program.key().size() > 255);
        QCOMPARE(program.fileStem(), QStringLiteral("program"));
        QCOMPARE(program.describe(), QStringLiteral("Program (300 groups open)"));
        program.open.resize(1);
        QCOMPARE(program.describe(), QStringLiteral("Program (1 group open)"));
        ViewSpec hood;
        hood.mode = ViewMode::Neighbourhood;
        hood.center = 12;
        hood.hops = 2;
        QCOMPARE(hood.fileStem(), QStringLiteral("neighbourhood-of-node-12-2-hops"));
        ViewSpec computation;
        computation.mode = ViewMode::Computation;
        computation.computation = 3;
        QCOMPARE(computation.fileStem(), QStringLiteral("computation-3"));
        ViewSpec skeleton;
        skeleton.mode = ViewMode::Skeleton;
        QCOMPARE(skeleton.fileStem(), QStringLiteral("configurable-skeleton"));
        for (ViewMode mode : {ViewMode::Whole, ViewMode::Computations}) {
            ViewSpec spec;
            spec.mode = mode;
            QVERIFY(!spec.fileStem().isEmpty() && !spec.fileStem().contains(QLatin1Char(':')));
        }
    }

    void fanOutIsCapped() {
        const TpuGraph g = starGraph(40);
        const ViewGraph v = buildViewGraph(g, {});
        int fromHub = 0;
        const ViewItem* summary = nullptr;
        for (const ViewEdge& e : v.edges)
            if (e.producer == v.itemOf(0)) {
                ++fromHub;
                const ViewItem& c = v.items[static_cast<size_t>(e.consumer)];
                if (c.kind == ViewItem::Kind::MoreUsers) summary = &c;
            }
        QCOMPARE(fromHub, vizlimits::kMaxFanOut + 1);
        QVERIFY(summary);
        QCOMPARE(summary->count, int64_t{40 - vizlimits::kMaxFanOut});
        QCOMPARE(summary->title, QStringLiteral("+24 more users"));
    }

    void bigGraphOpensOnItsComputations() {
        const TpuGraph g = makeHloGraph({5000, 10});
        const ViewSpec spec = defaultViewSpec(g);
        QCOMPARE(spec.mode, ViewMode::Groups);
        const ViewGraph v = buildViewGraph(g, spec);
        QCOMPARE(static_cast<int>(v.items.size()), 10);
        int64_t total = 0;
        for (const ViewItem& it : v.items) {
            QCOMPARE(it.kind, ViewItem::Kind::Group);
            QVERIFY(it.title.startsWith(QStringLiteral("computation ")));
            total += it.count;
        }
        QCOMPARE(total, g.numNodes());
        QVERIFY(!v.edges.empty());  // computations chain through their results
    }

    void wholeViewOfABigGraphIsBounded() {
        const TpuGraph g = makeHloGraph({5000, 10});
        const ViewGraph v = buildViewGraph(g, {ViewMode::Whole});
        QCOMPARE(v.nodeCount(), int64_t{vizlimits::kMaxLayoutNodes});
        QVERIFY(v.truncated);
        QVERIFY(v.note.contains(QStringLiteral("5,000")));
    }

    void computationViewShowsItsNodesAndContext() {
        const TpuGraph g = makeHloGraph({5000, 10});
        ViewSpec spec;
        spec.mode = ViewMode::Computation;
        spec.computation = 3;
        const ViewGraph v = buildViewGraph(g, spec);
        int64_t inside = 0, context = 0;
        for (const ViewItem& it : v.items) {
            if (it.kind != ViewItem::Kind::Node) continue;
            if (g.computationOf(it.node) == 3) {
                QVERIFY(!it.context);
                ++inside;
            } else {
                QVERIFY(it.context);
                ++context;
            }
        }
        QCOMPARE(inside, int64_t{500});
        QVERIFY(context >= 1);
        spec.computation = 99;
        QVERIFY(buildViewGraph(g, spec).items.empty());
        QVERIFY(!buildViewGraph(g, spec).note.isEmpty());
    }

    void neighbourhoodOfOneHop() {
        const TpuGraph g = makeHloGraph({400, 4});
        ViewSpec spec;
        spec.mode = ViewMode::Neighbourhood;
        spec.center = 20;
        spec.hops = 1;
        const ViewGraph v = buildViewGraph(g, spec);
        std::set<int32_t> expected{20};
        for (int32_t p : g.producers(20)) expected.insert(p);
        for (int32_t c : g.consumers(20)) expected.insert(c);
        std::set<int32_t> got;
        for (const ViewItem& it : v.items)
            if (it.kind == ViewItem::Kind::Node) got.insert(it.node);
        QCOMPARE(got, expected);
        spec.center = 100000;
        QVERIFY(buildViewGraph(g, spec).items.empty());
    }

    void skeletonCollapsesPathsBetweenConfigurableNodes() {
        const TpuGraph g = makeHloGraph({2000, 4});
        const ViewGraph v = buildViewGraph(g, {ViewMode::Skeleton});
        QCOMPARE(v.nodeCount(), g.numConfigurable());
        QVERIFY(!v.edges.empty());
        for (const ViewEdge& e : v.edges) {
            const ViewItem& p = v.items[static_cast<size_t>(e.producer)];
            const ViewItem& c = v.items[static_cast<size_t>(e.consumer)];
            if (c.kind != ViewItem::Kind::Node) continue;
            QVERIFY(g.isConfigurable(p.node));
            QVERIFY(g.isConfigurable(c.node));
            QCOMPARE(pathLength(g, p.node, c.node), static_cast<int>(e.collapsedNodes) + 1);
        }
        const TpuGraph tile = makeHloGraph({50, 1, 3, 4, Collection::Tile});
        const ViewGraph t = buildViewGraph(tile, {ViewMode::Skeleton});
        QVERIFY(t.items.empty());
        QVERIFY(t.note.contains(QStringLiteral("Tile")));
    }

    void graphvizPlacesProducersAboveConsumers() {
        const TpuGraph g = makeHloGraph({120, 2});
        auto layout = layoutWithGraphviz(buildViewGraph(g, {}));
        QCOMPARE(layout->itemRects.size(), layout->view.items.size());
        int checked = 0;
        for (size_t e = 0; e < layout->view.edges.size(); ++e) {
            const ViewEdge& edge = layout->view.edges[e];
            const QRectF p = layout->itemRects[static_cast<size_t>(edge.producer)];
            const QRectF c = layout->itemRects[static_cast<size_t>(edge.consumer)];
            QVERIFY2(p.center().y() < c.center().y(), qPrintable(QStringLiteral("edge %1").arg(e)));
            QVERIFY(layout->edgePoints[e].size() >= 2);
            ++checked;
        }
        QVERIFY(checked > 100);
        QVERIFY(layout->bounds.contains(layout->itemRects.front()));
        // The .dot text holds every item and the dot-routed edges.
        const std::string dot = toDot(layout->view);
        QVERIFY(dot.find("n119") != std::string::npos);
    }

    void denseViewsStayWithinDotsEdgeBudget() {
        // A skeleton joins each configurable node to up to 16 others: thousands of edges.
        const TpuGraph g = makeHloGraph({5000, 10});
        const ViewGraph v = buildViewGraph(g, {ViewMode::Skeleton});
        QVERIFY(static_cast<int>(v.edges.size()) > vizlimits::kMaxDotEdges);
        const std::string dot = toDot(v);
        int routed = 0;
        for (size_t at = dot.find("->"); at != std::string::npos; at = dot.find("->", at + 2)) ++routed;
        QVERIFY(routed <= vizlimits::kMaxDotEdges);
        QVERIFY(routed >= static_cast<int>(v.nodeCount()) / 2);  // every producer keeps an edge
    }

    void longEdgesAreLeftOutOfDot() {
        // The shared weight of a computation is read by every block's dot: long edges.
        const TpuGraph g = makeHloGraph({600, 1});
        auto layout = layoutWithGraphviz(buildViewGraph(g, {}));
        const auto ours = std::count(layout->routedByDot.begin(), layout->routedByDot.end(), false);
        QVERIFY(ours > 0);
        for (size_t e = 0; e < layout->view.edges.size(); ++e)
            if (!layout->routedByDot[e]) QCOMPARE(layout->edgePoints[e].size(), size_t{4});
    }
};

QTEST_MAIN(TestViewGraph)
#include "test_view_graph.moc"
