#include "GraphScene.h"

#include <QGraphicsSceneMouseEvent>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <numeric>
#include <utility>

#include "CountText.h"
#include "OpCategory.h"
#include "VizLimits.h"

namespace tpg {
namespace {

// `listed`: the first of a box's `count` marks.
QString boxMarkList(QStringList listed, int64_t count) {
    if (count > listed.size()) listed << QStringLiteral("and %1 more").arg(count - listed.size());
    return listed.join(QStringLiteral("\n  "));  // one per line: a tooltip must not run wide
}

}  // namespace

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) {
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    setBackgroundBrush(QColor(0xfc, 0xfc, 0xfc));
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
}

GraphScene::~GraphScene() {
    // Deleting selected items emits selectionChanged: ignore it, the members are going away.
    m_selecting = true;
    clear();
}

void GraphScene::clearView() {
    m_selecting = true;
    clear();
    m_selecting = false;
    m_items.clear();
    m_edges.clear();
    m_layout.reset();
    m_graph = TpuGraph();
    const bool hadSelection = m_selected >= 0;
    m_selected = -1;
    if (hadSelection) emit nodeSelected(-1);
}

void GraphScene::showLayout(const TpuGraph& graph, std::shared_ptr<const LayoutResult> layout) {
    const int32_t previous = m_selected;
    m_selecting = true;
    clear();
    m_selecting = false;
    m_items.clear();
    m_edges.clear();
    m_selected = -1;
    m_graph = graph;
    m_layout = std::move(layout);
    const LayoutResult& r = *m_layout;
    const ViewGraph& v = r.view;
    m_items.reserve(v.items.size());
    for (size_t i = 0; i < v.items.size(); ++i) {
        const ViewItem& vi = v.items[i];
        const bool configurable =
            vi.kind == ViewItem::Kind::Node && graph.isLayout() && graph.isConfigurable(vi.node);
        auto* item = new GraphNodeItem(vi, static_cast<int>(i), r.itemRects[i], configurable);
        if (vi.kind == ViewItem::Kind::Node)
            item->setFillColor(opCategoryColor(opCategory(graph.opcode(vi.node))));
        addItem(item);
        m_items.push_back(item);
    }
    m_edges.reserve(v.edges.size());
    for (size_t e = 0; e < v.edges.size(); ++e) {
        auto* item = new GraphEdgeItem(v.edges[e], static_cast<int>(e), r.edgePoints[e],
                                       r.arrowTips[e], r.routedByDot[e]);
        addItem(item);
        m_edges.push_back(item);
    }
    setSceneRect(r.bounds);
    applyMarks();
    applyOverlay(true);
    applyColours();
    if (previous >= 0 && !selectNode(previous)) emit nodeSelected(-1);
}

GraphNodeItem* GraphScene::itemForNode(int32_t node) const {
    if (!m_layout) return nullptr;
    const int i = m_layout->view.itemOf(node);
    return i < 0 ? nullptr : m_items[static_cast<size_t>(i)];
}

bool GraphScene::selectNode(int32_t node) {
    GraphNodeItem* item = node >= 0 ? itemForNode(node) : nullptr;
    if (node >= 0 && !item) return false;
    m_selecting = true;
    clearSelection();
    if (item) item->setSelected(true);
    m_selecting = false;
    const bool changed = m_selected != node;
    m_selected = node;
    applyHighlight();
    if (changed) emit nodeSelected(node);
    return true;
}

void GraphScene::onSelectionChanged() {
    if (m_selecting) return;
    const auto selected = selectedItems();
    int32_t node = -1;
    for (QGraphicsItem* i : selected)
        if (auto* n = qgraphicsitem_cast<GraphNodeItem*>(i); n && n->node() >= 0) node = n->node();
    if (node == m_selected) return;
    m_selected = node;
    applyHighlight();
    emit nodeSelected(node);
}

