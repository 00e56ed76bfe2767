#include "ExplainPanel.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <utility>

#include "AxisLabels.h"
#include "ChartTheme.h"
#include "CountText.h"
#include "FilePredictions.h"
#include "FittingSplitter.h"
#include "JobRunner.h"
#include "MemoryLayoutView.h"
#include "MemoryTiling.h"
#include "RuntimeText.h"
#include "TensorText.h"
#include "WidgetLimits.h"
#include "synth/TpuCostModel.h"
#include "whatif/ConfigEdit.h"

Q_DECLARE_METATYPE(std::shared_ptr<const tpg::ExplainPanel::Explanation>)

namespace tpg {

namespace {

constexpr int kNodeLayoutColumn = 3;  // hidden on tile files, which have no layouts
// A negative part (measurement noise below the model's time) shorter than this share of the
// longest bar cannot be seen left of 0; the axis then starts at 0 rather than at "-0.00".
constexpr double kVisibleNegativeShare = 0.01;

// The value axis for stacked bars: from the most negative stack to the longest positive one, on
// round ticks.
void fitStackedRange(QValueAxis* axis, const QHorizontalStackedBarSeries* series) {
    double lo = 0, hi = 0;
    const int bars =
        series->barSets().isEmpty() ? 0 : static_cast<int>(series->barSets().front()->count());
    for (int bar = 0; bar < bars; ++bar) {
        double negative = 0, positive = 0;
        for (const QBarSet* set : series->barSets()) {
            const double v = set->at(bar);
            if (v < 0)
                negative += v;
            else
                positive += v;
        }
        lo = std::min(lo, negative);
        hi = std::max(hi, positive);
    }
    if (-lo < kVisibleNegativeShare * hi) lo = 0;
    axis->setRange(lo, hi > lo ? hi : lo + 1);
    axis->applyNiceNumbers();
    axis->setLabelFormat(tickLabelFormat(axis));
}

QString ms(double ns) { return QString::fromStdString(explain::nsText(ns)); }

QString layoutText(const std::vector<int>& l) { return QString::fromStdString(explain::layoutText(l)); }

// A is configuration `a`, or `row` when it is not empty (an edited configuration).
synth::CostBreakdown explainRowOf(const TpuGraph& g, const synth::TpuCostModel& tpu, const std::vector<float>& row) {
    return g.isLayout() ? tpu.explainLayout(row.data()) : tpu.explainTile(row.data());
}

// A (a configuration or, when `row` is given, that row) and, when asked, B (configuration `b` or `bRow`).
ExplainPanel::Explanation explainConfigs(const TpuGraph& g, const synth::TpuCostModel& tpu, int64_t a,
                                         const std::vector<float>& row, const QString& rowLabel, int64_t b,
                                         const std::vector<float>& bRow, const QString& bLabel) {
    ExplainPanel::Explanation e;
    e.a = row.empty() ? a : -1;
    e.aLabel = row.empty() ? QObject::tr("configuration %1").arg(a) : rowLabel;
    e.b = bRow.empty() ? b : -1;
    e.bLabel = bRow.empty() ? QObject::tr("configuration %1").arg(b) : bLabel;
    e.breakdownA = row.empty() ? tpu.explain(a) : explainRowOf(g, tpu, row);
    e.summaryA = explain::summarize(g, e.breakdownA);
    e.overlay = configOverlay(g, e.breakdownA);
    e.overlay.label = e.aLabel;
    e.overlay.row = row;
    const synth::TpuCostModel::TileTensors tensors =
        g.isLayout() ? synth::TpuCostModel::TileTensors{} : tpu.tileTensors();
    const auto tiled = [&](const synth::CostBreakdown& b) {
        return explain::tiledTensors(tensors, b.tile);
    };
    e.tiledA = tiled(e.breakdownA);
    if (b >= 0 || !bRow.empty()) {
        e.breakdownB = bRow.empty() ? tpu.explain(b) : explainRowOf(g, tpu, bRow);
        e.summaryB = explain::summarize(g, e.breakdownB);
        e.comparison = explain::compare(g, e.breakdownA, e.breakdownB);
        e.tiledB = tiled(e.breakdownB);
        if (!g.isLayout())
            e.differingBounds =
                whatif::differingTileBounds(g, row.empty() ? g.tileConfig(a) : row.data(),
                                            bRow.empty() ? g.tileConfig(b) : bRow.data());
    }
    return e;
}

}  // namespace

ExplainPanel::ExplainPanel(QWidget* parent)
    : QWidget(parent), m_runner(new JobRunner(QStringLiteral("explain"), this)) {
    qRegisterMetaType<std::shared_ptr<const Explanation>>();
    buildUi();
    connect(m_runner, &JobRunner::finished, this, [this](quint64 id, const QVariant& v) {
        if (id != m_job) return;
        m_job = 0;
        showExplanation(v.value<std::shared_ptr<const Explanation>>());
    });
    connect(m_runner, &JobRunner::failed, this, [this](quint64 id, const QString& message) {
        if (id != m_job) return;
        m_job = 0;
        m_header->setText(tr("Cannot explain: %1").arg(message));
    });
}

void ExplainPanel::buildUi() {
    m_header = new QLabel(tr("Choose a configuration to see why it is fast or slow."));
    m_header->setWordWrap(true);
    m_details = new QLabel;
    m_details->setWordWrap(true);
    m_comparison = new QLabel;
    m_comparison->setWordWrap(true);
    QHBoxLayout* compareRow = buildCompareRow();
    m_chart = new QChartView;
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumHeight(150);
    buildLists();
    auto* body = new QSplitter(Qt::Horizontal);
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_header);
    leftLayout->addWidget(m_details);
    leftLayout->addLayout(compareRow);
    leftLayout->addWidget(m_comparison);
    leftLayout->addWidget(m_chart, 1);
    body->addWidget(left);
    body->addWidget(m_lists);
    body->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(body);
}

