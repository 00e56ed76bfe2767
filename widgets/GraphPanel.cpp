#include "GraphPanel.h"

#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QMenu>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

#include "CountText.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "GraphvizLayout.h"
#include "JobRunner.h"
#include "OpCategory.h"
#include "SceneExport.h"
#include "WidgetLimits.h"
#include "WrappedLayout.h"
#include "explain/CostExplanation.h"

namespace tpg {

namespace {

const QString kLayoutLane = QStringLiteral("layout");
const QString kSearchLane = QStringLiteral("search");

QToolButton* toolButton(QWidget* parent, const QString& text, const QString& tip) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

QString heatLegendHtml(CostMeasure m, double scaleNs, bool haveOverlay) {
    if (!haveOverlay)
        return QObject::tr("Colour by %1: choose a layout configuration to colour the graph by its costs.")
            .arg(costMeasureName(m));
    QString html = QObject::tr("Colour by %1 under the chosen configuration (synthetic TPU): ").arg(costMeasureName(m));
    for (double f : {0.0, 0.25, 0.5, 0.75, 1.0})
        html += QStringLiteral("<span style='background:%1; border:1px solid #888'>&nbsp;&nbsp;&nbsp;&nbsp;</span>")
                    .arg(heatColor(f).name());
    const QString top = QString::fromStdString(explain::nsText(scaleNs));
    return html + QObject::tr("&nbsp;0 → %1 (the costliest drawn; a computation's box sums its nodes)").arg(top);
}

QString legendHtml() {
    QString html;
    for (int i = 0; i < kNumOpCategories - 1; ++i) {  // "unknown opcode" is rare: left out
        const auto c = static_cast<OpCategory>(i);
        html += QStringLiteral(
                    "<span style='background:%1; border:1px solid "
                    "#888'>&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2&nbsp;&nbsp; ")
                    .arg(opCategoryColor(c).name(), opCategoryName(c));
    }
    html += QStringLiteral(
        "<span style='background:#c62828; "
        "color:white'><b>&nbsp;CFG&nbsp;</b></span>&nbsp;configurable&nbsp;&nbsp; "
        "<span style='color:#2e7d32'><b>—</b></span>&nbsp;operands&nbsp; "
        "<span style='color:#e65c00'><b>—</b></span>&nbsp;users&nbsp; "
        "<span style='background:#ffb300'>&nbsp;&nbsp;&nbsp;</span>&nbsp;set by chosen config");
    return html;
}

}  // namespace

GraphPanel::GraphPanel(JobRunner* layoutRunner, QWidget* parent)
    : QWidget(parent), m_runner(layoutRunner) {
    m_scene = new GraphScene(this);
    m_view = new GraphView(this);
    m_view->setScene(m_scene);
    m_view->miniMap()->setScene(m_scene);
    // Built in the order of the focus chain: toolbar, banners, search results, view.
    QHBoxLayout* bar = buildToolbar();
    buildBanners();
    buildSearchResults();
    m_busy = new QLabel(m_view);
    m_busy->setStyleSheet(
        QStringLiteral("QLabel { background: rgba(21,101,192,220); color: white; padding: 6px; "
                       "border-radius: 4px; }"));
    m_busy->move(12, 12);
    m_busy->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(3);
    layout->addLayout(bar);
    layout->addWidget(m_legend);
    layout->addWidget(m_resultsBox);
    layout->addWidget(m_hint);
    layout->addWidget(m_selectionStrip);
    layout->addWidget(m_note);
    layout->addWidget(m_view, 1);

    connectControls();
    connectScene();
    syncControls();
}

QHBoxLayout* GraphPanel::buildToolbar() {
    m_back = toolButton(this, tr("◀ Back"), tr("Previous view"));
    m_mode = new QComboBox(this);
    m_mode->addItem(tr("Program (grouped)"), static_cast<int>(ViewMode::Groups));
    m_mode->addItem(tr("Whole graph"), static_cast<int>(ViewMode::Whole));
    m_mode->addItem(tr("Computations"), static_cast<int>(ViewMode::Computations));
    m_mode->addItem(tr("One computation"), static_cast<int>(ViewMode::Computation));
    m_mode->addItem(tr("Neighbourhood"), static_cast<int>(ViewMode::Neighbourhood));
    m_mode->addItem(tr("Configurable skeleton"), static_cast<int>(ViewMode::Skeleton));
    m_mode->setToolTip(tr("What to draw: big graphs are drawn a part at a time"));
    m_computation = new QSpinBox(this);
    m_computation->setPrefix(tr("computation "));
    m_computation->setToolTip(tr("HLO computation (from node_splits)"));
    m_hops = new QSpinBox(this);
    m_hops->setRange(1, vizlimits::kMaxHops);
    m_hops->setValue(vizlimits::kDefaultHops);
    m_hops->setSuffix(tr(" hops"));
    m_hops->setToolTip(tr("Neighbourhood radius, in edges, both directions"));
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Find node: id, opcode, shape or /regex/"));
    m_search->setClearButtonEnabled(true);
    m_search->setToolTip(tr("Searches every node, drawn or not: a node id (12 or #12), part of its label "
                            "(opcode or shape, e.g. convolution or f32[8,128]) or a /regular expression/; "
                            "Enter again for the next match"));
    m_search->setMaximumWidth(220);
    // A narrow panel (beside the lesson, whose first step asks for a search) squeezed the box to
    // "Fi…" while the view and colour boxes kept their longest item's width: the box keeps room
    // for "Find node: id", and they give way down to a few characters.
    const int charWidth = m_search->fontMetrics().averageCharWidth();
    m_search->setMinimumWidth(charWidth * widgetlimits::kSearchBoxMinChars);

    m_colour = new QComboBox(this);
    for (CostMeasure m : {CostMeasure::None, CostMeasure::Total, CostMeasure::Padding, CostMeasure::Layout, CostMeasure::Copies})
        m_colour->addItem(costMeasureName(m), static_cast<int>(m));
    m_colour->setToolTip(tr("Colour nodes by op category, or by a cost under the chosen configuration "
                            "(the synthetic TPU's explanation): a heat scale from white to red"));
    for (QComboBox* box : {m_mode, m_colour})
        box->setMinimumWidth(charWidth * widgetlimits::kToolbarBoxMinChars);
    auto* fit = toolButton(this, tr("Fit"), tr("Fit the drawing in the window"));
    auto* actual = toolButton(this, tr("1:1"), tr("Actual size"));
    auto* zoomIn = toolButton(this, tr("+"), tr("Zoom in"));
    auto* zoomOut = toolButton(this, tr("−"), tr("Zoom out"));

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_back);
    bar->addWidget(new QLabel(tr("View:"), this));
    bar->addWidget(m_mode);
    bar->addWidget(m_computation);
    bar->addWidget(m_hops);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Colour:"), this));
    bar->addWidget(m_colour);
    bar->addSpacing(12);
    bar->addWidget(m_search, 1);
    bar->addStretch(0);
    for (QToolButton* b : {fit, actual, zoomIn, zoomOut}) bar->addWidget(b);
    connect(fit, &QToolButton::clicked, m_view, &GraphView::fitAll);
    connect(actual, &QToolButton::clicked, m_view, &GraphView::actualSize);
    connect(zoomIn, &QToolButton::clicked, m_view, &GraphView::zoomIn);
    connect(zoomOut, &QToolButton::clicked, m_view, &GraphView::zoomOut);
    return bar;
}

