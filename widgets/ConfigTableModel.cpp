#include "ConfigTableModel.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ConfigFilter.h"
#include "CountText.h"
#include "FilePredictions.h"

namespace tpg {

ConfigTableModel::ConfigTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ConfigTableModel::setGraph(const TpuGraph& graph) {
    beginResetModel();
    m_graph = graph;
    m_rank.clear();
    m_best = -1;
    m_filter.clear();
    m_filterError.clear();
    m_lastFilterText.clear();
    const int64_t c = graph.isNull() ? 0 : graph.numConfigs();
    m_predictions.reset();
    m_pending = false;
    if (c > 0 && graph.runtimesKnown()) {
        std::vector<double> value(static_cast<size_t>(c));
        for (int64_t i = 0; i < c; ++i) value[static_cast<size_t>(i)] = graph.normalizedRuntime(i);
        m_rank = sharedRanks(value);
        m_best = std::min_element(value.begin(), value.end()) - value.begin();
    }
    m_rows.resize(static_cast<size_t>(c));
    std::iota(m_rows.begin(), m_rows.end(), 0);
    applyOrder();
    endResetModel();
}

void ConfigTableModel::setPredictions(std::shared_ptr<const FilePredictions> predictions) {
    beginResetModel();
    m_predictions = std::move(predictions);
    if (m_predictions) m_pending = false;
    applyOrder();
    endResetModel();
    if (!m_graph.runtimesKnown() && !m_lastFilterText.isEmpty()) setFilter(m_lastFilterText);  // predictions can rank now
}

void ConfigTableModel::setPredictionsPending(bool pending) {
    if (pending == m_pending) return;
    // Only whether the predicted columns show, and their "…", change: rows and order stay.
    m_pending = pending;
    if (!m_predictions && rowCount() > 0)
        emit dataChanged(index(0, PredictedColumn), index(rowCount() - 1, ViolationColumn));
    emit headerDataChanged(Qt::Horizontal, PredictedColumn, ViolationColumn);
}

bool ConfigTableModel::isColumnShown(int column) const {
    if (column == NormalizerColumn || column == NormalizedColumn)
        return !m_graph.isNull() && !m_graph.isLayout();
    const bool waiting = m_pending && !m_predictions && !m_graph.isNull();
    if (column == PredictedColumn || column == PredictedRankColumn || column == SynthColumn)
        return m_predictions != nullptr || waiting;
    if (column == ViolationColumn)
        return (m_predictions != nullptr && !m_predictions->violationRatio.empty()) ||
               (waiting && m_graph.isLayout());
    return true;
}

int ConfigTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ConfigTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ConfigTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
        case ConfigColumn:
            return tr("Config");
        case RuntimeColumn:
            return tr("Runtime (ns)");
        case NormalizerColumn:
            return tr("Default (ns)");
        case NormalizedColumn:
            return tr("Normalised");
        case RelativeColumn:
            return tr("vs best");
        case RankColumn:
            return tr("Rank");
        case PredictedColumn: {
            const bool scoresOnly =
                m_predictions ? m_predictions->predictedNs.empty() : !m_graph.runtimesKnown();
            return scoresOnly ? tr("Predicted (score)") : tr("Predicted (ns)");
        }
        case PredictedRankColumn:
            return tr("Predicted rank");
        case SynthColumn:
            return tr("Synthetic TPU (ns)");
        case ViolationColumn:
            return tr("Violation ratio");
    }
    return {};
}

namespace {
// A cell's value unformatted (invalid where the cell is empty): the one reading of the graph and
// predictions per column, which the view formats and a copy or an export writes plain.
QVariant cellValue(const TpuGraph& graph, const FilePredictions* p,
                   const std::vector<int64_t>& rank, int64_t best, int64_t c, int column) {
    using M = ConfigTableModel;
    const auto i = static_cast<size_t>(c);
    const bool known = graph.runtimesKnown();
    switch (column) {
        case M::ConfigColumn:
            return QVariant::fromValue<qint64>(c);
        case M::RuntimeColumn:
            return known ? QVariant(graph.runtimes()[i]) : QVariant();
        case M::NormalizerColumn:
            return graph.isLayout() ? QVariant() : QVariant(graph.runtimeNormalizers()[i]);
        case M::NormalizedColumn:
            return graph.isLayout() || !known ? QVariant() : QVariant(graph.normalizedRuntime(c));
        case M::RelativeColumn: {
            const double b = known && best >= 0 ? graph.normalizedRuntime(best) : 0.0;
            return b > 0 ? QVariant(graph.normalizedRuntime(c) / b) : QVariant();
        }
        case M::RankColumn:
            return rank.empty() ? QVariant() : QVariant::fromValue<qint64>(rank[i]);
        case M::PredictedColumn:
            if (!p) return {};
            return p->predictedNs.empty() ? QVariant(p->scores()[i]) : QVariant(p->predictedNs[i]);
        case M::PredictedRankColumn:
            return p ? QVariant::fromValue<qint64>(p->predictedRank[i]) : QVariant();
        case M::SynthColumn:
            return p ? QVariant(p->synthNs[i]) : QVariant();
        case M::ViolationColumn:
            return p && !p->violationRatio.empty() ? QVariant(p->violationRatio[i]) : QVariant();
        default:
            return {};
    }
}
}  // namespace