// "B =": a configuration's number, Compare, Best, Worst and Clear. Short, as the header's "A =":
// the row is the left pane's minimum width, and at 1024 px "Compare A with B =" had left the
// node list too little to show its Cost.
QHBoxLayout* ExplainPanel::buildCompareRow() {
    m_compareBox = new QSpinBox;
    m_compareBox->setToolTip(
        tr("Configuration B, compared with the chosen one (A); \"—\" while B is none "
           "of the file's (nothing, or a suggestion)"));
    m_compareBox->setSpecialValueText(tr("—"));  // at -1: B is not a configuration of the file
    m_compareButton = new QPushButton(tr("Compare"));
    m_bestButton = new QPushButton(tr("Best"));
    m_bestButton->setToolTip(tr("Compare with the best measured configuration"));
    m_worstButton = new QPushButton(tr("Worst"));
    m_worstButton->setToolTip(tr("Compare with the worst measured configuration"));
    m_clearButton = new QPushButton(tr("Clear"));
    auto* compareRow = new QHBoxLayout;
    auto* label = new QLabel(tr("B ="));
    label->setToolTip(m_compareBox->toolTip());
    compareRow->addWidget(label);
    for (QWidget* w : std::initializer_list<QWidget*>{m_compareBox, m_compareButton, m_bestButton, m_worstButton, m_clearButton})
        compareRow->addWidget(w);
    compareRow->addStretch(1);
    connect(m_compareButton, &QPushButton::clicked, this, [this] { compareWith(m_compareBox->value()); });
    connect(m_clearButton, &QPushButton::clicked, this, [this] { compareWith(-1); });
    auto extreme = [this](bool best) {
        const auto& r = m_graph.runtimes();
        if (!m_graph.runtimesKnown() || r.empty()) return;
        const auto it = best ? std::min_element(r.begin(), r.end()) : std::max_element(r.begin(), r.end());
        compareWith(it - r.begin());
    };
    connect(m_bestButton, &QPushButton::clicked, this, [extreme] { extreme(true); });
    connect(m_worstButton, &QPushButton::clicked, this, [extreme] { extreme(false); });
    return compareRow;
}