// The legend, the note of a part drawn alone and the dismissable hint, above the view.
void GraphPanel::buildBanners() {
    m_legend = new QLabel(legendHtml(), this);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true);
    QFont small = m_legend->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_legend->setFont(small);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setStyleSheet(
        QStringLiteral("QLabel { background: #fff3cd; color: #664d03; padding: 3px; }"));
    m_note->setTextFormat(Qt::RichText);
    m_note->hide();
    connect(m_note, &QLabel::linkActivated, this, [this] {
        ViewSpec spec;
        spec.mode = ViewMode::Groups;
        requestView(spec);
    });
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setTextFormat(Qt::RichText);
    m_hint->setStyleSheet(QStringLiteral("QLabel { background: #e3f2fd; color: #0d47a1; padding: 3px; }"));
    m_hint->hide();
    connect(m_hint, &QLabel::linkActivated, m_hint, &QLabel::hide);  // the "×" link dismisses it
    m_selectionStrip = new QLabel(this);
    m_selectionStrip->setObjectName(QStringLiteral("selectionStrip"));
    m_selectionStrip->setWordWrap(true);
    m_selectionStrip->setTextFormat(Qt::RichText);
    m_selectionStrip->setStyleSheet(
        QStringLiteral("QLabel { background: #e8eaf6; color: #1a237e; padding: 3px; }"));
    m_selectionStrip->hide();
    connect(m_selectionStrip, &QLabel::linkActivated, this, [this](const QString& link) {
        stepSelection(link == QLatin1String("previous") ? -1 : 1);
    });
}

void GraphPanel::buildSearchResults() {
    m_searchRunner = new JobRunner(QStringLiteral("search"), this);
    m_resultsBox = new QWidget(this);
    m_resultsLabel = new QLabel(m_resultsBox);
    // Wrapped: one line of "19 matches for … click one to show it …" set the panel's minimum
    // width, and in the window both docks gave way to it for good.
    m_resultsLabel->setWordWrap(true);
    auto* closeResults = toolButton(m_resultsBox, QStringLiteral("×"), tr("Close the search results"));
    m_results = new QTreeWidget(m_resultsBox);
    m_results->setHeaderLabels({tr("Node"), tr("Label"), tr("In view")});
    m_results->setRootIsDecorated(false);
    m_results->setUniformRowHeights(true);
    m_results->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    auto* resultsTop = new QHBoxLayout;
    resultsTop->setContentsMargins(0, 0, 0, 0);
    resultsTop->addWidget(m_resultsLabel, 1);
    resultsTop->addWidget(closeResults);
    auto* resultsLayout = new QVBoxLayout(m_resultsBox);
    resultsLayout->setContentsMargins(0, 0, 0, 0);
    resultsLayout->setSpacing(1);
    resultsLayout->addLayout(resultsTop);
    resultsLayout->addWidget(m_results);
    m_resultsBox->hide();
    connect(closeResults, &QToolButton::clicked, m_resultsBox, &QWidget::hide);
    connect(m_results, &QTreeWidget::itemActivated, this,
            [this](QTreeWidgetItem* item) { revealResult(m_results->indexOfTopLevelItem(item)); });
    connect(m_results, &QTreeWidget::itemClicked, this,
            [this](QTreeWidgetItem* item) { revealResult(m_results->indexOfTopLevelItem(item)); });
    connect(m_searchRunner, &JobRunner::finished, this, [this](quint64 id, const QVariant& result) {
        if (id != m_searchJob) return;
        m_searchJob = 0;
        const auto matches = result.value<NodeMatches>();
        showSearchResults(matches.query, matches);
    });
}

