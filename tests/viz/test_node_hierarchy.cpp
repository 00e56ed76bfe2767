// The program as a hierarchy: every node in exactly one block, blocks and levels bounded, any
// node a few levels down; the grouped view draws every node or the box it is in, within its item
// budget; repeated layers share a structure; a long row of boxes wraps to the window.
#include <QTest>
#include <set>

#include "NodeHierarchy.h"
#include "SyntheticHloGraph.h"
#include "ViewGraph.h"
#include "WrappedLayout.h"
#include "synth/SyntheticDataset.h"

using namespace tpg;
using tpg::testing::makeHloGraph;

namespace {

ViewSpec groupsSpec(std::vector<int> open = {}) {
    ViewSpec s;
    s.mode = ViewMode::Groups;
    s.open = std::move(open);
    return s;
}

// Nodes drawn as nodes plus nodes inside boxes: every node exactly once.
int64_t coveredNodes(const ViewGraph& v) {
    int64_t n = 0;
    for (const ViewItem& it : v.items) n += it.kind == ViewItem::Kind::Group ? it.count : 1;
    return n;
}

}  // namespace

class TestNodeHierarchy : public QObject {
    Q_OBJECT
    TpuGraph m_big;  // one 45,000-node computation: no node_splits to lean on

private slots:
    void initTestCase() { m_big = makeHloGraph({45000, 1}); }

    void everyNodeInOneBoundedBlockAFewLevelsDown() {
        for (const TpuGraph* g : {&m_big}) {
            const NodeHierarchy h(*g);
            std::vector<int> seen(static_cast<size_t>(g->numNodes()), 0);
            size_t deepest = 0;
            for (int id = 0; id < h.size(); ++id) {
                const NodeGroup& grp = h.group(id);
                QVERIFY(grp.children.size() <= static_cast<size_t>(vizlimits::kMaxGroupChildren));
                if (!grp.isBlock()) continue;
                QVERIFY(grp.size() <= vizlimits::kMaxBlockNodes);
                for (int64_t n = grp.first; n < grp.end; ++n) ++seen[static_cast<size_t>(n)];
            }
            QVERIFY(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
            for (int32_t node : {0, 12345, 44999}) {
                const std::vector<int> path = h.pathTo(node);
                QCOMPARE(path.front(), NodeHierarchy::root());
                QCOMPARE(path.back(), h.blockOf(node));
                deepest = std::max(deepest, path.size());
                for (int id : path) QVERIFY(h.group(id).first <= node && node < h.group(id).end);
            }
            QVERIFY2(deepest <= 4, qPrintable(QString::number(deepest)));  // a few clicks
        }
    }

    void theViewDrawsEveryNodeOrItsBoxWithinItsBudget() {
        const NodeHierarchy h(m_big);
        const ViewGraph top = buildViewGraph(m_big, groupsSpec());
        QCOMPARE(coveredNodes(top), m_big.numNodes());
        QVERIFY(top.items.size() <= static_cast<size_t>(vizlimits::kMaxGroupChildren));
        // Opening the path to a node draws it.
        std::vector<int> path = h.pathTo(30000);
        path.erase(path.begin());
        const ViewGraph open = buildViewGraph(m_big, groupsSpec(path));
        QVERIFY(open.itemOf(30000) >= 0);
        QCOMPARE(coveredNodes(open), m_big.numNodes());
        QVERIFY(open.note.isEmpty());
        // Opening block after block stays within the budget: the oldest close, and the view says so.
        std::vector<int> many;
        for (int id = 1; id < h.size(); ++id) many.push_back(id);
        const ViewGraph capped = buildViewGraph(m_big, groupsSpec(many));
        QVERIFY(static_cast<int>(capped.items.size()) <= vizlimits::kMaxGroupViewItems);
        QCOMPARE(coveredNodes(capped), m_big.numNodes());
        QVERIFY(capped.note.contains(QStringLiteral("closed")));
        QVERIFY2(
            !capped.note.contains(QStringLiteral("(s)")) &&
                capped.note.contains(QRegularExpression(QStringLiteral(
                    "^(1 group opened earlier was|[0-9,]+ groups opened earlier were) closed"))),
            qPrintable(capped.note));
        QVERIFY(!capped.open.empty() && capped.open.back() == many.back());
    }

    void repeatedLayersShareAStructure() {
        const TpuGraph resnet =
            synth::makeLayoutGraph(synth::Recipe::ResNet, 7, 3000, 4, synth::LayoutSearch::Random, "r");
        const NodeHierarchy h(resnet);
        int repeated = 0, blocks = 0;
        for (int id = 0; id < h.size(); ++id)
            if (h.group(id).isBlock()) {
                ++blocks;
                repeated += h.group(id).alike > 1;
            }
        QVERIFY2(repeated > 0, qPrintable(QStringLiteral("%1 blocks").arg(blocks)));
        for (int id = 0; id < h.size(); ++id)
            if (h.group(id).isBlock() && h.group(id).alike > 1) {
                QVERIFY(h.describe(id).contains(QStringLiteral("alike")));
                break;
            }
    }

    void aLongRowOfBoxesWrapsToTheWindow() {
        const ViewGraph top = buildViewGraph(m_big, groupsSpec());
        QVERIFY(top.items.size() >= static_cast<size_t>(vizlimits::kMinWrappedGroups));
        for (double aspect : {1.6, 0.6}) {
            const auto r = layoutInRows(top, aspect);
            QCOMPARE(r->itemRects.size(), top.items.size());
            QCOMPARE(r->edgePoints.size(), top.edges.size());
            const double shape = r->bounds.width() / r->bounds.height();
            QVERIFY2(shape > aspect / 2.5 && shape < aspect * 2.5, qPrintable(QString::number(shape)));
            for (size_t i = 0; i + 1 < r->itemRects.size(); ++i)  // no two boxes overlap
                QVERIFY(!r->itemRects[i].intersects(r->itemRects[i + 1]));
        }
    }
};

QTEST_MAIN(TestNodeHierarchy)
#include "test_node_hierarchy.moc"