// The costliest nodes and copies, each list as wide as its short columns, and the memory picture.
void ExplainPanel::buildLists() {
    m_nodes = new QTreeWidget;
    m_nodes->setHeaderLabels({tr("Node"), tr("Opcode"), tr("Cost"), tr("Layout"), tr("Why")});
    m_nodes->setRootIsDecorated(false);
    m_copies = new QTreeWidget;
    m_copies->setHeaderLabels({tr("Copy"), tr("Cost"), tr("Layouts"), tr("Why")});
    m_copies->setRootIsDecorated(false);
    auto activate = [this](QTreeWidgetItem* item) {
        if (item) emit nodeActivated(item->data(0, Qt::UserRole).toInt());
    };
    // A click (or the keys) shows a row's node in the memory picture and the row's reason in
    // full above it (the lists' columns cut it); a double-click goes to the node.
    for (QTreeWidget* list : {m_nodes, m_copies}) {
        auto preview = [this, list](QTreeWidgetItem* item) {
            if (!item) return;
            selectNode(item->data(0, Qt::UserRole).toInt());
            showWhy(list == m_copies ? copyWhy(*item) : nodeWhy());
        };
        connect(list, &QTreeWidget::itemDoubleClicked, this, activate);
        connect(list, &QTreeWidget::itemClicked, this, preview);
        connect(list, &QTreeWidget::currentItemChanged, this,
                [list, preview](QTreeWidgetItem* item) {
                    if (list->hasFocus()) preview(item);
                });
    }

    m_memory = new MemoryLayoutView;
    m_why = new QLabel;
    m_why->setObjectName(QStringLiteral("explainWhy"));
    m_why->setWordWrap(true);
    m_why->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_why->hide();
    auto* detail = new QWidget;
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_why);
    detailLayout->addWidget(m_memory, 1);
    // Each list as wide as its short columns, so a node's layout and a copy's two read whole (Qt's
    // split by size hints cut both at 235 px); the memory picture takes the rest.
    m_lists = new FittingSplitter;
    m_lists->addWidget(m_nodes);
    m_lists->addWidget(m_copies);
    m_lists->addWidget(detail);
    for (QTreeWidget* list : {m_nodes, m_copies})
        m_lists->setWantedWidth(
            m_lists->indexOf(list),
            [list] { return widthForColumns(*list, shortColumnsWidth(*list)); },
            widgetlimits::kExplainListMaxShare);
}

void ExplainPanel::setGraph(const TpuGraph& graph, const QString& file) {
    m_graph = graph;
    m_file = file;
    m_predictions.reset();
    m_fileTpu = std::make_shared<FileTpu>();
    m_job = 0;  // an explanation of the previous file still on its way is dropped
    m_config = m_compare = -1;
    m_compareRow.clear();
    m_explanation.reset();
    m_explained.drop();
    m_compareBox->setRange(-1, static_cast<int>(std::max<int64_t>(0, graph.numConfigs() - 1)));
    m_compareBox->setValue(-1);
    m_bestButton->setEnabled(graph.runtimesKnown());
    m_worstButton->setEnabled(graph.runtimesKnown());
    // A tile kernel's layouts are the file's: the list shows only when they disagree (fillLists).
    m_copies->setVisible(graph.isLayout());
    m_nodes->setColumnHidden(kNodeLayoutColumn, !graph.isLayout());
    m_header->setText(tr("Choose a configuration to see why it is fast or slow."));
    m_details->clear();
    m_comparison->clear();
    m_nodes->clear();
    m_copies->clear();
    m_node = -1;
    m_memory->clear(tr("Select a node to see its tensor in memory."));
    emit overlayChanged({});
    emit comparedNodesChanged({});
}

void ExplainPanel::setPredictions(std::shared_ptr<const FilePredictions> predictions) {
    if (!predictions || predictions->file != m_file) return;
    m_predictions = std::move(predictions);
    if (m_explanation && !m_explained.pending())
        showTexts(*m_explanation);  // the explanation stands; the model's figures join it
}

void ExplainPanel::setChosenConfig(int64_t config) {
    m_config = config;
    m_row.clear();
    request();
}