void GraphPanel::connectControls() {
    connect(m_colour, &QComboBox::activated, this,
            [this] { setCostMeasure(static_cast<CostMeasure>(m_colour->currentData().toInt())); });
    connect(m_back, &QToolButton::clicked, this, &GraphPanel::goBack);
    connect(m_mode, &QComboBox::activated, this, [this](int index) {
        ViewSpec spec;
        spec.mode = static_cast<ViewMode>(m_mode->itemData(index).toInt());
        spec.hops = m_hops->value();
        const int32_t sel = m_scene->selectedNode();
        if (spec.mode == ViewMode::Computation)
            spec.computation = sel >= 0 ? m_graph.computationOf(sel) : m_computation->value();
        if (spec.mode == ViewMode::Neighbourhood) {
            spec.center = sel >= 0 ? sel : defaultCenter();
            m_selectAfterLayout = spec.center;
        }
        requestView(spec);
    });
    connect(m_computation, &QSpinBox::editingFinished, this, [this] {
        if (m_spec.mode != ViewMode::Computation || m_computation->value() == m_spec.computation)
            return;
        ViewSpec spec = m_spec;
        spec.computation = m_computation->value();
        requestView(spec);
    });
    connect(m_hops, &QSpinBox::valueChanged, this, [this](int hops) {
        if (m_spec.mode != ViewMode::Neighbourhood || hops == m_spec.hops) return;
        ViewSpec spec = m_spec;
        spec.hops = hops;
        m_selectAfterLayout = spec.center;
        requestView(spec);
    });
    connect(m_search, &QLineEdit::returnPressed, this, [this] { search(m_search->text()); });
    connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
        if (text.isEmpty()) {
            m_matches.clear();
            m_scene->setSearchMatches({});
            m_resultsBox->hide();
            m_resultsQuery.clear();
        }
    });
}

void GraphPanel::connectScene() {
    connect(m_scene, &GraphScene::nodeSelected, this, [this](int node) {
        const bool stepped = node >= 0 && node == m_stepTo;
        if (stepped) m_stepTo = -1;
        emit nodeSelected(node, stepped);
    });
    connect(m_scene, &GraphScene::nodeToggled, this, &GraphPanel::nodeToggled);
    connect(m_scene, &GraphScene::nodeActivated, this, &GraphPanel::showNeighbourhood);
    connect(m_scene, &GraphScene::summaryActivated, m_scene, &GraphScene::nodeActivated);
    connect(m_scene, &GraphScene::groupActivated, this, &GraphPanel::openGroup);
    connect(m_scene, &GraphScene::computationActivated, this, [this](int computation) {
        ViewSpec spec;
        spec.mode = ViewMode::Computation;
        spec.computation = computation;
        requestView(spec);
    });

    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        for (QGraphicsItem* item : m_view->items(pos))
            if (auto* node = qgraphicsitem_cast<GraphNodeItem*>(item); node && node->node() >= 0) {
                std::unique_ptr<QMenu> menu(nodeMenu(node->node()));
                menu->exec(m_view->viewport()->mapToGlobal(pos));
                return;
            }
    });
    connect(m_runner, &JobRunner::finished, this, &GraphPanel::onLayoutFinished);
    connect(m_runner, &JobRunner::failed, this, [this](quint64 id, const QString& message) {
        if (id != m_layoutJob) return;
        m_layoutJob = 0;
        m_busy->hide();
        emit statusMessage(tr("Layout failed: %1").arg(message));
        emit layoutFailed(message);
    });
}

void GraphPanel::setGraph(const TpuGraph& graph, const QString& graphId) {
    m_graph = graph;
    m_graphId = graphId;
    m_history.clear();
    m_matches.clear();
    m_marks.clear();
    m_searchRunner->cancelLane(kSearchLane);
    m_searchJob = 0;
    m_resultsQuery.clear();
    m_results->clear();
    m_resultsBox->hide();
    m_selectAfterLayout = -1;
    m_focusGroupAfterLayout = -1;
    m_scene->setMarkedNodes({});
    m_stepTo = -1;
    m_selectionStrip->hide();
    m_scene->setAlsoSelected({});
    m_scene->setConfigOverlay({});
    m_scene->clearView();
    m_note->hide();
    m_hint->hide();
    m_hierarchy = graph.isNull() ? nullptr : std::make_shared<const NodeHierarchy>(graph);
    const auto comps = computations(graph);
    m_computation->setRange(comps.empty() ? 0 : comps.front().index,
                            comps.empty() ? 0 : comps.back().index);
    m_spec = ViewSpec();
    requestView(defaultViewSpec(graph));
    m_history.clear();
}

