#include <QAbstractButton>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <set>

#include "GraphItems.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "GraphvizLayout.h"
#include "JobRunner.h"
#include "SceneExport.h"
#include "SyntheticHloGraph.h"
#include "VizLimits.h"
#include "explain/CostExplanation.h"
#include "synth/SyntheticDataset.h"
#include "synth/TpuCostModel.h"

using namespace tpg;

// A laid-out scene in an 800 x 600 view on screen.
struct ShownScene {
    GraphScene scene;
    GraphView view;
    ShownScene(const TpuGraph& g, const std::shared_ptr<const LayoutResult>& layout) {
        scene.showLayout(g, layout);
        view.setScene(&scene);
        view.resize(800, 600);
        view.show();
    }
};

// The share of the drawing's area in view, 0..1.
static double visibleShare(const GraphView& view) {
    const QRectF drawing = view.scene()->sceneRect();
    const QRectF shown =
        view.mapToScene(view.viewport()->rect()).boundingRect().intersected(drawing);
    return shown.width() * shown.height() / (drawing.width() * drawing.height());
}

// Pixels of the labels' black text (boxes, edges and the background are lighter).
static int blackPixels(const QImage& image) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            n += c.red() < 40 && c.green() < 40 && c.blue() < 40 ? 1 : 0;
        }
    return n;
}

// `g`'s view of `spec` laid out as the application lays it out, on a JobRunner's worker thread
// (null when it does not finish).
static std::shared_ptr<const LayoutResult> layoutOnWorker(const TpuGraph& g, const ViewSpec& spec) {
    JobRunner runner(QStringLiteral("layout"));
    QSignalSpy finished(&runner, &JobRunner::finished);
    runner.submit(QStringLiteral("layout"), [g, spec](JobControl&) {
        return QVariant::fromValue(layoutWithGraphviz(buildViewGraph(g, spec)));
    });
    if (!finished.wait(30000)) return nullptr;
    auto layout = finished.at(0).at(1).value<std::shared_ptr<const LayoutResult>>();
    return layout && layout->layoutThread == runner.workerThreadId() ? layout : nullptr;
}

// `item` painted alone, about the image's centre, on `background`, scaled by `scale`.
static QImage paintedAlone(GraphNodeItem& item, QSize size, const QColor& background,
                           double scale) {
    QImage image(size, QImage::Format_ARGB32);
    image.fill(background);
    QPainter painter(&image);
    painter.translate(size.width() / 2.0, size.height() / 2.0);
    painter.scale(scale, scale);
    item.paint(&painter, nullptr, nullptr);
    painter.end();
    return image;
}

class TestGraphScene : public QObject {
    Q_OBJECT

    TpuGraph m_graph = testing::makeHloGraph({80, 2});
    std::shared_ptr<const LayoutResult> m_layout;

private slots:
    void initTestCase() {
        m_layout = layoutOnWorker(m_graph, {});
        QVERIFY(m_layout);
    }

    void buildsOneItemPerViewItemAndEdge() {
        GraphScene scene;
        scene.showLayout(m_graph, m_layout);
        QCOMPARE(scene.nodeItems().size(), m_layout->view.items.size());
        QCOMPARE(scene.edgeItems().size(), m_layout->view.edges.size());
        QVERIFY(scene.itemForNode(0));
        // Configurable nodes are flagged on their items.
        const int32_t c = m_graph.configurableNodes().front();
        QVERIFY(scene.itemForNode(c)->isConfigurable());
        QVERIFY(!scene.itemForNode(0)->isConfigurable());
    }