void ExplainPanel::explainRow(const std::vector<float>& row, const QString& label) {
    m_row = row;
    m_rowLabel = label;
    request();
}

void ExplainPanel::compareWithRow(const std::vector<float>& row, const QString& label) {
    m_compare = -1;
    m_compareRow = row;
    m_compareLabel = label;
    m_compareBox->setValue(-1);  // not the number of the last configuration compared
    request();
}

void ExplainPanel::compareWith(int64_t config) {
    m_compareRow.clear();
    m_compare = config < m_graph.numConfigs() ? config : -1;
    m_compareBox->setValue(static_cast<int>(m_compare));
    request();
}

void ExplainPanel::request() {
    const bool haveA = !m_row.empty() || (m_config >= 0 && m_config < m_graph.numConfigs());
    if (!haveA) {  // say why Compare, Best or Worst showed nothing
        const QString b = m_compare >= 0         ? tr("configuration %1").arg(m_compare)
                          : m_compareRow.empty() ? QString()
                                                 : m_compareLabel;
        m_header->setText(
            b.isEmpty() ? tr("Choose a configuration to see why it is fast or slow.")
                        : tr("B = %1. Choose configuration A in the Configurations table (or edit "
                             "one in What-if) to compare the two.")
                              .arg(b));
    }
    if (!haveA) return;
    const TpuGraph graph = m_graph;
    const std::shared_ptr<FileTpu> file = m_fileTpu;
    const int64_t a = m_config, b = m_compare;
    const std::vector<float> row = m_row, bRow = m_compareRow;
    const QString label = m_rowLabel, bLabel = m_compareLabel;
    // A 45k-node program takes tens of ms to explain: on the worker, the newest request wins.
    m_job = m_runner->submit(
        QStringLiteral("explain"), [graph, file, a, row, label, b, bRow, bLabel](JobControl&) {
            if (!file->tpu) {
                file->tpu = std::make_unique<const synth::TpuCostModel>(graph);
                file->groundTruth = explain::synthIsGroundTruth(graph, *file->tpu);
            }
            auto e = std::make_shared<Explanation>(
                explainConfigs(graph, *file->tpu, a, row, label, b, bRow, bLabel));
            e->synthIsGroundTruth = file->groundTruth;
            return QVariant::fromValue(std::shared_ptr<const Explanation>(std::move(e)));
        });
}

void ExplainPanel::showTexts(const Explanation& e) {
    // The synthetic TPU is a model of a TPU: say how far to trust it on this file.
    const QString trust =
        e.synthIsGroundTruth
            ? tr("ground truth: this synthetic file was timed by the synthetic TPU")
        : !m_graph.runtimesKnown()
            ? tr("an estimate of the synthetic TPU (no measured runtimes to check it against)")
        : !m_predictions || std::isnan(m_predictions->synthKendall)
            ? tr("an estimate of the synthetic TPU (its Kendall against this file's measurements "
                 "comes with the predictions)")
            : tr("an estimate of the synthetic TPU: Kendall %1 against this file's measurements "
                 "(%2 configs)")
                  .arg(m_predictions->synthKendall, 0, 'f', 3)
                  .arg(countText(m_graph.numConfigs()));
    m_header->setText(tr("<b>A = %1: %2</b> — %3").arg(e.aLabel, ms(e.summaryA.totalNs), trust));
    m_comparison->setText(
        e.comparison
            ? tr("B = %1: %2. %3. %4")
                  .arg(e.bLabel)
                  .arg(QString::fromStdString(e.comparison->sentence))
                  .arg(m_graph.isLayout()
                           ? countOf(static_cast<int64_t>(e.comparison->differingNodes.size()),
                                     tr("configurable node lays out differently"),
                                     tr("configurable nodes lay out differently"))
                           : countOf(e.differingBounds, tr("tile bound differs"),
                                     tr("tile bounds differ")) +
                                 tileChangeText(e))
                  .arg(modelSays(e))
            : QString());
}

