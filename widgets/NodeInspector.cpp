#include "NodeInspector.h"

#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>

#include "CountText.h"
#include "TensorText.h"
#include "WidgetLimits.h"
#include "graph/Schema.h"

namespace tpg {

namespace {

constexpr int kNodeRole = Qt::UserRole + 1;
// What a row is ("config", "col 12", ...): the same for one node whatever configuration or edit
// is shown, so a rebuild can tell an update in place from a new tree.
constexpr int kKindRole = Qt::UserRole + 2;
// Row properties QTreeWidget keeps in the view, not the item: recorded while the rows are built
// apart from the tree, applied once they are in it.
constexpr int kExpandedRole = Qt::UserRole + 3;
constexpr int kSpannedRole = Qt::UserRole + 4;

QTreeWidgetItem* addRow(QTreeWidgetItem* parent, const QString& kind, const QStringList& texts) {
    auto* item = new QTreeWidgetItem(parent, texts);
    item->setData(0, kKindRole, kind);
    return item;
}

bool sameShape(const QTreeWidgetItem& a, const QTreeWidgetItem& b) {
    if (a.childCount() != b.childCount() || a.data(0, kKindRole) != b.data(0, kKindRole))
        return false;
    for (int i = 0; i < a.childCount(); ++i)
        if (!sameShape(*a.child(i), *b.child(i))) return false;
    return true;
}

// Only what differs is set, so only changed rows repaint. Returns whether a name (column 0)
// changed.
bool copyTexts(QTreeWidgetItem& shown, const QTreeWidgetItem& built) {
    bool renamed = false;
    for (int c = 0; c < 2; ++c)
        for (int role :
             {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::ForegroundRole), kNodeRole})
            if (shown.data(c, role) != built.data(c, role)) {
                shown.setData(c, role, built.data(c, role));
                renamed |= c == 0 && role == Qt::DisplayRole;
            }
    for (int i = 0; i < shown.childCount(); ++i)
        renamed |= copyTexts(*shown.child(i), *built.child(i));
    return renamed;
}

QString kindPath(const QTreeWidgetItem& item, const QString& parentPath) {
    return parentPath + QLatin1Char('/') + item.data(0, kKindRole).toString();
}

// Which groups are open, by kind path.
void collectExpanded(const QTreeWidgetItem& item, const QString& path, QHash<QString, bool>& open) {
    for (int i = 0; i < item.childCount(); ++i) {
        const QTreeWidgetItem& child = *item.child(i);
        const QString childPath = kindPath(child, path);
        if (child.childCount() > 0) open.insert(childPath, child.isExpanded());
        collectExpanded(child, childPath, open);
    }
}

// Spans and expansion as recorded, a group the user had opened or closed as they left it.
void applyViewState(QTreeWidgetItem& item, const QString& path, const QHash<QString, bool>& open) {
    for (int i = 0; i < item.childCount(); ++i) {
        QTreeWidgetItem& child = *item.child(i);
        const QString childPath = kindPath(child, path);
        if (child.data(0, kSpannedRole).toBool()) child.setFirstColumnSpanned(true);
        child.setExpanded(open.value(childPath, child.data(0, kExpandedRole).toBool()));
        applyViewState(child, childPath, open);
    }
}

QTreeWidgetItem* findKind(QTreeWidgetItem& item, const QString& kind) {
    if (item.data(0, kKindRole).toString() == kind) return &item;
    for (int i = 0; i < item.childCount(); ++i)
        if (QTreeWidgetItem* found = findKind(*item.child(i), kind)) return found;
    return nullptr;
}

// node_feat columns grouped as the schema names them.
struct FeatureGroup {
    const char* name;
    std::vector<std::pair<int, int>> ranges;  // [first, last] column ranges
};

const std::vector<FeatureGroup>& featureGroups() {
    static const std::vector<FeatureGroup> g = {
        {"general", {{0, 1}, {30, 30}, {133, 133}}},
        {"element type", {{2, 20}}},
        {"shape", {{21, 29}}},
        {"layout", {{134, 139}}},
        {"dimensions", {{31, 36}}},
        {"window", {{37, 92}}},
        {"convolution", {{93, 108}}},
        {"slice", {{109, 120}}},
        {"dynamic slice", {{121, 124}}},
        {"padding", {{125, 132}}},
    };
    return g;
}

QString number(float v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        return countText(static_cast<int64_t>(v));
    return QString::number(static_cast<double>(v), 'g', 6);
}

QString neighbourText(const TpuGraph& g, int32_t n, const QString& tensor) {
    return QStringLiteral("#%1 %2  %3").arg(n).arg(QString::fromStdString(g.opcodeName(n)), tensor);
}

}  // namespace