    void selectingHighlightsProducersAndConsumers() {
        GraphScene scene;
        scene.showLayout(m_graph, m_layout);
        QSignalSpy selected(&scene, &GraphScene::nodeSelected);
        const int32_t node = 8;
        QVERIFY(scene.selectNode(node));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(0).toInt(), node);
        auto asSet = [](const auto& v) { return std::set<int32_t>(v.begin(), v.end()); };
        QCOMPARE(asSet(scene.nodesWithRole(HighlightRole::Producer)),
                 asSet(m_graph.producers(node)));
        QCOMPARE(asSet(scene.nodesWithRole(HighlightRole::Consumer)),
                 asSet(m_graph.consumers(node)));
        QCOMPARE(scene.nodesWithRole(HighlightRole::Selected), QVector<int32_t>{node});
        int highlightedEdges = 0;
        for (auto* e : scene.edgeItems()) highlightedEdges += e->role() != HighlightRole::None;
        QCOMPARE(highlightedEdges,
                 static_cast<int>(m_graph.producers(node).size() + m_graph.consumers(node).size()));
        // Clicking the item selects it the same way.
        QVERIFY(scene.selectNode(-1));
        scene.itemForNode(3)->setSelected(true);
        QCOMPARE(scene.selectedNode(), 3);
        QVERIFY(!scene.selectNode(100000));
    }

    void searchByIdAndOpcode() {
        GraphScene scene;
        scene.showLayout(m_graph, m_layout);
        QCOMPARE(scene.findNodes(QStringLiteral("#5")), QVector<int32_t>{5});
        QCOMPARE(scene.findNodes(QStringLiteral("5")), QVector<int32_t>{5});
        const auto convs = scene.findNodes(QStringLiteral("CONVOLUTION"));
        QVERIFY(!convs.isEmpty());
        for (int32_t n : convs) QCOMPARE(m_graph.opcodeName(n), std::string("convolution"));
        QVERIFY(scene.findNodes(QStringLiteral("no-such-op")).isEmpty());
        scene.setSearchMatches(convs);
        QVERIFY(scene.itemForNode(convs.front())->isSearchMatch());
        QVERIFY(!scene.itemForNode(0)->isSearchMatch());
    }

    void marksSurviveARelayout() {
        GraphScene scene;
        scene.setMarkedNodes({{4, QStringLiteral("output {1,0}")}});
        scene.showLayout(m_graph, m_layout);
        QVERIFY(scene.itemForNode(4)->isMarked());
        scene.setMarkedNodes({});
        QVERIFY(!scene.itemForNode(4)->isMarked());
        // Zoomed out to Fit, a marked configurable node keeps the mark's colour (it used to take
        // the configurable colour, so the chosen configuration's marks vanished).
        const int32_t c = m_graph.configurableNodes().front();
        const QColor plain = scene.itemForNode(c)->farColor();
        scene.setMarkedNodes({{c, QStringLiteral("output {1,0}")}});
        QVERIFY(scene.itemForNode(c)->farColor() != plain);
    }

    // Nodes selected in What-if beside the chosen one are ringed in the selection's colour, near
    // and far, and keep their ring across a re-layout as marks do.
    void alsoSelectedNodesAreRinged() {
        GraphScene scene;
        scene.setAlsoSelected({4, 6});
        scene.showLayout(m_graph, m_layout);
        const QVector<int32_t> ringed = scene.alsoSelectedNodes();
        QCOMPARE(QSet<int32_t>(ringed.begin(), ringed.end()), QSet<int32_t>({4, 6}));
        QVERIFY(scene.itemForNode(4)->toolTip().contains(QStringLiteral("an edit goes to it too")));
        QVERIFY(!scene.itemForNode(5)->isAlsoSelected());
        QCOMPARE(scene.itemForNode(4)->farColor(), QColor(0x15, 0x65, 0xc0));  // zoomed out
        scene.setAlsoSelected({});
        QVERIFY(scene.alsoSelectedNodes().isEmpty());
        QVERIFY(
            !scene.itemForNode(4)->toolTip().contains(QStringLiteral("an edit goes to it too")));

        ViewItem node;
        node.kind = ViewItem::Kind::Node;
        node.node = 4;
        node.title = QStringLiteral("add");
        const auto ringPixel = [&](bool also) {
            GraphNodeItem item(node, 0, QRectF(0, 0, 160, 40), false);
            item.setAlsoSelected(also);
            const QImage image = paintedAlone(item, QSize(200, 80), Qt::white, 1.0);
            return QColor(image.pixel(17, 40));  // 3 px left of the box's edge at x 20
        };
        QCOMPARE(ringPixel(true), QColor(0x15, 0x65, 0xc0));
        QCOMPARE(ringPixel(false), QColor(Qt::white));
    }

    // Ctrl- or Shift-click on a node asks for it to join a selection kept elsewhere (What-if's),
    // and the selected node stays (Ctrl-click had selected it, as a plain click does).
    void ctrlClickTogglesANodeAndKeepsTheSelection() {
        ShownScene shown(m_graph, m_layout);
        QVERIFY(QTest::qWaitForWindowExposed(&shown.view));
        shown.view.actualSize();
        QVERIFY(shown.scene.selectNode(3));
        QSignalSpy toggled(&shown.scene, &GraphScene::nodeToggled);
        QSignalSpy selected(&shown.scene, &GraphScene::nodeSelected);
        const auto click = [&shown](int32_t node, Qt::KeyboardModifiers modifiers) {
            GraphNodeItem* item = shown.scene.itemForNode(node);
            shown.view.focusOn(item);
            QTest::mouseClick(shown.view.viewport(), Qt::LeftButton, modifiers,
                              shown.view.mapFromScene(item->sceneBoundingRect().center()));
        };
        click(5, Qt::ControlModifier);
        click(6, Qt::ShiftModifier);
        QCOMPARE(toggled.count(), 2);
        QCOMPARE(toggled.at(0).at(0).toInt(), 5);
        QCOMPARE(toggled.at(1).at(0).toInt(), 6);
        QCOMPARE(shown.scene.selectedNode(), 3);
        QCOMPARE(shown.scene.selectedItems().size(), 1);
        QCOMPARE(selected.count(), 0);
        click(5, Qt::NoModifier);  // a plain click selects, as before
        QCOMPARE(shown.scene.selectedNode(), 5);
        QCOMPARE(toggled.count(), 2);
    }

    // In a view of boxes (computations, or the program's closed groups) a box holding marked or
    // What-if-selected nodes carries their mark and ring: they had shown nowhere, though the
    // status said a chosen configuration's nodes were marked.
    void boxesCarryTheMarksAndSelectionInside() {
        int manyChecked = 0;  // views whose first box holds more marks than it lists
        for (const ViewMode mode : {ViewMode::Computations, ViewMode::Groups}) {
            ViewSpec spec;
            spec.mode = mode;
            const auto layout = layoutOnWorker(m_graph, spec);
            QVERIFY(layout);
            GraphScene scene;
            scene.showLayout(m_graph, layout);
            GraphNodeItem* box = nullptr;
            std::vector<int32_t> inside;  // configurable nodes in the first box holding several
            for (GraphNodeItem* item : scene.nodeItems()) {
                const ViewItem& v = item->viewItem();
                std::vector<int32_t> held;
                for (int32_t n : m_graph.configurableNodes())
                    if ((v.kind == ViewItem::Kind::Group && n >= v.first &&
                         n < v.first + v.count) ||
                        (v.kind == ViewItem::Kind::Computation &&
                         m_graph.computationOf(n) == v.computation))
                        held.push_back(n);
                if (!box && item->isGroupBox() && held.size() >= 2) {
                    box = item;
                    inside = held;
                }
            }
            QVERIFY2(box, qPrintable(spec.describe()));
            if (inside.size() > static_cast<size_t>(vizlimits::kMaxBoxMarksListed)) {
                // Many marked inside: the first few listed, the rest counted.
                QHash<int32_t, QString> many;
                for (int32_t n : inside) many.insert(n, QStringLiteral("config 3"));
                scene.setMarkedNodes(many);
                QStringList lines;
                for (int i = 0; i < vizlimits::kMaxBoxMarksListed; ++i)
                    lines << QStringLiteral("#%1 config 3").arg(inside[static_cast<size_t>(i)]);
                const QString listed =
                    QStringLiteral("\n%1 nodes inside marked:\n  %2\n  and %3 more")
                        .arg(inside.size())
                        .arg(lines.join(QStringLiteral("\n  ")))
                        .arg(inside.size() - static_cast<size_t>(vizlimits::kMaxBoxMarksListed));
                QVERIFY2(box->toolTip().endsWith(listed), qPrintable(box->toolTip()));
                ++manyChecked;
            }
            scene.setMarkedNodes({{inside[1], QStringLiteral("config 3: output {1,0}")},
                                  {inside[0], QStringLiteral("config 3: output {0,1}")}});
            QVERIFY(box->isMarked());
            QVERIFY2(
                box->toolTip().contains(QStringLiteral("\n2 nodes inside marked:\n  #%1 config 3: "
                                                       "output {0,1}\n  #%2 config 3: output {1,0}")
                                            .arg(inside[0])
                                            .arg(inside[1])),
                qPrintable(box->toolTip()));
            QVERIFY(!box->isAlsoSelected());
            scene.setAlsoSelected({inside[0]});
            QVERIFY(box->isAlsoSelected());
            QVERIFY(scene.alsoSelectedNodes().isEmpty());  // drawn as nodes: none (a box gave -1)
            QVERIFY(box->toolTip().contains(QStringLiteral("1 node inside selected in What-if")));
            scene.setMarkedNodes({});
            scene.setAlsoSelected({});
            QVERIFY(!box->isMarked() && !box->isAlsoSelected());
        }
        QVERIFY(manyChecked > 0);
    }

    // The cost overlay colours nodes (and a collapsed computation by its members' sum) on a heat
    // scale up to the costliest item drawn; op-category colours come back when it is off.
    void costOverlayColoursNodesAndComputations() {
        ConfigOverlay overlay;
        const auto n = static_cast<size_t>(m_graph.numNodes());
        overlay.totalNs.resize(n);
        overlay.paddingNs.assign(n, 0);
        overlay.layoutNs.assign(n, 0);
        overlay.copiesNs.assign(n, 0);
        for (size_t i = 0; i < n; ++i) overlay.totalNs[i] = static_cast<double>(i);
        GraphScene scene;
        scene.setConfigOverlay(overlay);
        scene.setCostMeasure(CostMeasure::Total);
        scene.showLayout(m_graph, m_layout);  // kept across a (re)layout
        int32_t top = -1;
        for (GraphNodeItem* item : scene.nodeItems()) top = std::max(top, item->node());
        QCOMPARE(scene.costScaleNs(), static_cast<double>(top));
        QCOMPARE(scene.itemForNode(top)->fillColor(), heatColor(1.0));
        QCOMPARE(scene.itemForNode(0)->fillColor(), heatColor(0.0));
        scene.setCostMeasure(CostMeasure::Padding);  // all zero: all white
        QCOMPARE(scene.itemForNode(top)->fillColor(), heatColor(0.0));

        ViewSpec spec;
        spec.mode = ViewMode::Computations;
        const auto computationsView = layoutOnWorker(m_graph, spec);
        QVERIFY(computationsView);
        scene.setCostMeasure(CostMeasure::Total);
        scene.showLayout(m_graph, computationsView);
        double sum = 0;  // the last computation holds the highest ids: the largest sum
        const int last = m_graph.computationOf(m_graph.numNodes() - 1);
        for (int64_t i = 0; i < m_graph.numNodes(); ++i)
            if (m_graph.computationOf(i) == last) sum += static_cast<double>(i);
        QCOMPARE(scene.costScaleNs(), sum);
        bool red = false;
        for (GraphNodeItem* item : scene.nodeItems())
            red = red || (item->viewItem().computation == last && item->fillColor() == heatColor(1.0));
        QVERIFY(red);
        scene.setCostMeasure(CostMeasure::None);
        for (GraphNodeItem* item : scene.nodeItems())
            QVERIFY(item->fillColor() != heatColor(1.0));
    }

    // Two copies into one node had their labels drawn over each other (a 45,000-node file's #8
    // convolution: "copy 863 ns …" across "copy 90.43 us …"), and then behind the box they feed.
    // Each label now clears the others, a few lines at most from its edge's midpoint, on top.
    void copyLabelsDoNotOverlap() {
        GraphScene scene;
        scene.showLayout(m_graph, m_layout);
        QHash<int32_t, int> operands;
        const auto nodeOf = [&scene](int viewItem) {
            return scene.nodeItems()[static_cast<size_t>(viewItem)]->node();
        };
        for (const GraphEdgeItem* edge : scene.edgeItems())
            ++operands[nodeOf(edge->viewEdge().consumer)];
        ConfigOverlay overlay;
        for (const GraphEdgeItem* edge : scene.edgeItems()) {
            const int32_t producer = nodeOf(edge->viewEdge().producer),
                          consumer = nodeOf(edge->viewEdge().consumer);
            if (producer < 0 || consumer < 0 || operands.value(consumer) < 2) continue;
            CopyNote note;
            note.ns = 90430;
            note.share = 0.5;
            note.label = QStringLiteral("copy 90.43 us {3,2,1,0}→{1,0,3,2} (transpose)");
            overlay.copies.insert({producer, consumer}, note);
        }
        QVERIFY2(overlay.copies.size() >= 4, qPrintable(QString::number(overlay.copies.size())));
        scene.setConfigOverlay(overlay);
        std::vector<const GraphEdgeItem*> labelled;
        for (const GraphEdgeItem* edge : scene.edgeItems())
            if (edge->isCopy()) labelled.push_back(edge);
        QCOMPARE(labelled.size(), static_cast<size_t>(overlay.copies.size()));
        const auto onANode = [&scene](const QRectF& r) {
            for (const GraphNodeItem* node : scene.nodeItems())
                if (node->sceneBoundingRect().intersects(r)) return true;
            return false;
        };
        int onNodes = 0, onNodesAtFirst = 0;
        for (size_t a = 0; a < labelled.size(); ++a) {
            const QRectF r = labelled[a]->copyLabelRect();
            QVERIFY(!r.isEmpty());
            QVERIFY(labelled[a]->boundingRect().contains(labelled[a]->mapRectFromScene(r)));
            QVERIFY(std::abs(labelled[a]->copyLabelShift()) <=
                    vizlimits::kCopyLabelMaxShifts * r.height() + 1e-6);
            for (size_t b = a + 1; b < labelled.size(); ++b)
                QVERIFY2(!r.intersects(labelled[b]->copyLabelRect()),
                         qPrintable(QStringLiteral("labels %1 and %2 overlap").arg(a).arg(b)));
            onNodes += onANode(r) ? 1 : 0;
            onNodesAtFirst += onANode(r.translated(0, -labelled[a]->copyLabelShift())) ? 1 : 0;
        }
        // A label on a box is drawn above it (it had been hidden behind the box it feeds).
        for (const GraphEdgeItem* edge : labelled)
            for (const GraphNodeItem* node : scene.nodeItems())
                QVERIFY(edge->zValue() > node->zValue());
        // Moved labels find room off the boxes where there is any.
        QVERIFY2(
            onNodes <= onNodesAtFirst,
            qPrintable(
                QStringLiteral("%1 labels on boxes, %2 before").arg(onNodes).arg(onNodesAtFirst)));
        // Without the overlay the edges go back under the boxes.
        scene.setConfigOverlay({});
        for (const GraphEdgeItem* edge : scene.edgeItems()) {
            QVERIFY(!edge->isCopy());
            QVERIFY(edge->zValue() < 2);
        }
    }

    // A count ("×3") or collapsed-path label sits beside its edge's midpoint without the line
    // through it: drawn at the midpoint plus (4, 4), a horizontal edge struck its count out.
    void countLabelsClearTheirEdge() {
        ViewEdge merged;
        merged.count = 3;
        ViewEdge collapsed;
        collapsed.collapsedNodes = 12;
        const QPointF start(100, 100);
        for (const QPointF& end : {QPointF(10, 100), QPointF(200, 100), QPointF(100, 220),
                                   QPointF(160, 40), QPointF(130, 200), QPointF(220, 150)}) {
            for (const ViewEdge& edge : {merged, collapsed}) {
                const GraphEdgeItem item(edge, 0, {start, end}, end, true);
                const QRectF label = item.countLabelRect();
                QPainterPath line(start);
                line.lineTo(end);
                const QPointF mid = (start + end) / 2;
                const auto where = QStringLiteral("edge to (%1, %2): label at (%3, %4) %5 x %6")
                                       .arg(end.x())
                                       .arg(end.y())
                                       .arg(label.x())
                                       .arg(label.y())
                                       .arg(label.width())
                                       .arg(label.height());
                QVERIFY2(label.width() > 5 && label.height() > 5, qPrintable(where));
                QVERIFY2(!line.intersects(label), qPrintable(where));
                const QPointF gap = label.center() - mid;
                QVERIFY2(std::hypot(gap.x(), gap.y()) < label.width() + label.height(),
                         qPrintable(where));
                QVERIFY2(item.boundingRect().contains(label), qPrintable(where));
            }
        }
        const GraphEdgeItem plain(ViewEdge{}, 0, {start, QPointF(200, 100)}, QPointF(200, 100),
                                  true);
        QVERIFY(plain.countLabelRect().isEmpty());
    }

    // The graph's colour measures use the words Explain's breakdown uses (the menu offered a
    // "layout penalty" that Explain, the lesson and the command line call "layout preference").
    void costMeasuresAreNamedAsExplainNamesThem() {
        const TpuGraph g = synth::makeLayoutGraph(synth::Recipe::ResNet, 3, 300, 4,
                                                  synth::LayoutSearch::Random, "r");
        std::set<QString> explained;
        for (const auto& c : explain::summarize(g, synth::TpuCostModel(g).explain(0)).categories)
            explained.insert(QString::fromStdString(c.name));
        for (CostMeasure m : {CostMeasure::Padding, CostMeasure::Layout, CostMeasure::Copies})
            QVERIFY2(explained.count(costMeasureName(m)), qPrintable(costMeasureName(m)));
    }

    // Labels stay readable on any heat colour: black on the scale's deep red end (a costly
    // block's "38 nodes · 3 configurable") was close to unreadable, so dark fills take light text.
    void labelsContrastWithTheirHeatColour() {
        ViewItem box;
        box.kind = ViewItem::Kind::Group;
        box.title = QStringLiteral("block 7");
        box.subtitle = QStringLiteral("38 nodes · 3 configurable");
        const QRectF rect(0, 0, 180, 40);
        const auto textPixels = [&](double heat, bool light) {
            GraphNodeItem item(box, 0, rect, false);
            item.setHeatColor(heatColor(heat));
            const QImage image = paintedAlone(item, QSize(360, 80), Qt::transparent, 2.0);
            const int fill = heatColor(heat).lightness();
            int count = 0;
            for (int y = 10; y < 70; ++y)
                for (int x = 20; x < 340; ++x) {
                    const int l = QColor(image.pixel(x, y)).lightness();
                    count += light ? l > fill + 100 : l < fill - 100;
                }
            return count;
        };
        QVERIFY2(textPixels(1.0, true) > 100, qPrintable(QString::number(textPixels(1.0, true))));
        QVERIFY2(textPixels(0.2, false) > 100, qPrintable(QString::number(textPixels(0.2, false))));
    }

    // Counts of one read in the singular: "1 ops", "1 users not drawn" were written.
    void oneOfAThingIsSingular() {
        ViewEdge path;
        path.collapsedNodes = 1;
        const GraphEdgeItem edge(path, 0, {QPointF(0, 0), QPointF(0, 100)}, QPointF(0, 100), true);
        QCOMPARE(edge.toolTip(), QStringLiteral("path through 1 op"));
        ViewItem node;
        node.title = QStringLiteral("#5 add");
        node.hiddenUsers = 1;
        node.hiddenOperands = 1;
        const GraphNodeItem item(node, 0, QRectF(0, 0, 100, 30), false);
        QVERIFY2(item.toolTip().contains(QStringLiteral("\n1 operand not drawn\n1 user not drawn")),
                 qPrintable(item.toolTip()));
    }

    void viewZoomsAndFits() {
        ShownScene shown(m_graph, m_layout);
        GraphView& view = shown.view;
        const GraphScene& scene = shown.scene;
        view.actualSize();
        QCOMPARE(view.zoom(), 1.0);
        view.zoomBy(2.0);
        QCOMPARE(view.zoom(), 2.0);
        view.zoomIn();  // one step, as the toolbar's "+" and View › Zoom In
        QCOMPARE(view.zoom(), 2.0 * vizlimits::kZoomStep);
        view.zoomOut();
        QCOMPARE(view.zoom(), 2.0);
        view.fitAll();
        QVERIFY(view.zoom() <= 1.0);
        const QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect();
        QVERIFY(visible.adjusted(-2, -2, 2, 2).contains(scene.sceneRect()) ||
                visible.width() >= scene.sceneRect().width() - 2);
        view.setZoom(1000);
        QCOMPARE(view.zoom(), vizlimits::kMaxZoom);
    }

    // A zoom of exactly a threshold is drawn as that level of detail wherever the view is
    // scrolled: Qt's own figure under the offset of a 20-node kernel's view fell a hair below.
    void levelOfDetailIsTheZoomAtAnyScrollOffset() {
        for (const double zoom : {vizlimits::kLabelMinScale, vizlimits::kDetailMinScale})
            for (int i = 0; i < 400; ++i) {  // item positions and scroll offsets across a drawing
                QTransform t = QTransform::fromScale(zoom, zoom);
                t *= QTransform::fromTranslate(-0.37 * i * i, 3.1 * i - 500);
                QCOMPARE(levelOfDetail(t), zoom);
            }
    }

    // A drawing that fits just below the label scale opens at that scale (a short scroll, labels
    // drawn); one far below it opens fitted, and Fit always shows it whole.
    void viewOpensNearlyFittingDrawingsReadable() {
        ShownScene shown(m_graph, m_layout);
        GraphView& view = shown.view;
        const QSizeF drawing = shown.scene.sceneRect().size();
        const double nearly = vizlimits::kLabelMinScale * 0.85;
        view.resize((drawing * nearly).toSize() + QSize(2, 2) * view.frameWidth());
        view.fitAll();
        QVERIFY(view.zoom() < vizlimits::kLabelMinScale);
        view.fitReadable();
        QCOMPARE(view.zoom(), vizlimits::kLabelMinScale);
        // And the labels are drawn at that zoom: the painter's level of detail, a square root of
        // the transform, had come out a hair below the threshold.
        QVERIFY2(blackPixels(view.viewport()->grab().toImage()) > 100,
                 qPrintable(QString::number(blackPixels(view.viewport()->grab().toImage()))));
        // Centred across and from the top, where the program starts: centred both ways, the
        // first row of a program's blocks opened cut in half.
        const QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect();
        QVERIFY(qAbs(visible.center().x() - shown.scene.sceneRect().center().x()) < 2);
        QVERIFY2(qAbs(visible.top() - shown.scene.sceneRect().top()) < 2,
                 qPrintable(QStringLiteral("view from %1, drawing from %2")
                                .arg(visible.top())
                                .arg(shown.scene.sceneRect().top())));
        const double far = vizlimits::kLabelMinScale * vizlimits::kReadableFitMinShare * 0.8;
        view.resize((drawing * far).toSize() + QSize(2, 2) * view.frameWidth());
        view.fitAll();
        const double fitted = view.zoom();
        view.fitReadable();
        QCOMPARE(view.zoom(), fitted);
    }

    // A drawing that is a long strip in its view (a chain's configurable skeleton) opens filling
    // the view across, from its start: fitted whole it was a hairline down the middle, every
    // label illegible. A wide strip likewise, from its left end.
    void aStripOpensAcrossTheViewFromItsStart() {
        ShownScene shown(m_graph, m_layout);
        GraphView& view = shown.view;
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QRectF drawing = shown.scene.sceneRect();
        // A view much wider than the drawing and short: the drawing fitted is a narrow column.
        const double columnZoom = 0.1;
        view.resize(QSize(static_cast<int>(drawing.width() * columnZoom * 8),
                          static_cast<int>(drawing.height() * columnZoom)) +
                    QSize(2, 2) * view.frameWidth());
        view.fitAll();
        QVERIFY(view.zoom() < vizlimits::kLabelMinScale);
        QVERIFY(drawing.width() * view.zoom() <
                vizlimits::kStripMaxShare * view.viewport()->width());
        view.fitReadable();
        const double across = std::min(1.0, view.viewport()->width() / drawing.width());
        QVERIFY2(std::abs(view.zoom() - across) < 1e-6,
                 qPrintable(QStringLiteral("%1 against %2").arg(view.zoom()).arg(across)));
        QRectF visible = view.mapToScene(view.viewport()->rect()).boundingRect();
        QVERIFY2(std::abs(visible.top() - drawing.top()) < 2,
                 qPrintable(QStringLiteral("top %1 of %2").arg(visible.top()).arg(drawing.top())));
        // Wide and short: from the left end, filling the view's height.
        view.resize(QSize(static_cast<int>(drawing.width() * columnZoom),
                          static_cast<int>(drawing.height() * columnZoom * 8)) +
                    QSize(2, 2) * view.frameWidth());
        view.fitReadable();
        const double down = std::min(1.0, view.viewport()->height() / drawing.height());
        QVERIFY2(std::abs(view.zoom() - down) < 1e-6,
                 qPrintable(QStringLiteral("%1 against %2").arg(view.zoom()).arg(down)));
        visible = view.mapToScene(view.viewport()->rect()).boundingRect();
        QVERIFY2(
            std::abs(visible.left() - drawing.left()) < 2,
            qPrintable(QStringLiteral("left %1 of %2").arg(visible.left()).arg(drawing.left())));
        // Fit still shows it all.
        view.fitAll();
        QVERIFY(view.zoom() < down);
        // A strip wider than the view even at the label scale (a meandering chain: the whole
        // graph of transformer_003) opens at the label scale, where its first nodes are, not as
        // specks across the view.
        view.resize(QSize(static_cast<int>(drawing.width() * 0.3),
                          static_cast<int>(drawing.height() * 0.3 / 8)) +
                    QSize(2, 2) * view.frameWidth());
        view.fitReadable();
        QCOMPARE(view.zoom(), vizlimits::kLabelMinScale);
        visible = view.mapToScene(view.viewport()->rect()).boundingRect();
        QVERIFY(std::abs(visible.top() - drawing.top()) < 2);
        const GraphNodeItem* first = nullptr;
        for (const GraphNodeItem* item : shown.scene.nodeItems())
            if (!first || item->sceneBoundingRect().top() < first->sceneBoundingRect().top())
                first = item;
        QVERIFY(first != nullptr);
        QVERIFY2(visible.contains(first->sceneBoundingRect().center()),
                 qPrintable(QStringLiteral("first node at %1, %2")
                                .arg(first->sceneBoundingRect().center().x())
                                .arg(first->sceneBoundingRect().center().y())));
    }

    // The overview: only while part of the drawing is out of view, open of itself only while most
    // of it is, semi-transparent, collapsible.
    void miniMapOnlyWhenUsefulAndCollapsible() {
        ShownScene shown(m_graph, m_layout);
        GraphView& view = shown.view;
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.fitAll();
        QVERIFY(!view.miniMap()->isVisible());  // everything is in view
        QVERIFY(!view.miniMapToggle()->isVisible());
        const double fitted = view.zoom();
        view.setZoom(fitted *
                     1.2);  // a little out of view: its button, not the overview over nodes
        QVERIFY(visibleShare(view) >= 0.5 && visibleShare(view) < 1.0);
        QVERIFY(!view.miniMap()->isVisible());
        QVERIFY(view.miniMapToggle()->isVisible());
        view.setZoom(vizlimits::kMaxZoom);
        QVERIFY(visibleShare(view) < 0.5);
        QVERIFY(view.miniMap()->isVisible());
        QVERIFY(view.miniMap()->graphicsEffect() != nullptr);
        view.setMiniMapCollapsed(true);
        QVERIFY(!view.miniMap()->isVisible());
        QVERIFY(view.miniMapToggle()->isVisible());  // a button brings it back
        QTest::mouseClick(static_cast<QAbstractButton*>(view.miniMapToggle()), Qt::LeftButton);
        QVERIFY(view.miniMap()->isVisible());
        view.setZoom(fitted * 1.2);  // the user opened it: it stays open
        QVERIFY(view.miniMap()->isVisible());
        view.setZoom(vizlimits::kMaxZoom);
        // In a short view it shrinks, keeping its shape, so the drawing stays mostly in sight.
        const QSize full = view.miniMap()->size();
        const QSize tall = view.size();
        view.resize(tall.width(), 260);
        QVERIFY(view.miniMap()->height() <= 0.3 * view.viewport()->height() + 1);
        QVERIFY(view.miniMap()->height() < full.height());
        QVERIFY(std::abs(view.miniMap()->width() * full.height() -
                         view.miniMap()->height() * full.width()) <= full.width() + full.height());
        QVERIFY(view.viewport()->rect().contains(
            view.miniMap()->geometry().translated(-view.viewport()->pos())));
        view.resize(tall);
        QCOMPARE(view.miniMap()->size(), full);
        view.setMiniMapVisible(false);  // View › Mini-map off
        QVERIFY(!view.miniMap()->isVisible() && !view.miniMapToggle()->isVisible());
    }

    // A label is elided only when it is longer than the widest box: every box of the sample view
    // narrower than that fits its title and shape in the fonts the items draw with.
    void labelsFitTheirBoxes() {
        QFont title;
        title.setPointSizeF(8.5);
        title.setBold(true);
        QFont shape(QStringLiteral("monospace"));
        shape.setStyleHint(QFont::TypeWriter);
        shape.setPointSizeF(7.5);
        const QFontMetricsF tm(title), sm(shape);
        int checked = 0;
        for (size_t i = 0; i < m_layout->view.items.size(); ++i) {
            const ViewItem& it = m_layout->view.items[i];
            if (it.kind != ViewItem::Kind::Node || it.width >= 320) continue;
            const double room = m_layout->itemRects[i].width() - 12;  // the item's text margins
            QVERIFY2(tm.horizontalAdvance(it.title) <= room && sm.horizontalAdvance(it.subtitle) <= room,
                     qPrintable(it.title + QStringLiteral(" / ") + it.subtitle));
            ++checked;
        }
        QVERIFY(checked > 10);
    }

    void exportsSvgAndPng() {
        GraphScene scene;
        scene.showLayout(m_graph, m_layout);
        QTemporaryDir dir;
        const QString svg = dir.filePath(QStringLiteral("view.svg"));
        const QString png = dir.filePath(QStringLiteral("view.png"));
        ExportPage page;
        page.title = QStringLiteral("test");
        QCOMPARE(exportSceneSvg(&scene, svg, page), QString());
        QCOMPARE(exportScenePng(&scene, png, page), QString());
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("convolution"));  // labels are text, not pixels
        QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() > 100);
        // Each written whole through a temporary file that takes its place: none is left.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), (QStringList{"view.png", "view.svg"}));
        QVERIFY(!exportSceneSvg(&scene, QStringLiteral("/nonexistent/dir/x.svg"), page).isEmpty());
        GraphScene empty;
        QVERIFY(exportScenePng(&empty, png, page).contains(QStringLiteral("nothing")));
    }
};

QTEST_MAIN(TestGraphScene)
#include "test_graph_scene.moc"