// What B's tiles are against A's (": output [1,128,32,16] → [1,1,32,16]; 16 → 2,048 tiles"),
// empty on a layout file or where the tiles are one.
QString ExplainPanel::tileChangeText(const Explanation& e) {
    if (!e.comparison) return {};
    const std::string changes = explain::tileChanges(e.tiledA, e.tiledB, " → ");
    if (changes.empty()) return {};
    const int64_t a = e.breakdownA.tile.numTiles, b = e.breakdownB.tile.numTiles;
    return QStringLiteral(": ") + QString::fromStdString(changes) +
           (a == b ? QString()
                   : tr("; %1 → %2").arg(countText(a), countOf(b, tr("tile"), tr("tiles"))));
}

void ExplainPanel::showExplanation(std::shared_ptr<const Explanation> explanation) {
    if (!explanation) return;
    // The explanation replaced is freed on the worker: on a 45,000-node file freeing its
    // breakdowns took 2-3 ms of the GUI thread for each configuration chosen.
    if (auto old = std::exchange(m_explanation, std::move(explanation)))
        m_runner->submit(QString(), [old = std::move(old)](JobControl&) mutable {
            old.reset();
            return QVariant();
        });
    const Explanation& e = *m_explanation;
    QHash<int32_t, QString> differing;
    if (e.comparison)
        for (int32_t n : e.comparison->differingNodes) differing.insert(n, tr("lays out differently in B"));
    // Behind another tab the panel waits to be seen: on a 45,000-node file its chart and lists
    // were a fifth of the GUI thread's time for each configuration chosen in the table, and
    // re-measuring its word-wrapped texts a tenth of each what-if edit's.
    if (!m_explained.defer(*this)) showExplained();
    emit overlayChanged(e.overlay);
    emit comparedNodesChanged(differing);
    emit explained();
}

// The learned model's view of the same pair, beside the synthetic TPU's.
QString ExplainPanel::modelSays(const Explanation& e) const {
    const double synth = 100.0 * (e.summaryB.totalNs / e.summaryA.totalNs - 1.0);
    if (e.a < 0 || e.b < 0) return tr("(The cost model's predictions for edited rows are in the What-if tab.)");
    if (!m_predictions)
        return tr("(The cost model's view comes when this file's predictions finish.)");
    const auto a = static_cast<size_t>(e.a), b = static_cast<size_t>(e.b);
    if (!m_predictions->predictedNs.empty())
        return tr("The cost model predicts B %1%2% (the synthetic TPU: %3%4%).")
            .arg(m_predictions->predictedNs[b] >= m_predictions->predictedNs[a] ? QStringLiteral("+") : QString())
            .arg(100.0 * (m_predictions->predictedNs[b] / m_predictions->predictedNs[a] - 1.0), 0, 'f', 1)
            .arg(synth >= 0 ? QStringLiteral("+") : QString())
            .arg(synth, 0, 'f', 1);
    const double sa = m_predictions->scores()[a], sb = m_predictions->scores()[b];
    return tr("The cost model ranks B %1 than A (scores %2 vs %3; no runtimes to map them to ns).")
        .arg(sb > sa ? tr("slower") : sb < sa ? tr("faster") : tr("no different"))
        .arg(sb, 0, 'f', 4)
        .arg(sa, 0, 'f', 4);
}

void ExplainPanel::showExplained() {
    m_explained.drop();
    const Explanation& e = *m_explanation;
    showTexts(e);
    m_details->setText(detailsOf(e));
    fillChart(e);
    fillLists(e);
    showMemory();
}

// A tile kernel's file fixes its layouts, and where they disagree the synthetic TPU charges a copy
// too (27% of a generated conv_fusion kernel's runtime).
QString ExplainPanel::detailsOf(const Explanation& e) const {
    QString details = countOf(e.summaryA.copies, tr("copy"), tr("copies")) +
                      tr(" (%1 through the transpose unit)").arg(e.summaryA.transposingCopies);
    if (m_graph.isLayout())
        return details + tr(" · violation ratio %1 (share of configurable nodes whose largest "
                            "dimension is not most minor)")
                             .arg(e.summaryA.violationRatio, 0, 'f', 3);
    return details + tr(" · %1 · utilisation %2 · working set %3 MiB of 16 MiB on-chip%4")
                         .arg(countOf(e.breakdownA.tile.numTiles, tr("tile"), tr("tiles")))
                         .arg(e.breakdownA.tile.utilisation, 0, 'f', 3)
                         .arg(e.breakdownA.tile.workingSetBytes / (1024.0 * 1024.0), 0, 'f', 2)
                         .arg(e.breakdownA.tile.spills ? tr(" — it SPILLS") : tr(", fits"));
}