void GraphPanel::clearGraph() {
    if (m_layoutJob) m_runner->cancel(m_layoutJob);
    m_layoutJob = 0;
    m_graph = TpuGraph();
    m_graphId.clear();
    m_history.clear();
    m_scene->setMarkedNodes({});
    m_stepTo = -1;
    m_selectionStrip->hide();
    m_scene->setAlsoSelected({});
    m_scene->clearView();
    m_busy->hide();
    m_note->hide();
    syncControls();
}

int32_t GraphPanel::defaultCenter() const {
    if (m_graph.isNull()) return -1;
    if (m_graph.isLayout() && m_graph.numConfigurable() > 0)
        return m_graph.configurableNodes().front();
    return 0;
}

void GraphPanel::requestView(const ViewSpec& spec) {
    if (m_graph.isNull()) return;
    if (!(spec == m_spec) && m_scene->layout()) m_history.push_back(m_spec);
    m_spec = spec;
    syncControls();
    const QString key = LayoutCache::key(m_graphId, spec);
    if (auto cached = m_cache.find(key)) {
        if (m_layoutJob) m_runner->cancel(m_layoutJob);
        m_layoutJob = 0;
        showLayout(cached);
        return;
    }
    const TpuGraph graph = m_graph;
    m_pendingKey = key;
    const QSize window = m_view->viewport()->size();
    const double aspect = window.height() > 0 ? static_cast<double>(window.width()) / window.height() : 1.6;
    // Newest request wins: the lane cancels any layout still queued or running.
    m_layoutJob = m_runner->submit(kLayoutLane, [graph, spec, aspect](JobControl& control) -> QVariant {
        ViewGraph view = buildViewGraph(graph, spec);
        if (control.cancelled()) return {};
        control.setProgress(-1, QStringLiteral("layout: %1 items")
                                    .arg(countText(static_cast<int64_t>(view.items.size()))));
        return QVariant::fromValue(layoutView(std::move(view), aspect));
    });
    m_busy->setText(tr("Laying out: %1…").arg(spec.describe()));
    m_busy->adjustSize();
    m_busy->show();
    m_busy->raise();
    emit statusMessage(tr("Laying out %1…").arg(spec.describe()));
}

void GraphPanel::onLayoutFinished(quint64 id, const QVariant& result) {
    if (id != m_layoutJob) return;
    m_layoutJob = 0;
    auto layout = result.value<std::shared_ptr<const LayoutResult>>();
    if (!layout) return;
    m_cache.insert(m_pendingKey, layout);
    showLayout(layout);
}

void GraphPanel::showLayout(const std::shared_ptr<const LayoutResult>& layout) {
    m_busy->hide();
    if (m_spec.mode == ViewMode::Groups && layout->view.spec.mode == ViewMode::Groups)
        m_spec.open = layout->view.open;  // what the item budget left open
    m_scene->showLayout(m_graph, layout);
    m_scene->setMarkedNodes(m_marks);
    updateSelectionStrip();
    updateLegend();  // the heat scale runs to the costliest item of this drawing
    const ViewGraph& v = layout->view;
    // A cut view says what it left out and offers the view that leaves nothing out.
    m_note->setText(v.truncated && v.spec.mode != ViewMode::Groups
                        ? v.note.toHtmlEscaped() + tr(" <a href='program'>Show the program view</a> (every node, in groups).")
                        : v.note.toHtmlEscaped());
    m_note->setVisible(!v.note.isEmpty());
    // The view at its size under the note before fitting: shrunk after, it cut the top row.
    if (QLayout* own = QWidget::layout()) own->activate();
    m_view->fitReadable();
    if (m_focusGroupAfterLayout >= 0) focusGroup(std::exchange(m_focusGroupAfterLayout, -1));
    const bool back = m_selectOnlyIfDrawn;
    m_selectOnlyIfDrawn = false;
    if (m_selectAfterLayout >= 0) {
        const int32_t node = m_selectAfterLayout;
        m_selectAfterLayout = -1;
        const bool onlyIfDrawn = back;
        if (m_scene->selectNode(node)) {
            if (GraphNodeItem* item = m_scene->itemForNode(node)) m_view->focusOn(item);
        } else if (!onlyIfDrawn) {
            showNode(node);  // not in this view: its neighbourhood
        }
    }
    if (!m_matches.isEmpty()) m_scene->setSearchMatches(m_scene->findNodes(m_search->text()));
    refreshResultsInView();
    QString status =
        tr("%1: %2, %3 drawn")
            .arg(m_spec.describe(), countOf(v.nodeCount(), tr("node"), tr("nodes")),
                 countOf(static_cast<int64_t>(v.edges.size()), tr("edge"), tr("edges")));
    if (v.spec.mode == ViewMode::Computations)
        status = tr("%1: %2").arg(
            m_spec.describe(),
            countOf(static_cast<int64_t>(v.items.size()), tr("computation"), tr("computations")));
    if (v.spec.mode == ViewMode::Groups)
        status = tr("%1: %2 and %3 drawn, every node of %4 drawn or inside a group")
                     .arg(m_spec.describe(),
                          countOf(static_cast<int64_t>(v.items.size()) - v.nodeCount(), tr("group"),
                                  tr("groups")),
                          countOf(v.nodeCount(), tr("node"), tr("nodes")),
                          countText(m_graph.numNodes()));
    status += tr(" · layout %1 ms").arg(static_cast<int>(layout->layoutMs));
    emit statusMessage(status);
    emit layoutReady();
}

