#include "ConfigPanel.h"

#include <QAction>
#include <QBrush>
#include <QClipboard>
#include <QColor>
#include <QDir>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QResizeEvent>
#include <QSaveFile>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ConfigDetailsModel.h"
#include "ConfigTableModel.h"
#include "CountText.h"
#include "FileKind.h"
#include "FilePredictions.h"
#include "FittingSplitter.h"
#include "JobRunner.h"
#include "ModelNameText.h"
#include "RuntimeHistogram.h"
#include "TensorText.h"
#include "WidgetLimits.h"
#include "WrappableName.h"
#include "graph/Schema.h"
#include "synth/TpuCostModel.h"

namespace tpg {

namespace {
QString filterHelp() {
    return QObject::tr("A configuration (12), \"top N\" (the N fastest; ties share a rank), a ratio to the best "
                       "(<1.05: within 5% of it, on every kind of file), or a runtime with its unit (<2.5ms, "
                       ">=300us: ns, us, µs, ms, s); comparisons combine (>=2.1ms <2.3ms). Without measured runtimes "
                       "(a test split) top N follows the model's predicted ranks.");
}

constexpr int kBoundDigits = 10;  // a bin's edge written back exactly enough that its range holds its count
const QColor kFilterErrorColor(0xfd, 0xe2, 0xe1);

// A runtime as the filter reads it: a number with its unit.
QString runtimeBound(double ns) {
    if (ns >= 1e6) return QString::number(ns / 1e6, 'g', kBoundDigits) + QStringLiteral("ms");
    if (ns >= 1e3) return QString::number(ns / 1e3, 'g', kBoundDigits) + QStringLiteral("us");
    return QString::number(ns, 'g', kBoundDigits) + QStringLiteral("ns");
}

}  // namespace

ConfigPanel::ConfigPanel(QWidget* parent) : QWidget(parent) {
    m_model = new ConfigTableModel(this);
    m_exportRunner = new JobRunner(QStringLiteral("table-export"), this);
    connect(m_exportRunner, &JobRunner::finished, this,
            [this](quint64 id, const QVariant& error) { exportDone(id, error.toString()); });
    connect(m_exportRunner, &JobRunner::failed, this, &ConfigPanel::exportDone);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter: 12 · top 10 · <1.05 · <2.5ms"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setToolTip(filterHelp());
    m_histogram = new RuntimeHistogram(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);  // a refused filter's reason must not widen the dock
    m_agreement = new QLabel(this);
    m_agreement->setWordWrap(true);
    m_agreement->hide();
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ConfigTableModel::ConfigColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    m_table->viewport()->installEventFilter(this);
    m_detailsModel = new ConfigDetailsModel(this);
    m_details = new QTreeView(this);
    m_details->setModel(m_detailsModel);
    m_details->setRootIsDecorated(false);
    m_details->setUniformRowHeights(true);
    m_details->setAlternatingRowColors(true);
    m_decodePoll = new QTimer(this);
    m_decodePoll->setInterval(widgetlimits::kDecodeProgressPollMs);
    connect(m_decodePoll, &QTimer::timeout, this, &ConfigPanel::showDetails);

    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_histogram);
    topLayout->addWidget(m_filter);
    topLayout->addWidget(m_summary);
    topLayout->addWidget(m_agreement);
    topLayout->addWidget(m_table, 1);
    // The table as wide as its columns (it had been cut at "Predicted ra…" on a 1366-px screen
    // beside a details pane of empty space), the details the rest.
    m_split = new FittingSplitter(this);
    m_split->addWidget(top);
    m_split->addWidget(m_details);
    m_split->setWantedWidth(0, [this] {
        const double share = m_graph.isNull() || m_graph.isLayout()
                                 ? widgetlimits::kConfigTableMaxShare
                                 : widgetlimits::kTileConfigTableMaxShare;
        return std::min(widthForColumns(*m_table, m_tableColumnsWidth),
                        static_cast<int>(share * m_split->width()));
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_split);

    connect(m_histogram, &RuntimeHistogram::binClicked, this, [this](double from, double to) {
        const bool last = to >= m_histogram->maximum();  // the last bin holds its top value
        m_filter->setText(QStringLiteral(">=%1 %2%3")
                              .arg(runtimeBound(from), last ? QStringLiteral("<=") : QStringLiteral("<"),
                                   runtimeBound(to)));
    });
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_model->setFilter(text);
        showFilterState();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) chooseConfig(m_model->configAt(current.row()));
            });
    addTableActions();
    connect(m_details, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
        const QVariant n = index.siblingAtColumn(0).data(ConfigDetailsModel::NodeRole);
        if (n.isValid()) emit nodeActivated(n.toInt());
    });
    setGraph(TpuGraph());
}