QVariant ConfigTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const int64_t c = m_rows[static_cast<size_t>(index.row())];
    const bool known = m_graph.runtimesKnown();
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == ViolationColumn)
        return tr(
            "The share of configurable nodes whose largest output dimension is not the most minor "
            "one "
            "(after the TpuGraphs paper, which found it correlates with runtime).");
    if (role == Qt::ToolTipRole && index.column() >= PredictedColumn && m_predictions)
        return index.column() == SynthColumn
                   ? (m_predictions->synthIsGroundTruth()
                          ? tr("The synthetic TPU timed this synthetic file: its runtimes are "
                               "ground truth.")
                          : tr("An analytic estimate of the synthetic TPU, not this file's "
                               "hardware."))
                   : tr("%1; equal scores share a predicted rank.").arg(m_predictions->modelName);
    if (!m_predictions && index.column() >= PredictedColumn) {  // shown only while pending
        if (role == Qt::ToolTipRole)
            return tr("The model is scoring every configuration (progress in the status bar).");
        return role == Qt::DisplayRole ? QVariant(QStringLiteral("…")) : QVariant();
    }
    if (role == Qt::ToolTipRole && !known)
        return tr("This file's runtimes are all 0: a test-split file, runtimes unknown.");
    if (role != Qt::DisplayRole) return {};
    const QVariant v = cellValue(m_graph, m_predictions.get(), m_rank, m_best, c, index.column());
    if (index.column() == RuntimeColumn && !known) return tr("unknown");
    if (!v.isValid()) return {};
    switch (index.column()) {
        case ConfigColumn:
            return QString::number(v.toLongLong());
        case NormalizedColumn:
            return QString::number(v.toDouble(), 'f', 4);
        case RelativeColumn:
            return QStringLiteral("%1x").arg(v.toDouble(), 0, 'f', 3);
        case ViolationColumn:
            return QString::number(v.toDouble(), 'f', 3);
        case PredictedColumn:  // a score where the model gives no runtimes
            if (m_predictions->predictedNs.empty()) return QString::number(v.toDouble(), 'f', 4);
            break;
        default:
            break;
    }
    // Runtimes in whole ns and ranks, grouped as counts (not by the system's locale).
    return v.typeId() == QMetaType::LongLong ? countText(v.toLongLong())
                                             : countText(std::llround(v.toDouble()));
}