void GraphPanel::syncControls() {
    const bool has = !m_graph.isNull();
    const bool multi = has && computations(m_graph).size() > 1;
    auto enableMode = [this](ViewMode mode, bool on) {
        const int i = m_mode->findData(static_cast<int>(mode));
        if (auto* model = qobject_cast<QStandardItemModel*>(m_mode->model()))
            model->item(i)->setEnabled(on);
    };
    enableMode(ViewMode::Computations, multi);
    enableMode(ViewMode::Computation, multi);
    enableMode(ViewMode::Skeleton, has && m_graph.isLayout() && m_graph.numConfigurable() > 0);
    m_mode->setEnabled(has);
    m_search->setEnabled(has);
    m_mode->setCurrentIndex(m_mode->findData(static_cast<int>(m_spec.mode)));
    m_computation->setVisible(m_spec.mode == ViewMode::Computation);
    m_computation->blockSignals(true);
    m_computation->setValue(m_spec.computation);
    m_computation->blockSignals(false);
    m_hops->setVisible(m_spec.mode == ViewMode::Neighbourhood);
    m_hops->blockSignals(true);
    m_hops->setValue(m_spec.hops);
    m_hops->blockSignals(false);
    m_back->setEnabled(!m_history.isEmpty());
}

void GraphPanel::goBack() {
    if (m_history.isEmpty()) return;
    const ViewSpec previous = m_history.takeLast();
    // The selection follows back only where it is drawn: going back must not jump away again.
    m_selectAfterLayout = m_scene->selectedNode();
    m_selectOnlyIfDrawn = true;
    m_focusGroupAfterLayout = -1;
    const auto saved = m_history;
    requestView(previous);  // records the view it leaves...
    m_history = saved;      // ...which going back must not
    syncControls();
}

void GraphPanel::showNode(int32_t node) {
    if (m_graph.isNull() || node < 0 || node >= m_graph.numNodes()) return;
    if (m_layoutJob) {  // a view is on its way: select there (or in the neighbourhood, if not
                        // drawn)
        m_selectAfterLayout = node;
        return;
    }
    if (m_scene->selectNode(node)) {
        if (GraphNodeItem* item = m_scene->itemForNode(node)) m_view->focusOn(item);
        return;
    }
    if (m_spec.mode == ViewMode::Groups && m_hierarchy) {  // open the groups down to it
        ViewSpec spec = m_spec;
        for (int id : m_hierarchy->pathTo(node))
            if (id != NodeHierarchy::root() && std::find(spec.open.begin(), spec.open.end(), id) == spec.open.end())
                spec.open.push_back(id);
        m_selectAfterLayout = node;
        requestView(spec);
        return;
    }
    showNeighbourhood(node);
}

void GraphPanel::openGroup(int group) {
    if (!m_hierarchy || group <= 0 || group >= m_hierarchy->size()) return;
    ViewSpec spec;
    if (m_spec.mode == ViewMode::Groups) spec = m_spec;
    spec.mode = ViewMode::Groups;
    std::vector<int> chain;
    for (int id = group; id > 0; id = m_hierarchy->group(id).parent) chain.insert(chain.begin(), id);
    for (int id : chain)
        if (std::find(spec.open.begin(), spec.open.end(), id) == spec.open.end()) spec.open.push_back(id);
    m_focusGroupAfterLayout = group;
    requestView(spec);
}

// An opened group's nodes in view at a readable zoom: Fit on the grown program shrank them below
// legibility. The whole group when it fits at that zoom, else around its item nearest the middle
// of its items (its bounding box's centre can be empty space: parameters sit far out). A group of
// boxes only is fitted whole: far out, a box keeps its title readable.
void GraphPanel::focusGroup(int group) {
    if (!m_hierarchy || !m_scene->layout()) return;
    const NodeGroup& g = m_hierarchy->group(group);
    const std::vector<ViewItem>& items = m_scene->layout()->view.items;
    QRectF area;
    std::vector<QPointF> centres;
    bool boxesOnly = true;
    for (size_t i = 0; i < items.size() && i < m_scene->nodeItems().size(); ++i) {
        const ViewItem& item = items[i];
        const int64_t first = item.kind == ViewItem::Kind::Node    ? item.node
                              : item.kind == ViewItem::Kind::Group ? item.first
                                                                   : -1;
        if (first < g.first || first >= g.end) continue;
        const QRectF r = m_scene->nodeItems()[i]->sceneBoundingRect();
        area |= r;
        centres.push_back(r.center());
        boxesOnly = boxesOnly && item.kind == ViewItem::Kind::Group;
    }
    if (centres.empty()) return;
    QPointF mean;
    for (const QPointF& c : centres) mean += c / static_cast<double>(centres.size());
    const auto nearest =
        std::min_element(centres.begin(), centres.end(), [&](const QPointF& a, const QPointF& b) {
            return QLineF(a, mean).length() < QLineF(b, mean).length();
        });
    m_view->showRegion(area, boxesOnly ? vizlimits::kMinZoom : vizlimits::kFocusZoom, *nearest);
}