// Copy and export: the table's figures into a spreadsheet, unformatted (no grouping, no "x").
void ConfigPanel::addTableActions() {
    auto* copy = new QAction(tr("Copy Table Row"), m_table);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    copy->setToolTip(
        tr("Copy the chosen configuration's row, with the column names, as tab-separated text"));
    connect(copy, &QAction::triggered, this, [this] { copyCurrentRow(); });
    m_exportAction = new QAction(tr("Export Table as CSV…"), m_table);
    m_exportAction->setToolTip(
        tr("Write every configuration shown (filtered, in the table's order) as CSV"));
    connect(m_exportAction, &QAction::triggered, this, [this] {
        const FileKind kind{QStringLiteral("table-csv"), tr("CSV files (*.csv)"),
                            QStringLiteral("csv")};
        const QString name = m_graph.isNull() ? QStringLiteral("configurations.csv")
                                              : QString::fromStdString(m_graph.name()) +
                                                    QStringLiteral("-configurations.csv");
        const QString path = chooseFileToSave(this, tr("Export Table as CSV"), kind, name);
        if (!path.isEmpty()) startExport(path);
    });
    m_table->addAction(copy);
    m_table->addAction(m_exportAction);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
}

bool ConfigPanel::copyCurrentRow() const {
    return copyRow(m_table->currentIndex().row());
}

bool ConfigPanel::copyRow(int row) const {
    if (row < 0 || row >= m_model->rowCount()) return false;
    QGuiApplication::clipboard()->setText(m_model->snapshot().text(row, row, QLatin1Char('\t')));
    return true;
}

namespace {
// "" when `table` is written to `path` whole (or not at all), else why not.
QString writeCsv(const ConfigTableSnapshot& table, const QString& path) {
    QSaveFile file(path);
    const QByteArray text =
        table.text(0, static_cast<int>(table.rows.size()) - 1, QLatin1Char(',')).toUtf8();
    if (file.open(QIODevice::WriteOnly) && file.write(text) == text.size() && file.commit())
        return {};
    return QObject::tr("Could not write %1: %2")
        .arg(QDir::toNativeSeparators(path), file.errorString());
}
}  // namespace

bool ConfigPanel::exportTable(const QString& path, QString* error) const {
    const QString why = writeCsv(m_model->snapshot(), path);
    if (error) *error = why;
    return why.isEmpty();
}

// On a worker: 100,000 rows take about 0.1 s to write out, beyond what the GUI thread may spend.
void ConfigPanel::startExport(const QString& path) {
    ConfigTableSnapshot table = m_model->snapshot();
    const Export request{path, static_cast<int64_t>(table.rows.size())};
    // No lane: a second export to another file must not cancel the first.
    const quint64 job = m_exportRunner->submit({}, [table = std::move(table), path](JobControl&) {
        return QVariant(writeCsv(table, path));
    });
    m_exports.insert(job, request);
}

void ConfigPanel::exportDone(quint64 job, const QString& error) {
    if (!m_exports.contains(job)) return;
    const Export request = m_exports.take(job);
    if (!error.isEmpty()) {
        QMessageBox::warning(this, tr("Export Table as CSV"), error);
        return;
    }
    emit statusMessage(tr("Exported %1 to %2")
                           .arg(countOf(request.rows, tr("configuration"), tr("configurations")),
                                QDir::toNativeSeparators(request.path)));
}