namespace {
// A value as a spreadsheet reads it: whole numbers without a fraction, others to 10 digits.
QString plainNumber(const QVariant& v) {
    if (!v.isValid()) return {};
    if (v.typeId() == QMetaType::LongLong) return QString::number(v.toLongLong());
    const double x = v.toDouble();
    return x == std::round(x) && std::abs(x) < 1e15 ? QString::number(static_cast<qint64>(x))
                                                    : QString::number(x, 'g', 10);
}

QString field(const QString& text, QChar separator) {
    if (separator != QLatin1Char(',') ||
        (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"'))))
        return text;
    return QLatin1Char('"') + QString(text).replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
           QLatin1Char('"');
}
}  // namespace

QString ConfigTableSnapshot::text(int first, int last, QChar separator) const {
    QStringList cells;
    for (const QString& h : headers) cells << field(h, separator);
    QString out = cells.join(separator) + QLatin1Char('\n');
    const int end = std::min(last, static_cast<int>(rows.size()) - 1);
    for (int row = std::max(0, first); row <= end; ++row) {
        cells.clear();
        for (const int c : columns)
            cells << plainNumber(
                cellValue(graph, predictions.get(), rank, best, rows[static_cast<size_t>(row)], c));
        out += cells.join(separator) + QLatin1Char('\n');
    }
    return out;
}

ConfigTableSnapshot ConfigTableModel::snapshot() const {
    ConfigTableSnapshot s{m_graph, m_predictions, m_rows, m_rank, m_best, {}, {}};
    for (int c = 0; c < ColumnCount; ++c)
        if (isColumnShown(c)) {
            s.columns.push_back(c);
            s.headers << headerData(c, Qt::Horizontal).toString();
        }
    return s;
}

void ConfigTableModel::sort(int column, Qt::SortOrder order) {
    m_sortColumn = column;
    m_sortOrder = order;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    applyOrder();
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void ConfigTableModel::applyOrder() {
    if (m_graph.isNull()) return;
    auto key = [this](int64_t c) -> double {
        switch (m_sortColumn) {
            case RuntimeColumn:
                return m_graph.runtimes()[static_cast<size_t>(c)];
            case NormalizerColumn:
                return m_graph.isLayout() ? 0.0
                                          : m_graph.runtimeNormalizers()[static_cast<size_t>(c)];
            case NormalizedColumn:
            case RelativeColumn:
                return rankingValue(c);
            case RankColumn:
                return m_rank.empty() ? static_cast<double>(c)
                                      : static_cast<double>(m_rank[static_cast<size_t>(c)]);
            case PredictedColumn:
            case PredictedRankColumn:
                return m_predictions ? m_predictions->scores()[static_cast<size_t>(c)] : static_cast<double>(c);
            case SynthColumn:
                return m_predictions ? m_predictions->synthNs[static_cast<size_t>(c)] : static_cast<double>(c);
            case ViolationColumn:
                return m_predictions && !m_predictions->violationRatio.empty()
                           ? m_predictions->violationRatio[static_cast<size_t>(c)]
                           : static_cast<double>(c);
            default:
                return static_cast<double>(c);
        }
    };
    const bool asc = m_sortOrder == Qt::AscendingOrder;
    std::stable_sort(m_rows.begin(), m_rows.end(), [&](int64_t a, int64_t b) {
        const double ka = key(a), kb = key(b);
        if (ka != kb) return asc ? ka < kb : ka > kb;
        return a < b;
    });
}

bool ConfigTableModel::setFilter(const QString& text) {
    m_lastFilterText = text;
    const ConfigFilter filter = ConfigFilter::parse(text);
    m_filterError = filter.error().isEmpty() ? unavailableReason(filter) : filter.error();
    const int64_t c = m_graph.isNull() ? 0 : m_graph.numConfigs();
    const bool keepAll = !m_filterError.isEmpty() || filter.isEmpty();
    const double best = filterBest();
    beginResetModel();
    m_filter = m_filterError.isEmpty() ? text.trimmed() : QString();
    m_rows.clear();
    for (int64_t x = 0; x < c; ++x)
        if (keepAll || accepts(filter, x, best)) m_rows.push_back(x);
    applyOrder();
    endResetModel();
    return m_filterError.isEmpty();
}

bool ConfigTableModel::hasPredictedRuntimes() const {
    return !m_graph.runtimesKnown() && m_predictions && !m_predictions->predictedNs.empty();
}

QString ConfigTableModel::unavailableReason(const ConfigFilter& filter) const {
    const bool measured = m_graph.runtimesKnown();
    const bool ranked = measured || (m_predictions && !m_predictions->predictedRank.empty());
    if (filter.needsRanks() && !ranked)
        return tr("This file has no measured runtimes (a test split) and no predictions yet: filter by "
                  "configuration number, or wait for the model's ranks");
    if (filter.needsRuntimes() && !measured && !hasPredictedRuntimes())
        return tr("This file has no measured runtimes (a test split), so no ratio or runtime to filter "
                  "by: use a configuration number or top N (by the model's ranks)");
    return {};
}

double ConfigTableModel::filterBest() const {
    if (m_graph.runtimesKnown()) return m_best >= 0 ? rankingValue(m_best) : 0;
    if (!hasPredictedRuntimes()) return 0;
    return *std::min_element(m_predictions->predictedNs.begin(), m_predictions->predictedNs.end());
}

bool ConfigTableModel::accepts(const ConfigFilter& filter, int64_t config, double best) const {
    const auto i = static_cast<size_t>(config);
    double ns = 0, ratio = 0;
    int64_t rank = 0;
    if (m_graph.runtimesKnown()) {
        ns = m_graph.runtimes()[i];
        ratio = best > 0 ? rankingValue(config) / best : 0;
        rank = m_rank.empty() ? 0 : m_rank[i];
    } else if (m_predictions && !m_predictions->predictedRank.empty()) {
        rank = m_predictions->predictedRank[i];
        if (hasPredictedRuntimes()) {
            ns = m_predictions->predictedNs[i];
            ratio = best > 0 ? ns / best : 0;
        }
    }
    return filter.accepts(config, ns, ratio, rank);
}

int ConfigTableModel::rowOf(int64_t config) const {
    auto it = std::find(m_rows.begin(), m_rows.end(), config);
    return it == m_rows.end() ? -1 : static_cast<int>(it - m_rows.begin());
}

}  // namespace tpg
