#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <memory>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg {

class ConfigFilter;
struct FilePredictions;

// The table as shown (its rows, in order, and its columns), copied so that a worker can write it
// out while the table goes on changing; the graph and predictions are shared, immutable.
struct ConfigTableSnapshot {
    TpuGraph graph;
    std::shared_ptr<const FilePredictions> predictions;
    std::vector<int64_t> rows;  // configs in display order
    std::vector<int64_t> rank;  // per config; empty without measured runtimes
    int64_t best = -1;
    std::vector<int> columns;  // ConfigTableModel::Column values shown
    QStringList headers;       // their names

    // Rows [first, last], a header line first, values unformatted (no grouping, no unit), one
    // line per row: "," separates (and quotes where needed) for a CSV file, "\t" for the clipboard.
    QString text(int first, int last, QChar separator) const;
};

// One row per configuration: index, runtime, normalised runtime (tile), relative to the best,
// rank (equal runtimes share one), and once a model has scored the file its predicted runtime,
// predicted rank (equal scores share one), the synthetic TPU's runtime and (layout) the
// violation ratio. Cells are computed when the view asks for them; sorting and filtering permute
// row indices (no copies, no QVariant sorting), so 100,000 layout configurations stay instant.
// Configuration features are not read here: the panel reads one row when it is chosen.
class ConfigTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        ConfigColumn,
        RuntimeColumn,
        NormalizerColumn,
        NormalizedColumn,
        RelativeColumn,
        RankColumn,
        PredictedColumn,
        PredictedRankColumn,
        SynthColumn,
        ViolationColumn,
        ColumnCount
    };

    explicit ConfigTableModel(QObject* parent = nullptr);

    void setGraph(const TpuGraph& graph);
    const TpuGraph& graph() const { return m_graph; }
    // Predictions for the current graph (null clears them).
    void setPredictions(std::shared_ptr<const FilePredictions> predictions);
    const std::shared_ptr<const FilePredictions>& predictions() const { return m_predictions; }
    // While a model scores the file (minutes on a big one), the predicted columns are shown with
    // "…": the table takes its final width at once instead of widening when they come.
    void setPredictionsPending(bool pending);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // A ConfigFilter ("12", "top 10", "<1.05", "<2.5ms", "" for all) over the measured runtimes,
    // or the predicted ones where none are measured. Returns false (and keeps every row) for text
    // it cannot apply; filterError() says why.
    bool setFilter(const QString& text);
    QString filter() const { return m_filter; }
    QString filterError() const { return m_filterError; }

    ConfigTableSnapshot snapshot() const;

    int64_t configAt(int row) const { return m_rows[static_cast<size_t>(row)]; }
    int rowOf(int64_t config) const;  // -1 when filtered out
    bool isColumnShown(int column) const;
    // The value configs are ranked by: normalised runtime (tile) or runtime (layout).
    double rankingValue(int64_t config) const { return m_graph.normalizedRuntime(config); }
    int64_t rank(int64_t config) const {
        return m_rank.empty() ? -1 : m_rank[static_cast<size_t>(config)];
    }
    int64_t bestConfig() const { return m_best; }

private:
    void applyOrder();
    // Without measured runtimes the model's, when it could turn its scores into runtimes.
    bool hasPredictedRuntimes() const;
    // Why `filter` cannot apply to this file now ("" when it can).
    QString unavailableReason(const ConfigFilter& filter) const;
    double filterBest() const;  // what ratios are to: the best measured (or predicted) value; 0: none
    bool accepts(const ConfigFilter& filter, int64_t config, double best) const;

    TpuGraph m_graph;
    std::shared_ptr<const FilePredictions> m_predictions;
    std::vector<int64_t> m_rank;  // 1 = fastest; empty when runtimes are unknown (test split)
    std::vector<int64_t> m_rows;  // configs in display order, after filtering
    int64_t m_best = -1;
    int m_sortColumn = ConfigColumn;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
    QString m_filter;
    QString m_filterError;
    QString m_lastFilterText;  // as typed, re-applied when predictions arrive
    bool m_pending = false;    // predictions asked for and not yet here
};

}  // namespace tpg