void ConfigPanel::setGraph(const TpuGraph& graph) {
    m_graph = graph;
    m_config = -1;
    m_tileDimensions = tileDimensions(graph);
    std::vector<int32_t> configurable;
    QStringList opcodes;
    if (!graph.isNull() && graph.isLayout())
        for (const int32_t node : graph.configurableNodes()) {
            configurable.push_back(node);
            opcodes << QString::fromStdString(graph.opcodeName(node));
        }
    m_detailsModel->setNodes(std::move(configurable), std::move(opcodes));
    m_decodePoll->stop();
    m_filter->blockSignals(true);
    m_filter->clear();
    m_filter->blockSignals(false);
    m_model->setGraph(graph);
    m_table->scrollToTop();  // a reset keeps the last file's scroll position, meaningless here
    if (graph.isNull())
        m_histogram->clear();
    else
        m_histogram->setRuntimes(graph.runtimesKnown() ? graph.runtimes() : std::vector<double>{},
                                 false);
    m_histogram->setBest(m_model->bestConfig());
    m_histogram->setMarked(-1);
    m_agreement->hide();
    showColumns();
    showFilterState();
    showDetails();
    emit nodeMarksChanged({});
    emit configChosen(-1);
}

void ConfigPanel::showColumns() {
    for (int c = 0; c < ConfigTableModel::ColumnCount; ++c)
        m_table->setColumnHidden(c, !m_model->isColumnShown(c));
    m_tableColumnsWidth = sizeColumnsUnstretched(*m_table->horizontalHeader(), [this] {
        m_table->resizeColumnsToContents();
        int width = 0;
        for (int c = 0; c < ConfigTableModel::ColumnCount; ++c)
            if (!m_table->isColumnHidden(c)) width += m_table->columnWidth(c);
        return width;
    });
    m_split->fit();
}

void ConfigPanel::setPredictionsPending(bool pending) {
    m_model->setPredictionsPending(pending);
    showColumns();
}

void ConfigPanel::setPredictions(std::shared_ptr<const FilePredictions> predictions) {
    m_agreement->setVisible(predictions != nullptr);
    if (predictions) {
        m_agreement->setText(tr("%1 — %2").arg(
            wrappableName(shortModelName(predictions->modelName)), predictions->agreementText()));
        m_agreement->setToolTip(
            tr("%1\n\nHow well the model's ranking of this file's configurations matches the "
               "measured runtimes: Kendall's tau and ordered-pair accuracy (1 = perfect), "
               "and how much slower the best of the model's top 1 / top 5 is than the best.")
                .arg(predictions->modelName));
    }
    if (!m_graph.isNull() && !m_graph.runtimesKnown()) {
        m_histogram->setRuntimes(predictions ? predictions->predictedNs : std::vector<double>{}, predictions != nullptr);
        m_histogram->setMarked(m_config);
    }
    m_model->setPredictions(std::move(predictions));  // re-applies a filter that needed them
    showColumns();
    showFilterState();
}

void ConfigPanel::showFilterState() {
    const QString error = m_model->filterError();
    m_filter->setStyleSheet(error.isEmpty() ? QString()
                                            : QStringLiteral("QLineEdit { background: %1; }").arg(kFilterErrorColor.name()));
    m_filter->setToolTip(error.isEmpty() ? filterHelp() : error);
    const int row = m_model->rowOf(m_config);
    if (row >= 0) m_table->selectRow(row);
    updateSummary();
}

// The decision rests on the height the table would have under the full histogram, the same in
// either state, so switching cannot flip it back.
void ConfigPanel::fitHistogram() {
    const int rowHeight = m_table->verticalHeader()->defaultSectionSize();
    const int viewportIfFull =
        m_table->viewport()->height() - (RuntimeHistogram::normalHeight() - m_histogram->height());
    m_histogram->setCompact(viewportIfFull < widgetlimits::kConfigTableMinRows * rowHeight);
}