NodeInspector::NodeInspector(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_header = new QLabel(this);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setWordWrap(true);
    m_warning = new QLabel(this);
    m_warning->setWordWrap(true);
    m_warning->setStyleSheet(
        QStringLiteral("QLabel { background: #fff3cd; color: #664d03; padding: 4px; }"));
    m_warning->hide();
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Feature"), tr("Value")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setIndentation(14);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    layout->addWidget(m_header);
    layout->addWidget(m_warning);
    layout->addWidget(m_tree, 1);
    m_decodePoll = new QTimer(this);
    m_decodePoll->setInterval(widgetlimits::kDecodeProgressPollMs);
    connect(m_decodePoll, &QTimer::timeout, this, &NodeInspector::showDecompressing);
    connect(m_tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        const QVariant n = item->data(0, kNodeRole);
        if (n.isValid()) emit nodeActivated(n.toInt());
    });
    rebuild();
}

void NodeInspector::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitNameColumn();
}

// Names get what they need, up to three quarters of the width (values are short numbers), and
// never less than 62%: feature names are not cut at the dock's default width.
void NodeInspector::fitNameColumn() {
    const int width = m_tree->viewport()->width();
    m_tree->resizeColumnToContents(0);
    m_tree->setColumnWidth(0, std::clamp(m_tree->columnWidth(0), std::max(120, width * 62 / 100), std::max(120, width * 3 / 4)));
}

void NodeInspector::setGraph(const TpuGraph& graph) {
    m_graph = graph;
    m_node = -1;
    m_config = -1;
    m_layouts.clear();
    m_overlayLabel.clear();
    m_overlayRow.clear();
    m_shownNode = -1;  // the rows shown belong to the graph before
    rebuild();
}

void NodeInspector::showNode(int32_t node) {
    m_node = (!m_graph.isNull() && node >= 0 && node < m_graph.numNodes()) ? node : -1;
    rebuild();
}

void NodeInspector::setConfig(int64_t config) {
    m_config = config;
    rebuild();
}

void NodeInspector::setConfigOverlay(const ConfigOverlay& overlay) {
    m_overlayLabel = overlay.label;
    m_layouts = overlay.layouts;
    m_overlayRow = overlay.row;
    rebuild();
}

QString NodeInspector::tensorText(int32_t node) const {
    const auto it = m_layouts.constFind(node);
    return it != m_layouts.constEnd()
               ? it->subtitle
               : tensorString(m_graph.nodeFeatures(node), m_graph.nodeFeatureWidth());
}

void NodeInspector::rebuild() {
    m_decodePoll->stop();
    if (m_graph.isNull() || m_node < 0) {
        m_tree->clear();
        m_shownNode = -1;
        m_warning->hide();
        m_header->setText(m_graph.isNull() ? tr("No graph open.")
                                           : tr("Select a node to inspect it."));
        return;
    }
    setHeader();
    QTreeWidgetItem built;  // the rows, apart from the tree until showRows
    addConnections(built);
    const bool decoding = addConfigGroup(built);
    const bool renamed = showRows(built);
    if (decoding) {
        showDecompressing();
        m_decodePoll->start();
    }
    if (renamed) fitNameColumn();  // it measures every row
}

void NodeInspector::setHeader() {
    const TpuGraph& g = m_graph;
    const QString op = QString::fromStdString(g.opcodeName(m_node));
    const QString tensor = tensorText(m_node);
    QString header = QStringLiteral("<b>Node %1 · %2</b><br><tt>%3</tt>")
                         .arg(m_node)
                         .arg(op.toHtmlEscaped(), tensor.toHtmlEscaped());
    // As the graph's label shows it: the file's layout would contradict the drawing.
    if (const auto it = m_layouts.constFind(m_node); it != m_layouts.constEnd())
        header += QStringLiteral("<br><span style='color:#555'>%1</span>")
                      .arg(tr("as %1 lays it out (%2); in the file: %3")
                               .arg(m_overlayLabel, it->why,
                                    tensorString(g.nodeFeatures(m_node), g.nodeFeatureWidth()))
                               .toHtmlEscaped());
    header += QStringLiteral("<br>computation %1").arg(g.computationOf(m_node));
    if (g.isLayout() && g.isConfigurable(m_node))
        header += QStringLiteral(
                      " · <span style='color:#c62828'><b>configurable</b></span> (index %1 of %2)")
                      .arg(countText(g.configurableIndex(m_node)), countText(g.numConfigurable()));
    // Unchanged text is not set again: a word-wrapped label re-measures on every set.
    if (m_header->text() != header) m_header->setText(header);
    if (g.nodeFeatureWidth() != schema::kNodeFeatureWidth) {
        m_warning->setText(
            tr("node_feat has %1 columns, not %2: a trimmed copy? Feature names are unknown, "
               "columns are shown as col_i.")
                .arg(g.nodeFeatureWidth())
                .arg(schema::kNodeFeatureWidth));
        m_warning->show();
    } else {
        m_warning->hide();
    }
}