void GraphScene::applyHighlight() {
    if (!m_layout) return;
    QSet<int32_t> producers, consumers;
    if (m_selected >= 0) {
        for (int32_t p : m_graph.producers(m_selected)) producers.insert(p);
        for (int32_t c : m_graph.consumers(m_selected)) consumers.insert(c);
    }
    const int selectedItem = m_selected >= 0 ? m_layout->view.itemOf(m_selected) : -1;
    for (GraphNodeItem* item : m_items) {
        const int32_t n = item->node();
        HighlightRole role = HighlightRole::None;
        if (item->index() == selectedItem)
            role = HighlightRole::Selected;
        else if (n >= 0 && producers.contains(n))
            role = HighlightRole::Producer;
        else if (n >= 0 && consumers.contains(n))
            role = HighlightRole::Consumer;
        else if (n < 0 && item->viewItem().node == m_selected && m_selected >= 0)
            role = item->viewItem().kind == ViewItem::Kind::MoreOperands ? HighlightRole::Producer
                                                                         : HighlightRole::Consumer;
        item->setRole(role);
    }
    for (GraphEdgeItem* edge : m_edges) {
        HighlightRole role = HighlightRole::None;
        if (selectedItem >= 0) {
            if (edge->viewEdge().consumer == selectedItem)
                role = HighlightRole::Producer;
            else if (edge->viewEdge().producer == selectedItem)
                role = HighlightRole::Consumer;
        }
        edge->setRole(role);
    }
}

QVector<int32_t> GraphScene::nodesWithRole(HighlightRole role) const {
    QVector<int32_t> out;
    for (GraphNodeItem* item : m_items)
        if (item->node() >= 0 && item->role() == role) out.push_back(item->node());
    return out;
}

void GraphScene::setAlsoSelected(const QVector<int32_t>& nodes) {
    m_alsoSelected = nodes;
    applyMarks();
}

QVector<int32_t> GraphScene::alsoSelectedNodes() const {
    QVector<int32_t> drawn;
    for (const GraphNodeItem* item : m_items)
        if (item->isAlsoSelected() && item->node() >= 0) drawn.push_back(item->node());
    return drawn;
}

void GraphScene::setMarkedNodes(const QHash<int32_t, QString>& marks) {
    m_marks = marks;
    applyMarks();
}