void GraphPanel::closeGroup(int group) {
    if (m_spec.mode != ViewMode::Groups || !m_hierarchy) return;
    ViewSpec spec = m_spec;
    // The group and whatever was open inside it.
    spec.open.erase(std::remove_if(spec.open.begin(), spec.open.end(),
                                   [&](int id) {
                                       for (int a = id; a > 0; a = m_hierarchy->group(a).parent)
                                           if (a == group) return true;
                                       return false;
                                   }),
                    spec.open.end());
    requestView(spec);
}

void GraphPanel::showNeighbourhood(int32_t node) {
    ViewSpec spec;
    spec.mode = ViewMode::Neighbourhood;
    spec.center = node;
    spec.hops = m_hops->value();
    m_selectAfterLayout = node;
    requestView(spec);
}

void GraphPanel::setConfigOverlay(const ConfigOverlay& overlay) {
    m_scene->setConfigOverlay(overlay);
    updateLegend();
}

void GraphPanel::setCostMeasure(CostMeasure measure) {
    m_colour->setCurrentIndex(m_colour->findData(static_cast<int>(measure)));
    m_scene->setCostMeasure(measure);
    updateLegend();
}

QString GraphPanel::legendText() const { return m_legend->text(); }

void GraphPanel::showHint(const QString& html) {
    m_hint->setText(html + QStringLiteral(" &nbsp;<a href='close'>×</a>"));
    m_hint->show();
}

void GraphPanel::hideHint() {
    m_hint->hide();
}

QString GraphPanel::hintText() const { return m_hint->isHidden() ? QString() : m_hint->text(); }

void GraphPanel::updateLegend() {
    const CostMeasure m = m_scene->costMeasure();
    m_legend->setText(m == CostMeasure::None ? legendHtml()
                                             : heatLegendHtml(m, m_scene->costScaleNs(), m_scene->hasConfigOverlay()));
}

void GraphPanel::setMarkedNodes(const QHash<int32_t, QString>& marks) {
    m_marks = marks;
    m_scene->setMarkedNodes(marks);
}

void GraphPanel::setAlsoSelected(const QVector<int32_t>& nodes) {
    m_scene->setAlsoSelected(nodes);
    updateSelectionStrip();
}

// Says where the selection's other nodes are: selected in the list, those outside a neighbourhood
// view had shown nowhere, and those drawn but off screen had to be looked for.
void GraphPanel::updateSelectionStrip() {
    const QVector<int32_t>& also = m_scene->alsoSelected();
    m_selectionStrip->setVisible(!also.isEmpty() && !m_graph.isNull());
    if (m_selectionStrip->isHidden()) return;
    const GraphScene::AlsoSelectedShown shown = m_scene->alsoSelectedShown();
    QStringList where;
    if (shown.asNodes > 0) where << tr("%1 ringed here").arg(shown.asNodes);
    if (shown.inBoxes > 0) where << tr("%1 inside ringed boxes").arg(shown.inBoxes);
    if (shown.notDrawn > 0) where << tr("<b>%1 not in this view</b>").arg(shown.notDrawn);
    const int32_t chosen = m_scene->selectedNode();
    m_selectionStrip->setText(
        // The links first, where repeated clicks find them as the counts change.
        tr("<a href='previous'>‹&nbsp;Previous</a> &nbsp;<a href='next'>Next&nbsp;›</a> &nbsp;"
           "What-if selection: %1%2 more (%3)")
            .arg(chosen >= 0 ? tr("#%1 and ").arg(chosen) : QString())
            .arg(also.size())
            .arg(where.join(QStringLiteral(", "))));
}

QString GraphPanel::selectionStripText() const {
    return m_selectionStrip->isHidden() ? QString() : m_selectionStrip->text();
}

void GraphPanel::stepSelection(int direction) {
    QVector<int32_t> all = m_scene->alsoSelected();
    if (all.isEmpty() || m_graph.isNull()) return;
    const int32_t current = m_scene->selectedNode();
    if (current >= 0 && !all.contains(current)) all.push_back(current);
    std::sort(all.begin(), all.end());
    const auto at = static_cast<int>(all.indexOf(current));
    const auto n = static_cast<int>(all.size());
    const int next = at < 0 ? (direction > 0 ? 0 : n - 1) : ((at + direction) % n + n) % n;
    m_stepTo = all[next];
    emit statusMessage(tr("What-if selection: #%1 (%2 of %3)").arg(m_stepTo).arg(next + 1).arg(n));
    showNode(m_stepTo);
}