// A table made shorter (the agreement line appearing above it, the dock resized) keeps the chosen
// row in view if it was: else the fastest configuration, chosen at start-up, sat just below.
bool ConfigPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_table->viewport() && event->type() == QEvent::Resize) {
        fitHistogram();
        const QRect row = m_table->visualRect(m_table->currentIndex());
        const int oldHeight = static_cast<QResizeEvent*>(event)->oldSize().height();
        if (row.isValid() && row.top() >= 0 && row.bottom() < oldHeight)
            // After the view has taken its new size and scroll range.
            QTimer::singleShot(0, m_table, [this] { m_table->scrollTo(m_table->currentIndex()); });
    }
    return QWidget::eventFilter(watched, event);
}

QString ConfigPanel::agreementText() const { return m_agreement->isHidden() ? QString() : m_agreement->text(); }

void ConfigPanel::updateSummary() {
    if (m_graph.isNull()) {
        m_summary->setText(tr("No graph open."));
        return;
    }
    QString s = m_model->rowCount() != m_graph.numConfigs()
                    ? tr("%1 of %2 configurations shown")
                          .arg(countText(m_model->rowCount()), countText(m_graph.numConfigs()))
                    : countOf(m_graph.numConfigs(), tr("configuration"), tr("configurations"));
    if (!m_model->filterError().isEmpty()) s = m_model->filterError() + QStringLiteral(" · ") + s;
    if (!m_graph.runtimesKnown())
        s += tr(" · runtimes unknown (test split)");
    else if (m_model->bestConfig() >= 0)
        s += tr(" · best: config %1").arg(m_model->bestConfig());
    const QString source = QString::fromStdString(m_graph.runtimeSource());
    if (!source.isEmpty()) s += tr(" · runtimes: the test split's ground truth");
    m_summary->setToolTip(source.isEmpty() ? QString()
                                           : tr("This test-split file's runtimes are zero, as in "
                                                "the real dataset; they come from %1")
                                                 .arg(QDir::toNativeSeparators(source)));
    if (m_graph.isLayout())
        s += tr(" · %1").arg(
            countOf(m_graph.numConfigurable(), tr("configurable node"), tr("configurable nodes")));
    m_summary->setText(s);
}

QString ConfigPanel::summaryText() const { return m_summary->text(); }

void ConfigPanel::chooseConfig(int64_t config) {
    if (m_graph.isNull() || config < -1 || config >= m_graph.numConfigs()) return;
    if (config == m_config) return;
    m_config = config;
    m_histogram->setMarked(config);
    const int row = config >= 0 ? m_model->rowOf(config) : -1;
    if (row >= 0 && m_table->currentIndex().row() != row) m_table->selectRow(row);
    showDetails();
    emit configChosen(config);
}

void ConfigPanel::showDetailsMessage(const QString& header, const QString& text, bool error) {
    m_detailsModel->showMessage(header, text, error);
    m_details->setFirstColumnSpanned(0, {}, true);  // the whole message, not cut by a column
    m_details->resizeColumnToContents(0);
}

void ConfigPanel::showDetailsError(const QString& header, const QString& message) {
    showDetailsMessage(header, tr("Cannot read configuration %1: %2").arg(m_config).arg(message),
                       true);
}