namespace {

// The drawn item of a node, else the closed box holding it: found by binary search over the
// group boxes (node ranges, disjoint) and by computation, so marking thousands of nodes stays fast.
class ItemShowing {
public:
    ItemShowing(const TpuGraph& graph, const std::vector<GraphNodeItem*>& items,
                const LayoutResult* layout)
        : m_graph(graph), m_items(items), m_layout(layout) {
        for (GraphNodeItem* item : items) {
            const ViewItem& v = item->viewItem();
            if (v.kind == ViewItem::Kind::Group) m_groups.emplace_back(v.first, item);
            if (v.kind == ViewItem::Kind::Computation) m_computations.insert(v.computation, item);
        }
        std::sort(m_groups.begin(), m_groups.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    GraphNodeItem* operator()(int32_t node) const {
        if (!m_layout) return nullptr;
        if (const int i = m_layout->view.itemOf(node); i >= 0)
            return m_items[static_cast<size_t>(i)];
        auto it = std::upper_bound(m_groups.begin(), m_groups.end(), int64_t{node},
                                   [](int64_t n, const auto& g) { return n < g.first; });
        if (it != m_groups.begin()) {
            GraphNodeItem* box = std::prev(it)->second;
            if (node < box->viewItem().first + box->viewItem().count) return box;
        }
        return m_computations.value(m_graph.computationOf(node), nullptr);
    }

private:
    const TpuGraph& m_graph;
    const std::vector<GraphNodeItem*>& m_items;
    const LayoutResult* m_layout;
    std::vector<std::pair<int64_t, GraphNodeItem*>> m_groups;
    QHash<int, GraphNodeItem*> m_computations;
};

}  // namespace

// Marks and What-if's other selected nodes go on each node's item, or on the closed box that
// holds it: the program view draws most nodes inside boxes, where they had shown nothing.
void GraphScene::applyMarks() {
    const ItemShowing itemShowing(m_graph, m_items, m_layout.get());
    // A box lists its first marked nodes and counts the rest: formatting all 2,594 of a
    // configuration's marks for boxes that show a few took most of this.
    struct ItemMarks {
        int64_t count = 0;
        QStringList listed;
    };
    QHash<GraphNodeItem*, ItemMarks> marks;
    QList<int32_t> marked = m_marks.keys();
    std::sort(marked.begin(), marked.end());
    for (int32_t node : marked) {
        GraphNodeItem* item = itemShowing(node);
        if (item == nullptr) continue;
        ItemMarks& m = marks[item];
        ++m.count;
        if (!item->isGroupBox())
            m.listed << m_marks.value(node);
        else if (m.listed.size() < vizlimits::kMaxBoxMarksListed)
            m.listed << QStringLiteral("#%1 %2").arg(node).arg(m_marks.value(node));
    }
    QHash<GraphNodeItem*, int64_t> also;
    m_alsoShown = {};
    for (int32_t node : m_alsoSelected) {
        GraphNodeItem* item = itemShowing(node);
        if (item == nullptr) {
            ++m_alsoShown.notDrawn;
            continue;
        }
        ++also[item];
        ++(item->node() == node ? m_alsoShown.asNodes : m_alsoShown.inBoxes);
    }
    for (GraphNodeItem* item : m_items) {
        const ItemMarks m = marks.value(item);
        item->setMark(
            !item->isGroupBox() || m.count == 0
                ? m.listed.join(QStringLiteral("; "))
                : QStringLiteral("%1 inside marked:\n  %2")
                      .arg(countOf(m.count, QStringLiteral("node"), QStringLiteral("nodes")),
                           boxMarkList(m.listed, m.count)));
        item->setAlsoSelected(also.value(item));
    }
}

void GraphScene::setConfigOverlay(const ConfigOverlay& overlay) {
    applyOverlay(false);
    m_overlay = overlay;
    applyOverlay(true);
    applyColours();
}

void GraphScene::setCostMeasure(CostMeasure measure) {
    m_costMeasure = measure;
    applyColours();
}

void GraphScene::applyColours() {
    if (!m_layout || m_graph.isNull()) return;  // nothing drawn yet: showLayout() colours
    const bool heat = m_costMeasure != CostMeasure::None && !m_overlay.totalNs.empty();
    std::vector<double> byComputation;
    std::vector<double> upTo;  // upTo[n]: the cost of nodes 0..n-1, so a group's range sums at once
    if (heat) {
        upTo.assign(static_cast<size_t>(m_graph.numNodes()) + 1, 0.0);
        for (int64_t n = 0; n < m_graph.numNodes(); ++n) {
            const double cost = m_overlay.cost(static_cast<int32_t>(n), m_costMeasure);
            upTo[static_cast<size_t>(n) + 1] = upTo[static_cast<size_t>(n)] + cost;
            const auto c = static_cast<size_t>(m_graph.computationOf(n));
            if (byComputation.size() <= c) byComputation.resize(c + 1, 0.0);
            byComputation[c] += cost;
        }
    }
    auto costOf = [&](const GraphNodeItem* item) {
        const ViewItem& v = item->viewItem();
        if (v.kind == ViewItem::Kind::Node) return m_overlay.cost(v.node, m_costMeasure);
        if (v.kind == ViewItem::Kind::Computation && v.computation >= 0 &&
            static_cast<size_t>(v.computation) < byComputation.size())
            return byComputation[static_cast<size_t>(v.computation)];
        if (v.kind == ViewItem::Kind::Group && !upTo.empty())
            return upTo[static_cast<size_t>(v.first + v.count)] - upTo[static_cast<size_t>(v.first)];
        return 0.0;
    };
    m_costScaleNs = 0;
    if (heat)
        for (const GraphNodeItem* item : m_items) m_costScaleNs = std::max(m_costScaleNs, costOf(item));
    for (GraphNodeItem* item : m_items) {
        const ViewItem& v = item->viewItem();
        const bool coloured = heat && (v.kind == ViewItem::Kind::Node || item->isGroupBox());
        item->setHeatColor(coloured ? heatColor(m_costScaleNs > 0 ? costOf(item) / m_costScaleNs : 0.0) : QColor());
    }
}

// Puts the overlay on the drawn items (or takes it off): labels of nodes, copies on node-to-node
// edges (edges of collapsed views join groups, not nodes, and keep their own look).
void GraphScene::applyOverlay(bool on) {
    for (auto it = m_overlay.layouts.cbegin(); it != m_overlay.layouts.cend(); ++it)
        if (GraphNodeItem* item = itemForNode(it.key()))
            item->setConfigLayout(on ? it->subtitle : QString(), on ? it->why : QString());
    if (m_overlay.copies.isEmpty()) return;
    for (GraphEdgeItem* edge : m_edges) {
        const int32_t producer = m_items[static_cast<size_t>(edge->viewEdge().producer)]->node();
        const int32_t consumer = m_items[static_cast<size_t>(edge->viewEdge().consumer)]->node();
        const auto it = m_overlay.copies.constFind({producer, consumer});
        edge->setCopy(on && producer >= 0 && consumer >= 0 && it != m_overlay.copies.cend() ? &*it : nullptr);
    }
    placeCopyLabels();
}

// Copies' labels, from the top of the drawing down, each at the nearest line above or below its
// place beside the edge that clears the labels placed before it and the node boxes (the copies
// into one node sit at nearly the same height, and a label behind a box cannot be read); where
// none within vizlimits::kCopyLabelMaxShifts lines clears both, the nearest clear of labels.
void GraphScene::placeCopyLabels() {
    std::vector<GraphEdgeItem*> labelled;
    for (GraphEdgeItem* edge : m_edges) {
        edge->setCopyLabelShift(0);
        if (edge->isCopy()) labelled.push_back(edge);
    }
    std::vector<QRectF> rects(labelled.size());
    for (size_t i = 0; i < labelled.size(); ++i) rects[i] = labelled[i]->copyLabelRect();
    std::vector<size_t> order(labelled.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&rects](size_t a, size_t b) {
        return std::make_pair(rects[a].top(), rects[a].left()) <
               std::make_pair(rects[b].top(), rects[b].left());
    });
    std::vector<QRectF> placed;
    placed.reserve(labelled.size());
    const auto clearOfLabels = [&placed](const QRectF& r) {
        return std::none_of(placed.begin(), placed.end(),
                            [&r](const QRectF& p) { return p.intersects(r); });
    };
    const auto clearOfNodes = [this](const QRectF& r) {
        const QList<QGraphicsItem*> hit = items(r, Qt::IntersectsItemBoundingRect);
        return std::none_of(hit.begin(), hit.end(), [](const QGraphicsItem* item) {
            return item->type() == GraphNodeItem::Type;
        });
    };
    for (const size_t i : order) {
        std::vector<double> shifts{0};
        for (int n = 1; n <= vizlimits::kCopyLabelMaxShifts; ++n)
            for (const int sign : {-1, 1}) shifts.push_back(sign * n * rects[i].height());
        const auto clears = [&](double dy) { return clearOfLabels(rects[i].translated(0, dy)); };
        auto best = std::find_if(shifts.begin(), shifts.end(), [&](double dy) {
            return clears(dy) && clearOfNodes(rects[i].translated(0, dy));
        });
        if (best == shifts.end()) best = std::find_if(shifts.begin(), shifts.end(), clears);
        const double shift = best == shifts.end() ? 0.0 : *best;
        labelled[i]->setCopyLabelShift(shift);
        placed.push_back(rects[i].translated(0, shift));
    }
}

QVector<int32_t> GraphScene::findNodes(const QString& query) const {
    QVector<int32_t> out;
    const QString q = query.trimmed();
    if (q.isEmpty() || !m_layout) return out;
    static const QRegularExpression id(QStringLiteral("^#?(\\d+)$"));
    const auto m = id.match(q);
    if (m.hasMatch()) {
        bool ok = false;
        const qlonglong n = m.captured(1).toLongLong(&ok);
        if (ok && n < m_graph.numNodes() && itemForNode(static_cast<int32_t>(n)))
            out.push_back(static_cast<int32_t>(n));
        return out;
    }
    for (GraphNodeItem* item : m_items) {
        const int32_t n = item->node();
        if (n < 0) continue;
        if (QString::fromStdString(m_graph.opcodeName(n)).contains(q, Qt::CaseInsensitive))
            out.push_back(n);
    }
    return out;
}

void GraphScene::setSearchMatches(const QVector<int32_t>& nodes) {
    const QSet<int32_t> set(nodes.begin(), nodes.end());
    for (GraphNodeItem* item : m_items)
        item->setSearchMatch(item->node() >= 0 && set.contains(item->node()));
}

void GraphScene::mousePressEvent(QGraphicsSceneMouseEvent* event) {
    if (event->button() == Qt::LeftButton &&
        (event->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier)))
        for (QGraphicsItem* i : items(event->scenePos()))
            if (auto* item = qgraphicsitem_cast<GraphNodeItem*>(i); item && item->node() >= 0) {
                emit nodeToggled(item->node());
                event->accept();
                return;
            }
    QGraphicsScene::mousePressEvent(event);
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
    for (QGraphicsItem* i : items(event->scenePos())) {
        auto* item = qgraphicsitem_cast<GraphNodeItem*>(i);
        if (!item) continue;
        const ViewItem& vi = item->viewItem();
        switch (vi.kind) {
            case ViewItem::Kind::Node:
                emit nodeActivated(vi.node);
                break;
            case ViewItem::Kind::Computation:
                emit computationActivated(vi.computation);
                break;
            case ViewItem::Kind::Group:
                emit groupActivated(vi.group);
                break;
            default:
                emit summaryActivated(vi.node);
                break;
        }
        event->accept();
        return;
    }
    QGraphicsScene::mouseDoubleClickEvent(event);
}

}  // namespace tpg