void ExplainPanel::setOnScreen(bool onScreen) {
    if (m_explained.setOnScreen(onScreen) && m_explanation) showExplained();
}

void ExplainPanel::showEvent(QShowEvent* event) {
    if (m_explained.take() && m_explanation) showExplained();
    QWidget::showEvent(event);
}

void ExplainPanel::fillChart(const Explanation& e) {
    // In the unit of the longer bar: a tile kernel's 14 us were 0.0141 ms.
    const RuntimeUnit unit =
        runtimeUnitFor(std::max(e.summaryA.totalNs, e.comparison ? e.summaryB.totalNs : 0.0));
    auto* series = new QHorizontalStackedBarSeries;
    for (size_t i = 0; i < e.summaryA.categories.size(); ++i) {
        const auto& cat = e.summaryA.categories[i];
        const double b = e.comparison ? e.summaryB.categories[i].ns : 0.0;
        if (cat.ns == 0 && b == 0) continue;
        auto* set = new QBarSet(QString::fromStdString(cat.name));
        *set << cat.ns / unit.nanoseconds;
        if (e.comparison) *set << b / unit.nanoseconds;
        series->append(set);
    }
    auto* chart = new QChart;
    followPalette(chart, palette());
    chart->addSeries(series);
    auto* labels = new QBarCategoryAxis;
    labels->append(QStringLiteral("A"));
    if (e.comparison) labels->append(QStringLiteral("B"));
    auto* values = new QValueAxis;
    values->setTitleText(tr("%1 on the synthetic TPU").arg(unit.name));
    chart->addAxis(labels, Qt::AlignLeft);
    chart->addAxis(values, Qt::AlignBottom);
    series->attachAxis(labels);
    series->attachAxis(values);
    fitStackedRange(values, series);
    // Beside the bars: below them, a chart at its minimum height (a 1024 x 600 screen) lost its
    // tick labels and axis title to "...", and the chart has width to spare.
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->setMargins(QMargins(2, 2, 2, 2));
    QChart* old = m_chart->chart();
    m_chart->setChart(chart);
    delete old;
}

void ExplainPanel::fillLists(const Explanation& e) {
    m_nodes->clear();
    for (const synth::NodeCost* n :
         explain::costliestNodes(e.breakdownA, widgetlimits::kExplainListed)) {
        auto* item = new QTreeWidgetItem(m_nodes, {QStringLiteral("#%1").arg(n->node), QString::fromStdString(m_graph.opcodeName(n->node)),
                                                   ms(n->totalNs()), layoutText(n->outputLayout), QString::fromStdString(n->reason)});
        item->setData(0, Qt::UserRole, n->node);
        for (int column = 0; column < m_nodes->columnCount(); ++column)
            item->setToolTip(column, QString::fromStdString(n->reason));
    }
    m_copies->clear();
    for (const synth::EdgeCost* c :
         explain::costliestCopies(e.breakdownA, widgetlimits::kExplainListed)) {
        auto* item = new QTreeWidgetItem(m_copies, {QStringLiteral("#%1 → #%2").arg(c->producer).arg(c->consumer), ms(c->copyNs),
                                                    layoutText(c->fromLayout) + QStringLiteral(" → ") + layoutText(c->toLayout),
                                                    QString::fromStdString(c->reason)});
        item->setData(0, Qt::UserRole, c->consumer);
        for (int column = 0; column < m_copies->columnCount(); ++column)
            item->setToolTip(column, QString::fromStdString(c->reason));
    }
    m_copies->setVisible(m_graph.isLayout() || m_copies->topLevelItemCount() > 0);
    // Short columns as wide as their text, so the costs show in a narrow pane; the reason last.
    for (QTreeWidget* list : {m_nodes, m_copies})
        for (int column = 0; column + 1 < list->columnCount(); ++column)
            list->resizeColumnToContents(column);
    m_lists->fit();
}