// The node already shown keeps its rows, updated in place: a new configuration or edit neither
// scrolls the inspector back to the top nor folds the groups the user opened, and only the rows
// that changed repaint. Another node gets a new tree. `built` holds the rows a configuration
// can change; the feature groups, which cannot, follow them and are built only for a new tree.
// Returns whether a name changed or came.
bool NodeInspector::showRows(QTreeWidgetItem& built) {
    QTreeWidgetItem& shown = *m_tree->invisibleRootItem();
    const bool sameNode = m_shownNode == m_node;
    const int varying = built.childCount();
    const int fixedGroups = m_graph.nodeFeatureWidth() == schema::kNodeFeatureWidth
                                ? static_cast<int>(featureGroups().size())
                                : 1;  // addFeatureGroups' groups
    bool inPlace = sameNode && shown.childCount() == varying + fixedGroups;
    for (int i = 0; inPlace && i < varying; ++i)
        inPlace = sameShape(*shown.child(i), *built.child(i));
    if (inPlace) {
        bool renamed = false;
        for (int i = 0; i < varying; ++i) renamed |= copyTexts(*shown.child(i), *built.child(i));
        return renamed;
    }
    addFeatureGroups(built);
    QHash<QString, bool> open;
    int scroll = 0;
    if (sameNode) {
        collectExpanded(shown, QString(), open);
        scroll = m_tree->verticalScrollBar()->value();
    }
    m_tree->clear();
    m_tree->addTopLevelItems(built.takeChildren());
    applyViewState(shown, QString(), open);
    if (sameNode) m_tree->verticalScrollBar()->setValue(scroll);
    m_shownNode = m_node;
    return true;
}

void NodeInspector::addConnections(QTreeWidgetItem& root) {
    const TpuGraph& g = m_graph;
    auto* connections = addRow(&root, QStringLiteral("connections"), {tr("connections")});
    connections->setData(0, kExpandedRole, true);
    const auto producers = g.producers(m_node), consumers = g.consumers(m_node);
    for (const auto& [label, list] : {std::make_pair(tr("operands (producers)"), producers),
                                      std::make_pair(tr("users (consumers)"), consumers)}) {
        auto* group =
            addRow(connections, label, {label, countText(static_cast<int64_t>(list.size()))});
        for (size_t i = 0;
             i < list.size() && i < static_cast<size_t>(widgetlimits::kMaxListedNeighbours); ++i) {
            auto* item = addRow(group, QStringLiteral("neighbour"),
                                {neighbourText(g, list[i], tensorText(list[i]))});
            item->setData(0, kSpannedRole, true);
            item->setData(0, kNodeRole, list[i]);
            item->setToolTip(0, tr("double-click to go to node %1").arg(list[i]));
        }
        if (list.size() > static_cast<size_t>(widgetlimits::kMaxListedNeighbours))
            addRow(group, QStringLiteral("more"),
                   {tr("… %1 more").arg(list.size() - widgetlimits::kMaxListedNeighbours)});
        group->setData(0, kExpandedRole, list.size() <= 16);
    }
}

bool NodeInspector::addConfigGroup(QTreeWidgetItem& root) {
    const TpuGraph& g = m_graph;
    if (!g.isLayout())
        return false;  // tile configs are graph-level: shown in the configuration panel
    const int k = g.configurableIndex(m_node);
    if (k < 0) return false;
    const int64_t width = g.configFeatureWidth();
    const QString kind = QStringLiteral("config");
    if (!m_overlayRow.empty() && static_cast<int64_t>(m_overlayRow.size()) >= (k + 1) * width) {
        addSlotRows(addRow(&root, kind, {m_overlayLabel}), m_overlayRow.data() + k * width, width);
        return false;
    }
    if (m_config < 0 || m_config >= g.numConfigs()) return false;
    auto* group = addRow(&root, kind, {tr("configuration %1").arg(m_config)});
    group->setData(0, kExpandedRole, true);
    const auto& table = g.layoutConfigs();
    if (!configReadable()) {
        // Reading the row now would block the GUI until the table is decoded; rebuild polls.
        addRow(group, QStringLiteral("decompressing"), {})->setData(0, kSpannedRole, true);
        return true;
    }
    std::vector<float> row;
    try {
        row = table->config(m_config);
    } catch (const std::exception& e) {
        addRow(group, QStringLiteral("error"), {tr("error"), QString::fromStdString(e.what())});
        return false;
    }
    const int64_t w = table->width();
    addSlotRows(group, row.data() + static_cast<int64_t>(k) * w, w);
    return false;
}