int GraphPanel::search(const QString& text) {
    const QString t = text.trimmed();
    if (m_graph.isNull() || t.isEmpty()) return 0;
    if (t == m_resultsQuery && m_results->topLevelItemCount() > 0) {  // Enter again: the next result
        revealResult((m_resultIndex + 1) % m_results->topLevelItemCount());
        return m_results->topLevelItemCount();
    }
    startFullSearch(t);
    const QVector<int32_t> matches = m_scene->findNodes(t);
    if (matches.isEmpty()) {
        static const QRegularExpression id(QStringLiteral("^#?(\\d+)$"));
        const auto m = id.match(t);
        if (m.hasMatch()) {
            const qlonglong n = m.captured(1).toLongLong();
            if (n >= 0 && n < m_graph.numNodes()) {
                showNode(static_cast<int32_t>(n));
                emit statusMessage(
                    tr("Node %1 is not in this view: opening its neighbourhood").arg(n));
                return 1;
            }
            emit statusMessage(tr("No node %1: this graph has %2")
                                   .arg(n)
                                   .arg(countOf(m_graph.numNodes(), tr("node"), tr("nodes"))));
            return 0;
        }
        m_scene->setSearchMatches({});
        m_matches.clear();
        const QString error = parseNodeQuery(t).error;  // a bad /regex/ matches nothing: say why
        emit statusMessage(error.isEmpty() ? tr("No drawn node matches \"%1\"").arg(t) : error);
        return 0;
    }
    if (matches == m_matches)
        m_matchIndex = (m_matchIndex + 1) % matches.size();  // Enter again: next
    else
        m_matchIndex = 0;
    m_matches = matches;
    m_scene->setSearchMatches(matches);
    const int32_t node = matches[m_matchIndex];
    m_scene->selectNode(node);
    if (GraphNodeItem* item = m_scene->itemForNode(node)) m_view->focusOn(item);
    // Of the drawn matches: the results list counts the whole graph's ("Match 1 of 1" beside
    // "4 matches ... in the whole graph" read as a contradiction).
    emit statusMessage(
        tr("Drawn match %1 of %2 for \"%3\"").arg(m_matchIndex + 1).arg(matches.size()).arg(t));
    return static_cast<int>(matches.size());
}

QMenu* GraphPanel::nodeMenu(int32_t node) {
    if (m_graph.isNull() || node < 0 || node >= m_graph.numNodes()) return nullptr;
    auto* menu = new QMenu(this);
    menu->addAction(tr("Inspect #%1").arg(node), this, [this, node] { showNode(node); });
    menu->addAction(tr("Show Its Neighbourhood"), this, [this, node] { showNeighbourhood(node); });
    if (computations(m_graph).size() > 1)
        menu->addAction(tr("Open Its Computation"), this, [this, node] {
            ViewSpec spec;
            spec.mode = ViewMode::Computation;
            spec.computation = m_graph.computationOf(node);
            m_selectAfterLayout = node;
            requestView(spec);
        });
    if (m_spec.mode == ViewMode::Groups && m_hierarchy) {
        const int block = m_hierarchy->blockOf(node);
        if (block != NodeHierarchy::root())
            menu->addAction(tr("Close Its Group (%1)").arg(m_hierarchy->group(block).title), this,
                            [this, block] { closeGroup(block); });
    }
    emit nodeMenuBuilt(menu, node);
    menu->addSeparator();
    menu->addAction(tr("Copy Id"), this, [node] { QGuiApplication::clipboard()->setText(QString::number(node)); });
    menu->addAction(tr("Copy Shape"), this,
                    [this, node] { QGuiApplication::clipboard()->setText(nodeSubtitle(m_graph, node)); });
    return menu;
}

void GraphPanel::startFullSearch(const QString& text) {
    const TpuGraph graph = m_graph;
    m_searchJob = m_searchRunner->submit(kSearchLane, [graph, text](JobControl& control) {
        const NodeMatches matches = findNodes(graph, parseNodeQuery(text), vizlimits::kMaxSearchMatches,
                                              [&control] { return !control.cancelled(); });
        return QVariant::fromValue(matches);
    });
}

void GraphPanel::showSearchResults(const QString& text, const NodeMatches& matches) {
    m_resultsQuery = text;
    m_resultsTotal = matches.total;
    m_resultIndex = -1;
    m_results->clear();
    QVector<int32_t> all;
    for (int32_t n : matches.nodes) {
        auto* item = new QTreeWidgetItem(m_results, {QString::number(n), nodeSearchText(m_graph, n).section(QLatin1Char(' '), 1),
                                                     m_scene->itemForNode(n) ? tr("✓") : QString()});
        item->setData(0, Qt::UserRole, n);
        all.push_back(n);
    }
    m_scene->setSearchMatches(all);
    // Enter again continues after the drawn match already shown; with none drawn, the first result
    // is shown now (in its neighbourhood).
    m_resultIndex = static_cast<int>(all.indexOf(m_scene->selectedNode()));
    if (m_matches.isEmpty() && !all.isEmpty()) revealResult(0);
    m_resultsLabel->setText(describeResults());
    m_resultsLabel->setToolTip(
        all.isEmpty() ? QString()
                      : tr("A match not drawn is shown by opening its groups, or in its "
                           "neighbourhood."));
    fitResultsHeight();
    m_resultsBox->setVisible(!matches.error.isEmpty() || matches.total != 1 || matches.nodes.empty());
    // The first-use hint gives way: with it, the results left the drawing a strip of ~85 px on a
    // 768-px-high screen.
    if (m_resultsBox->isVisibleTo(this)) hideHint();
    if (!matches.error.isEmpty()) m_resultsLabel->setText(matches.error);
    emit searchFinished();
}