void ConfigPanel::showDetails() {
    m_decodePoll->stop();
    if (m_graph.isNull() || m_config < 0) {
        m_detailsModel->showRows({tr("Choose a configuration to see what it sets")}, {});
        emit nodeMarksChanged({});
        return;
    }
    const TpuGraph& g = m_graph;
    if (!g.isLayout()) {
        showTileDetails();
        return;
    }
    const auto& table = g.layoutConfigs();
    const int64_t w = table->width();
    const bool named = w == schema::kLayoutConfigWidth;
    const QStringList headers = layoutHeaders(w, named);
    if (!table->error().empty()) {
        showDetailsError(headers.front(), QString::fromStdString(table->error()));
        return;
    }
    if (table->available() <= m_config) {
        // A deflated table decodes in the background; reading this row now would block the GUI.
        // Across the row: the node column alone had cut it to "decoding con…".
        showDetailsMessage(headers.front(),
                           tr("Decompressing the file's configurations… %1%")
                               .arg(static_cast<int>(table->progress() * 100)),
                           false);
        m_decodePoll->start();
        return;
    }
    std::vector<float> row;
    try {
        row = table->config(m_config);
    } catch (const std::exception& e) {
        showDetailsError(headers.front(), QString::fromStdString(e.what()));
        return;
    }
    const QHash<int32_t, QString> marks = layoutMarks(row, w, named);
    if (named) {
        m_detailsModel->showLayout(headers, std::move(row));
    } else {
        showTrimmedRows(headers, row, w);
        m_detailsModel->setHeaderToolTip(
            0, tr("%1 columns per node, not 18: a trimmed copy, column names unknown").arg(w));
    }
    sizeDetailColumns();
    emit nodeMarksChanged(marks);
}

void ConfigPanel::showTileDetails() {
    const TpuGraph& g = m_graph;
    const bool dimensions = !m_tileDimensions.empty();
    QStringList headers{tr("Tile config %1: feature").arg(m_config), tr("Value")};
    if (dimensions) headers << tr("Dimension");
    const float* f = g.tileConfig(m_config);
    const auto& names = schema::tileConfigFeatureNames();
    std::vector<QStringList> rows;
    for (int64_t i = 0; i < g.configFeatureWidth(); ++i) {
        QStringList cells{
            QString::fromStdString(schema::featureName(
                names, static_cast<int>(g.configFeatureWidth()), static_cast<int>(i))),
            QString::number(static_cast<double>(f[i]), 'g', 8)};
        if (dimensions) {
            const int64_t d = m_tileDimensions[static_cast<size_t>(i)];
            cells << (d > 0 ? countText(d) : d < 0 ? QStringLiteral("–") : QString());
        }
        rows.push_back(cells);
    }
    m_detailsModel->showRows(headers, std::move(rows));
    if (dimensions)
        m_detailsModel->setHeaderToolTip(2, tr("The size of the dimension a bound tiles (0: all of "
                                               "it); – where the kernel has no such dimension"));
    sizeDetailColumns();
}

std::vector<int64_t> ConfigPanel::tileDimensions(const TpuGraph& g) {
    if (g.isNull() || g.isLayout()) return {};
    try {
        const synth::TpuCostModel tpu(g);
        std::vector<int64_t> out;
        for (int64_t i = 0; i < g.configFeatureWidth(); ++i)
            out.push_back(tpu.tileBoundDimension(static_cast<int>(i)));
        return out;
    } catch (const std::exception&) {
        return {};  // a trimmed copy: its bounds are listed without their dimensions
    }
}

// Named slots for the schema's 18 columns; a trimmed copy's raw columns under their positions.
QStringList ConfigPanel::layoutHeaders(int64_t w, bool named) const {
    if (named)
        return {tr("Config %1: node").arg(m_config), tr("Opcode"), tr("Output layout"),
                tr("Input layout"), tr("Kernel layout")};
    // A trimmed copy: which columns survived is unknown, so no layout is reconstructed; the raw
    // values stand under their positions.
    QStringList headers{tr("Config %1: node").arg(m_config)};
    for (int64_t i = 0; i < w; ++i) headers << QStringLiteral("col_%1").arg(i);
    return headers;
}

void ConfigPanel::showTrimmedRows(const QStringList& headers, const std::vector<float>& row,
                                  int64_t w) {
    const auto& nodes = m_graph.configurableNodes();
    std::vector<QStringList> rows;
    for (size_t k = 0; k < nodes.size(); ++k) {
        QStringList cells{QStringLiteral("#%1").arg(nodes[k])};
        for (int64_t i = 0; i < w; ++i)
            cells << QString::number(static_cast<double>(row[k * static_cast<size_t>(w) + i]));
        rows.push_back(cells);
    }
    m_detailsModel->showRows(headers, std::move(rows), {nodes.begin(), nodes.end()});
}

