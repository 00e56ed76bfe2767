#pragma once

#include <QHash>
#include <QWidget>
#include <memory>

#include "graph/TpuGraph.h"

class QAction;
class QLabel;
class QLineEdit;
class QTableView;
class QTimer;
class QTreeView;

namespace tpg {

class ConfigDetailsModel;
class ConfigTableModel;
class JobRunner;
class FittingSplitter;
class RuntimeHistogram;
struct FilePredictions;

// The configurations of a graph: a sortable, filterable table (lazy: cells are computed on
// demand) and, for the chosen configuration, what it sets: the 24 tile features by name, or
// each configurable node's output/input/kernel layout as a minor-to-major list.
class ConfigPanel : public QWidget {
    Q_OBJECT
public:
    explicit ConfigPanel(QWidget* parent = nullptr);

    void setGraph(const TpuGraph& graph);
    // A model's predictions for the current graph: predicted columns and the agreement line.
    void setPredictions(std::shared_ptr<const FilePredictions> predictions);
    // A model is scoring the file: its columns show "…" until setPredictions (false: it will not
    // come, failed or cancelled).
    void setPredictionsPending(bool pending);
    QString agreementText() const;
    // Chooses `config` (selects its row when shown); -1 clears the choice.
    void chooseConfig(int64_t config);
    int64_t chosenConfig() const { return m_config; }
    ConfigTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QLineEdit* filterEdit() const { return m_filter; }
    RuntimeHistogram* histogram() const { return m_histogram; }
    QString summaryText() const;
    // The details of the chosen configuration as text ("name: value" lines).
    QString detailText() const;
    // A row (the chosen one) with the column names, tab-separated, to the clipboard; false
    // without one.
    bool copyRow(int row) const;
    bool copyCurrentRow() const;
    QAction* exportTableAction() const { return m_exportAction; }
    // Every row shown (filtered, in the table's order) as CSV; false with `error` set on failure.
    bool exportTable(const QString& path, QString* error) const;

signals:
    void configChosen(qint64 config);  // -1: none
    // Configurable nodes whose layouts the chosen configuration sets (not all default),
    // with a description of those layouts.
    void nodeMarksChanged(const QHash<int32_t, QString>& marks);
    void nodeActivated(int node);
    void statusMessage(const QString& text);  // what an export did

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void addTableActions();
    void startExport(const QString& path);  // on a worker; the status bar told when done
    void exportDone(quint64 job, const QString& error);
    void showDetails();
    void showTileDetails();
    static std::vector<int64_t> tileDimensions(const TpuGraph& g);
    QStringList layoutHeaders(int64_t w, bool named) const;
    // A trimmed copy's configuration (`w` columns a node, not 18): its raw values.
    void showTrimmedRows(const QStringList& headers, const std::vector<float>& row, int64_t w);
    QHash<int32_t, QString> layoutMarks(const std::vector<float>& row, int64_t w, bool named) const;
    void sizeDetailColumns();
    // One line across the details, under `header`.
    void showDetailsMessage(const QString& header, const QString& text, bool error);
    // A configuration that cannot be read: the whole message across the row, not cut by a column.
    void showDetailsError(const QString& header, const QString& message);
    // The filter's outcome where the user looks: a reddish line edit and the reason when refused,
    // the count of rows shown, the chosen row kept selected.
    void showFilterState();
    void updateSummary();
    void showColumns();
    // A short dock gets a compact histogram, so the table keeps kConfigTableMinRows rows.
    void fitHistogram();

    TpuGraph m_graph;
    // Tile files: the size of the dimension each config column bounds (-1: the kernel has no such
    // dimension, 0: not a bound); empty where the synthetic TPU cannot read the kernel.
    std::vector<int64_t> m_tileDimensions;
    int64_t m_config = -1;
    ConfigTableModel* m_model;
    QLineEdit* m_filter;
    RuntimeHistogram* m_histogram;
    QLabel* m_summary;
    QLabel* m_agreement;
    QTableView* m_table;
    ConfigDetailsModel* m_detailsModel;
    QTreeView* m_details;
    FittingSplitter* m_split;
    int m_tableColumnsWidth = 0;  // the shown columns as sized to their contents
    QAction* m_exportAction = nullptr;
    JobRunner* m_exportRunner;
    struct Export {
        QString path;
        int64_t rows = 0;
    };
    QHash<quint64, Export> m_exports;  // by job: what the status bar says when it is written
    QTimer* m_decodePoll;  // re-shows details while a deflated config table is still decoding
};

}  // namespace tpg