// The results list as tall as its rows, within widgetlimits::kResultsMaxHeight and a share of the
// panel: four matches took 160 px of a 260-px panel on a laptop's screen, leaving the drawing a
// strip. With no match the line above says so alone.
void GraphPanel::fitResultsHeight() {
    const int rows = m_results->topLevelItemCount();
    m_results->setVisible(rows > 0);
    if (rows == 0) return;
    const int row = m_results->sizeHintForRow(0);
    const int chrome = m_results->header()->sizeHint().height() + 2 * m_results->frameWidth();
    const int cap = std::max(chrome + 2 * row, height() / widgetlimits::kResultsMaxPanelShare);
    m_results->setFixedHeight(
        std::min({chrome + rows * row, widgetlimits::kResultsMaxHeight, cap}));
}

void GraphPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitResultsHeight();
}

QString GraphPanel::searchResultsText() const { return m_resultsLabel->text(); }

QString GraphPanel::describeResults() const {
    const int listed = m_results->topLevelItemCount();
    // With no match there is nothing to click: it had also said "click one to show it".
    if (listed == 0)
        return tr("No node matches \"%1\" by id, opcode or shape (/…/ searches by regular "
                  "expression)")
            .arg(m_resultsQuery);
    QString text = tr("%1 for \"%2\" in the whole graph")
                       .arg(countOf(m_resultsTotal, tr("match"), tr("matches")), m_resultsQuery);
    if (m_resultsTotal > listed) text += tr(" (the first %1 listed)").arg(listed);
    return text + tr(" · click one to show it");
}

// The results list's "In view" column follows the drawing, and its matches stay outlined.
void GraphPanel::refreshResultsInView() {
    QVector<int32_t> all;
    for (int i = 0; i < m_results->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_results->topLevelItem(i);
        const int32_t n = item->data(0, Qt::UserRole).toInt();
        item->setText(2, m_scene->itemForNode(n) ? tr("✓") : QString());
        all.push_back(n);
    }
    if (!all.isEmpty()) m_scene->setSearchMatches(all);
}

void GraphPanel::revealResult(int index) {
    QTreeWidgetItem* item = m_results->topLevelItem(index);
    if (!item) return;
    m_resultIndex = index;
    m_results->setCurrentItem(item);
    const int32_t node = item->data(0, Qt::UserRole).toInt();
    showNode(node);
    emit statusMessage(tr("Result %1 of %2: node %3").arg(index + 1).arg(m_results->topLevelItemCount()).arg(node));
}

ExportPage GraphPanel::exportPage(bool visibleOnly, const QString& caption) const {
    ExportPage page;
    page.title = m_graph.isNull() ? tr("TpuGraphs Explorer")
                                  : QString::fromStdString(m_graph.name()) + QStringLiteral(" — ") + m_spec.describe();
    page.subtitle = caption;
    if (visibleOnly) page.source = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    const CostMeasure m = m_scene->costMeasure();
    if (m != CostMeasure::None && m_scene->hasConfigOverlay()) {
        for (double f : {0.0, 0.25, 0.5, 0.75, 1.0})
            page.legend.emplace_back(heatColor(f), f == 0.0   ? tr("%1: none").arg(costMeasureName(m))
                                                   : f == 1.0 ? QString::fromStdString(explain::nsText(m_scene->costScaleNs()))
                                                              : QStringLiteral("%1%").arg(static_cast<int>(f * 100)));
        return page;
    }
    for (int i = 0; i < kNumOpCategories - 1; ++i) {  // "unknown opcode" is rare: left out, as on screen
        const auto cat = static_cast<OpCategory>(i);
        page.legend.emplace_back(opCategoryColor(cat), opCategoryName(cat));
    }
    page.legend.emplace_back(QColor(0xc6, 0x28, 0x28), tr("configurable (outline)"));
    page.legend.emplace_back(QColor(0xff, 0xb3, 0x00), tr("set by the chosen configuration"));
    return page;
}

QString GraphPanel::exportSvg(const QString& path, bool visibleOnly, const QString& caption) {
    return exportSceneSvg(m_scene, path, exportPage(visibleOnly, caption));
}

QString GraphPanel::exportPng(const QString& path, bool visibleOnly, const QString& caption) {
    return exportScenePng(m_scene, path, exportPage(visibleOnly, caption));
}

}  // namespace tpg