int ExplainPanel::shortColumnsWidth(const QTreeWidget& list) {
    int width = 0;
    for (int column = 0; column + 1 < list.columnCount(); ++column)
        width += list.columnWidth(column);
    return width;
}

void ExplainPanel::selectNode(int node) {
    if (node == m_node) return;  // a click on a row also moves the current row: drawn once
    m_node = node;
    showMemory();
}

void ExplainPanel::showMemory() {
    if (showKernelTile()) return;
    if (m_graph.isNull() || m_node < 0 || m_node >= m_graph.numNodes()) {
        m_memory->clear(tr("Select a node to see its tensor in memory."));
        showWhy({});
        return;
    }
    const TensorShape shape = tensorShape(m_graph.nodeFeatures(m_node), m_graph.nodeFeatureWidth());
    // Under the chosen configuration when it is explained, else the file's default layout.
    const bool explained = m_explanation && m_graph.isLayout();
    const std::vector<int> layout =
        explained ? m_explanation->breakdownA.nodes[static_cast<size_t>(m_node)].outputLayout : std::vector<int>{};
    const QString title = explained ? tr("#%1 %2 under %3").arg(m_node).arg(QString::fromStdString(m_graph.opcodeName(m_node)), m_explanation->aLabel)
                                    : tr("#%1 %2 (the file's default layout)").arg(m_node).arg(QString::fromStdString(m_graph.opcodeName(m_node)));
    m_memory->setTensor(title, memoryTiling(shape, layout));
    showWhy(nodeWhy());
}

// A tile file's explained configuration: the tiles its bounds cut the kernel's output into (none
// selected, or the output), or its input's or kernel's. False for anything else, drawn as a tensor.
bool ExplainPanel::showKernelTile() {
    if (!m_explanation || m_graph.isLayout() || m_graph.isNull()) return false;
    const auto& tensors = m_explanation->tiledA;
    const auto shown =
        std::find_if(tensors.begin(), tensors.end(), [this](const explain::TiledTensor& t) {
            return m_node < 0 ? t.role == "output" : t.node == m_node;
        });
    if (shown == tensors.end() || shown->node >= m_graph.numNodes()) return false;
    const TensorShape shape =
        tensorShape(m_graph.nodeFeatures(shown->node), m_graph.nodeFeatureWidth());
    m_memory->setTensor(tr("#%1 %2, the kernel's %3, in %4's tiles")
                            .arg(shown->node)
                            .arg(QString::fromStdString(m_graph.opcodeName(shown->node)),
                                 QString::fromStdString(shown->role), m_explanation->aLabel),
                        kernelTiling(shape, shown->layout, shown->tile));
    showWhy(m_node < 0 ? QString() : nodeWhy());
    return true;
}

QString ExplainPanel::nodeWhy() const {
    if (!m_explanation || m_node < 0 ||
        m_node >= static_cast<int>(m_explanation->breakdownA.nodes.size()))
        return {};
    const synth::NodeCost& n = m_explanation->breakdownA.nodes[static_cast<size_t>(m_node)];
    if (n.reason.empty()) return {};
    return tr("Why #%1 takes %2: %3")
        .arg(m_node)
        .arg(ms(n.totalNs()), QString::fromStdString(n.reason));
}

QString ExplainPanel::copyWhy(const QTreeWidgetItem& item) {
    return tr("Why the copy %1 takes %2: %3").arg(item.text(0), item.text(1), item.text(3));
}

void ExplainPanel::showWhy(const QString& text) {
    m_why->setText(text);
    m_why->setVisible(!text.isEmpty());
}

QString ExplainPanel::whyText() const {
    return m_why->text();
}

QString ExplainPanel::headerText() const { return m_header->text(); }
QString ExplainPanel::detailsText() const {
    return m_details->text();
}

QString ExplainPanel::comparisonText() const { return m_comparison->text(); }

}  // namespace tpg
