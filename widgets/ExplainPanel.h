#pragma once

#include <QHash>
#include <QString>
#include <QWidget>
#include <memory>
#include <optional>

#include "ConfigLayouts.h"
#include "UntilSeen.h"
#include "explain/CostExplanation.h"
#include "graph/TpuGraph.h"

class QChartView;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QTreeWidget;
class QTreeWidgetItem;

namespace tpg {

class FittingSplitter;
class JobRunner;
class MemoryLayoutView;
struct FilePredictions;

// Why the chosen configuration is fast or slow, by the synthetic TPU: its runtime as a stacked bar
// of categories (compute, padding, layout preference, copies, tile terms, noise), the top nodes
// and copies with their reasons (double-click selects one in the graph), the violation ratio,
// tile terms, and whether the synthetic TPU is ground truth or an estimate (with its Kendall
// against the file's measurements). A second configuration B compares with it: the differing
// nodes, the breakdown difference in words, and the cost model's view of it once the file's
// predictions are in. Explanations run on the panel's own worker (newest wins) as soon as a
// configuration is chosen; the panel also hands the graph its layouts and copies.
class ExplainPanel : public QWidget {
    Q_OBJECT
public:
    struct Explanation {
        int64_t a = -1, b = -1;  // configurations (a = -1: an edited row; b = -1: a row, or no comparison)
        QString aLabel;          // "configuration 12", "the what-if edit"
        QString bLabel;          // "configuration 7", "suggestion #1"
        synth::CostBreakdown breakdownA, breakdownB;
        explain::CostSummary summaryA, summaryB;
        std::optional<explain::Comparison> comparison;
        int64_t differingBounds =
            0;                  // tile files: bounds B sets otherwise than A (in a comparison)
        ConfigOverlay overlay;  // of A
        bool synthIsGroundTruth = false;  // the file was timed by the synthetic TPU
        std::vector<explain::TiledTensor> tiledA,
            tiledB;  // tile files: what A's and B's bounds tile
    };

    explicit ExplainPanel(QWidget* parent = nullptr);

    void setGraph(const TpuGraph& graph, const QString& file);
    void setPredictions(std::shared_ptr<const FilePredictions> predictions);
    void setChosenConfig(int64_t config);
    // Explains an edited configuration row (the what-if editor's) instead: the graph's overlay and
    // the memory picture follow the edit live.
    void explainRow(const std::vector<float>& row, const QString& label);
    // Compares the chosen configuration with `config` (-1 clears the comparison).
    void compareWith(int64_t config);
    // Compares A with a row that is not one of the file's (a suggested configuration).
    void compareWithRow(const std::vector<float>& row, const QString& label);
    // The memory picture follows the selected node, laid out as the chosen configuration has it.
    void selectNode(int node);
    // Whether a user can see the panel: a dock behind another tab stays "visible" to Qt, so its
    // dock says so (QDockWidget::visibilityChanged). Off screen, an explanation's chart and lists
    // wait until it is on screen again.
    void setOnScreen(bool onScreen);
    bool busy() const { return m_job != 0; }
    const std::shared_ptr<const Explanation>& explanation() const { return m_explanation; }
    QString headerText() const;
    QString detailsText() const;  // the line under the header: copies, or a tile kernel's tiles
    QString comparisonText() const;
    // The selected row's reason in full, above the memory picture ("" when none).
    QString whyText() const;
    QTreeWidget* nodeList() const { return m_nodes; }
    QTreeWidget* copyList() const { return m_copies; }
    QChartView* chart() const { return m_chart; }
    MemoryLayoutView* memoryView() const { return m_memory; }

protected:
    void showEvent(QShowEvent* event) override;

signals:
    void overlayChanged(const tpg::ConfigOverlay& overlay);  // the graph's labels and copies
    void comparedNodesChanged(const QHash<int32_t, QString>& marks);  // nodes whose layouts differ in B
    void nodeActivated(int node);
    void explained();

private:
    void buildUi();
    QHBoxLayout* buildCompareRow();
    void buildLists();
    void request();
    void showExplanation(std::shared_ptr<const Explanation> e);
    void showExplained();  // m_explanation's texts, chart, lists and memory picture
    QString detailsOf(const Explanation& e) const;
    void fillChart(const Explanation& e);
    void fillLists(const Explanation& e);
    static int shortColumnsWidth(const QTreeWidget& list);  // all but the reason
    void showMemory();  // and the node's reason
    static QString tileChangeText(const Explanation& e);
    bool showKernelTile();  // a tile file's configured tiles, in the memory picture
    QString nodeWhy() const;
    static QString copyWhy(const QTreeWidgetItem& item);
    void showWhy(const QString& text);
    QString modelSays(const Explanation& e) const;
    void showTexts(
        const Explanation& e);  // the header and the comparison: they name the model's figures

    // The file's synthetic TPU, built by the first explanation and kept for the next ones; only
    // the panel's worker touches it, so jobs (one at a time) share it without a lock.
    struct FileTpu {
        std::unique_ptr<const synth::TpuCostModel> tpu;
        bool groundTruth = false;  // the file was timed by it
    };

    // Its own worker and synthetic TPU: an explanation does not wait for the file's predictions
    // (minutes for a 45,000-node file), and the what-if editor's TPU is never used on two threads.
    JobRunner* m_runner;
    std::shared_ptr<FileTpu> m_fileTpu =
        std::make_shared<FileTpu>();  // of m_graph; a new one per file
    TpuGraph m_graph;
    QString m_file;
    std::shared_ptr<const FilePredictions> m_predictions;  // the model's figures, when they come
    int64_t m_config = -1, m_compare = -1;
    std::vector<float> m_row;  // an edited row explained instead of m_config
    QString m_rowLabel;
    std::vector<float> m_compareRow;  // a row compared instead of m_compare
    QString m_compareLabel;
    int m_node = -1;
    quint64 m_job = 0;
    UntilSeen m_explained;  // an explanation came while the panel was off screen
    // Shared with the worker that made it: copied on the GUI thread (twice), a 45,000-node
    // explanation had held it in bursts of 21-37 ms (perf, in the explorer).
    std::shared_ptr<const Explanation> m_explanation;

    QLabel* m_header;
    QLabel* m_details;
    QLabel* m_comparison;
    QSpinBox* m_compareBox;
    QPushButton* m_compareButton;
    QPushButton* m_bestButton;
    QPushButton* m_worstButton;
    QPushButton* m_clearButton;
    QChartView* m_chart;
    QTreeWidget* m_nodes;
    QTreeWidget* m_copies;
    FittingSplitter* m_lists;  // the two lists and the memory picture
    MemoryLayoutView* m_memory;
    QLabel* m_why;  // the selected row's reason, whole
};

}  // namespace tpg