namespace {

// layoutString of a six-value slot, formatted once per distinct slot: a file's slots take few
// distinct layouts, and formatting each of a 2,594-node configuration's 7,782 slots anew was the
// largest part of a choice's time.
class SlotTexts {
public:
    const QString& operator()(const float* f) {
        quint64 key = 0;
        for (int i = 0; i < ConfigDetailsModel::kSlotWidth; ++i) {
            const float v = f[i];
            if (!(v >= -1 && v <= 254) || v != std::trunc(v)) {  // not a dimension index: no key
                m_uncached = layoutString(f, ConfigDetailsModel::kSlotWidth);
                return m_uncached;
            }
            key = key << 8 | static_cast<quint64>(v + 1);
        }
        auto it = m_texts.find(key);
        if (it == m_texts.end())
            it = m_texts.insert(key, layoutString(f, ConfigDetailsModel::kSlotWidth));
        return *it;
    }

private:
    QHash<quint64, QString> m_texts;
    QString m_uncached;
};

}  // namespace

// The graph's marks: the nodes the configuration sets, each with what it sets.
QHash<int32_t, QString> ConfigPanel::layoutMarks(const std::vector<float>& row, int64_t w,
                                                 bool named) const {
    QHash<int32_t, QString> marks;
    const auto& nodes = m_graph.configurableNodes();
    marks.reserve(static_cast<qsizetype>(nodes.size()));
    const QString prefix = tr("config %1: ").arg(m_config);
    SlotTexts slotText;
    for (size_t k = 0; k < nodes.size(); ++k) {
        const float* f = row.data() + static_cast<int64_t>(k) * w;
        if (named && isDefaultLayout(f, static_cast<int>(w))) continue;
        QString text = prefix;
        if (named) {
            // Not QLatin1String: the UTF-8 "·" read as Latin-1 showed as "Â·".
            static const QString names[] = {QStringLiteral("output "), QStringLiteral(" · input "),
                                            QStringLiteral(" · kernel ")};
            text.reserve(prefix.size() + 80);
            for (int s = 0; s < ConfigDetailsModel::kLayoutSlots; ++s) {
                text += names[s];
                text += slotText(f + static_cast<ptrdiff_t>(s) * ConfigDetailsModel::kSlotWidth);
            }
        } else {
            for (int64_t i = 0; i < w; ++i)
                text += (i > 0 ? QStringLiteral(", ") : QString()) +
                        QString::number(static_cast<double>(f[i]));
        }
        marks.insert(nodes[k], text);
    }
    return marks;
}

// Each column as wide as its widest cell or its header, measured on that one cell: measuring
// every row of a 2,594-node configuration took a third of a choice's time.
void ConfigPanel::sizeDetailColumns() {
    QHeaderView* header = m_details->header();
    for (int c = 0; c < m_detailsModel->columnCount(); ++c) {
        int width = header->sectionSizeHint(c);
        if (m_detailsModel->rowCount() > 0)
            width = std::max(
                width,
                m_details->sizeHintForIndex(m_detailsModel->index(m_detailsModel->widestRow(c), c))
                    .width());
        header->resizeSection(c, width);
    }
}

QString ConfigPanel::detailText() const {
    const ConfigDetailsModel& m = *m_detailsModel;
    QStringList h;
    for (int c = 0; c < m.columnCount(); ++c)
        h << m.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    QString out = h.join(QStringLiteral(" | "));
    for (int r = 0; r < m.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < m.columnCount(); ++c) cells << m.index(r, c).data().toString();
        out += QLatin1Char('\n') + cells.join(QStringLiteral(" | "));
    }
    return out;
}

}  // namespace tpg