bool NodeInspector::configReadable() const {
    const auto& table = m_graph.layoutConfigs();
    return table->available() > m_config || !table->error().empty();  // an error reads as one
}

void NodeInspector::showDecompressing() {
    if (configReadable()) {
        rebuild();  // stops the poll
        return;
    }
    QTreeWidgetItem* waiting =
        findKind(*m_tree->invisibleRootItem(), QStringLiteral("decompressing"));
    if (!waiting) return;
    waiting->setText(0, tr("Decompressing the file's configurations… %1%")
                            .arg(static_cast<int>(m_graph.layoutConfigs()->progress() * 100)));
}

void NodeInspector::addSlotRows(QTreeWidgetItem* group, const float* f, int64_t width) {
    group->setData(0, kExpandedRole, true);
    if (width == schema::kLayoutConfigWidth) {
        const char* names[] = {"output layout", "input layout", "kernel layout"};
        for (int s = 0; s < 3; ++s)
            addRow(group, QString::fromLatin1(names[s]),
                   {tr(names[s]), layoutString(f + static_cast<ptrdiff_t>(s) * 6, 6)});
    } else {
        for (int64_t i = 0; i < width; ++i)
            addRow(group, QStringLiteral("col_%1").arg(i),
                   {QStringLiteral("col_%1").arg(i), number(f[i])});
    }
}

void NodeInspector::addFeatureGroups(QTreeWidgetItem& root) {
    const TpuGraph& g = m_graph;
    const int64_t width = g.nodeFeatureWidth();
    if (width != schema::kNodeFeatureWidth) {
        std::vector<int> cols(static_cast<size_t>(width));
        for (int64_t i = 0; i < width; ++i) cols[static_cast<size_t>(i)] = static_cast<int>(i);
        addFeatureGroup(root, tr("columns (names unknown)"), cols);
        return;
    }
    for (const FeatureGroup& group : featureGroups()) {
        std::vector<int> cols;
        for (const auto& [a, b] : group.ranges)
            for (int c = a; c <= b; ++c) cols.push_back(c);
        addFeatureGroup(root, tr(group.name), cols);
    }
}

void NodeInspector::addFeatureGroup(QTreeWidgetItem& root, const QString& title,
                                    const std::vector<int>& cols) {
    const float* f = m_graph.nodeFeatures(m_node);
    const auto width = static_cast<int>(m_graph.nodeFeatureWidth());
    const auto& names = schema::nodeFeatureNames();
    const QColor grey(0x88, 0x88, 0x88);
    auto* group = addRow(&root, title, {title});
    QTreeWidgetItem* zeros = nullptr;  // zero values: listed last, collapsed
    int nonZero = 0, zero = 0;
    for (int c : cols) {
        const bool isZero = f[c] == 0.0f;
        if (isZero && !zeros) {
            zeros = new QTreeWidgetItem;
            zeros->setData(0, kKindRole, QStringLiteral("zero"));
        }
        auto* item =
            addRow(isZero ? zeros : group, QStringLiteral("col %1").arg(c),
                   {QString::fromStdString(schema::featureName(names, width, c)), number(f[c])});
        item->setToolTip(0, tr("node_feat column %1").arg(c));
        if (isZero) {
            ++zero;
            item->setForeground(0, grey);
            item->setForeground(1, grey);
        } else {
            ++nonZero;
        }
    }
    if (zeros) {
        zeros->setText(0, tr("zero (%1)").arg(zero));
        zeros->setForeground(0, grey);
        group->addChild(zeros);
    }
    group->setText(1, tr("%1 non-zero").arg(nonZero));
    group->setData(0, kExpandedRole, nonZero > 0);
}

QString NodeInspector::plainText() const {
    QString out = m_header->text();
    out.replace(QStringLiteral("<br>"), QStringLiteral("\n"));
    out.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    if (m_warning->isVisibleTo(this)) out += QLatin1Char('\n') + m_warning->text();
    std::function<void(QTreeWidgetItem*, const QString&)> walk = [&](QTreeWidgetItem* item,
                                                                     const QString& path) {
        const QString name =
            item->text(0).isEmpty()
                ? path
                : (path.isEmpty() ? item->text(0) : path + QStringLiteral(" / ") + item->text(0));
        out += QLatin1Char('\n') + name + QStringLiteral(": ") + item->text(1);
        for (int i = 0; i < item->childCount(); ++i) walk(item->child(i), name);
    };
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) walk(m_tree->topLevelItem(i), QString());
    return out;
}

}  // namespace tpg
