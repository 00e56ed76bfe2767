#include "NodeInspector.h"

#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
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
    m_decompressing = nullptr;
    m_tree->clear();
    m_warning->hide();
    if (m_graph.isNull() || m_node < 0) {
        m_header->setText(m_graph.isNull() ? tr("No graph open.")
                                           : tr("Select a node to inspect it."));
        return;
    }
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
    m_header->setText(header);
    if (g.nodeFeatureWidth() != schema::kNodeFeatureWidth) {
        m_warning->setText(
            tr("node_feat has %1 columns, not %2: a trimmed copy? Feature names are unknown, "
               "columns are shown as col_i.")
                .arg(g.nodeFeatureWidth())
                .arg(schema::kNodeFeatureWidth));
        m_warning->show();
    }

    auto* connections = new QTreeWidgetItem(m_tree, {tr("connections")});
    const auto producers = g.producers(m_node), consumers = g.consumers(m_node);
    for (const auto& [label, list] : {std::make_pair(tr("operands (producers)"), producers),
                                      std::make_pair(tr("users (consumers)"), consumers)}) {
        auto* group =
            new QTreeWidgetItem(connections, {label, countText(static_cast<int64_t>(list.size()))});
        for (size_t i = 0;
             i < list.size() && i < static_cast<size_t>(widgetlimits::kMaxListedNeighbours); ++i) {
            auto* item =
                new QTreeWidgetItem(group, {neighbourText(g, list[i], tensorText(list[i]))});
            item->setFirstColumnSpanned(true);
            item->setData(0, kNodeRole, list[i]);
            item->setToolTip(0, tr("double-click to go to node %1").arg(list[i]));
        }
        if (list.size() > static_cast<size_t>(widgetlimits::kMaxListedNeighbours))
            new QTreeWidgetItem(
                group, {tr("… %1 more").arg(list.size() - widgetlimits::kMaxListedNeighbours)});
        group->setExpanded(list.size() <= 16);
    }
    connections->setExpanded(true);
    addConfigGroup();
    addFeatureGroups();
    fitNameColumn();
}

void NodeInspector::addConfigGroup() {
    const TpuGraph& g = m_graph;
    if (!g.isLayout()) return;  // tile configs are graph-level: shown in the configuration panel
    const int k = g.configurableIndex(m_node);
    if (k < 0) return;
    const int64_t width = g.configFeatureWidth();
    if (!m_overlayRow.empty() && static_cast<int64_t>(m_overlayRow.size()) >= (k + 1) * width) {
        addSlotRows(new QTreeWidgetItem(m_tree, {m_overlayLabel}), m_overlayRow.data() + k * width,
                    width);
        return;
    }
    if (m_config < 0 || m_config >= g.numConfigs()) return;
    auto* group = new QTreeWidgetItem(m_tree, {tr("configuration %1").arg(m_config)});
    group->setExpanded(true);
    const auto& table = g.layoutConfigs();
    if (!configReadable()) {
        // Reading the row now would block the GUI until the table is decoded.
        m_decompressing = new QTreeWidgetItem(group);
        m_decompressing->setFirstColumnSpanned(true);  // the Value column had cut it off
        showDecompressing();
        m_decodePoll->start();
        return;
    }
    std::vector<float> row;
    try {
        row = table->config(m_config);
    } catch (const std::exception& e) {
        new QTreeWidgetItem(group, {tr("error"), QString::fromStdString(e.what())});
        return;
    }
    const int64_t w = table->width();
    addSlotRows(group, row.data() + static_cast<int64_t>(k) * w, w);
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
    m_decompressing->setText(0,
                             tr("Decompressing the file's configurations… %1%")
                                 .arg(static_cast<int>(m_graph.layoutConfigs()->progress() * 100)));
}

void NodeInspector::addSlotRows(QTreeWidgetItem* group, const float* f, int64_t width) {
    group->setExpanded(true);
    if (width == schema::kLayoutConfigWidth) {
        const char* names[] = {"output layout", "input layout", "kernel layout"};
        for (int s = 0; s < 3; ++s)
            new QTreeWidgetItem(group, {tr(names[s]), layoutString(f + static_cast<ptrdiff_t>(s) * 6, 6)});
    } else {
        for (int64_t i = 0; i < width; ++i)
            new QTreeWidgetItem(group, {QStringLiteral("col_%1").arg(i), number(f[i])});
    }
}

void NodeInspector::addFeatureGroups() {
    const TpuGraph& g = m_graph;
    const float* f = g.nodeFeatures(m_node);
    const int64_t width = g.nodeFeatureWidth();
    const auto& names = schema::nodeFeatureNames();
    auto addGroup = [&](const QString& title, const std::vector<int>& cols) {
        auto* group = new QTreeWidgetItem(m_tree, {title});
        QTreeWidgetItem* zeros = nullptr;  // zero values: listed last, collapsed
        int nonZero = 0, zero = 0;
        for (int c : cols) {
            const bool isZero = f[c] == 0.0f;
            if (isZero && !zeros) zeros = new QTreeWidgetItem({tr("zero")});
            auto* item = new QTreeWidgetItem(
                isZero ? zeros : group,
                {QString::fromStdString(schema::featureName(names, static_cast<int>(width), c)),
                 number(f[c])});
            item->setToolTip(0, tr("node_feat column %1").arg(c));
            if (isZero) {
                ++zero;
                item->setForeground(0, QColor(0x88, 0x88, 0x88));
                item->setForeground(1, QColor(0x88, 0x88, 0x88));
            } else {
                ++nonZero;
            }
        }
        if (zeros) {
            zeros->setText(0, tr("zero (%1)").arg(zero));
            zeros->setForeground(0, QColor(0x88, 0x88, 0x88));
            group->addChild(zeros);
        }
        group->setText(1, tr("%1 non-zero").arg(nonZero));
        group->setExpanded(nonZero > 0);
    };
    if (width != schema::kNodeFeatureWidth) {
        std::vector<int> cols(static_cast<size_t>(width));
        for (int64_t i = 0; i < width; ++i) cols[static_cast<size_t>(i)] = static_cast<int>(i);
        addGroup(tr("columns (names unknown)"), cols);
        return;
    }
    for (const FeatureGroup& group : featureGroups()) {
        std::vector<int> cols;
        for (const auto& [a, b] : group.ranges)
            for (int c = a; c <= b; ++c) cols.push_back(c);
        addGroup(tr(group.name), cols);
    }
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
