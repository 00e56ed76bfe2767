#pragma once

#include <QHash>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "UntilSeen.h"
#include "graph/TpuGraph.h"
#include "whatif/ConfigEdit.h"
#include "whatif/WhatIfPredictor.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;
class QTabWidget;
class QTimer;
class QUndoStack;

namespace tpg {

class ElidedLabel;
class FittingSplitter;
class JobRunner;
class SuggestionPanel;
class SweepChart;
struct FilePredictions;
struct UnrankedPredictor;

// One value of a swept knob: a layout slot's edit, or a tile bound's.
using SweepEdit = std::variant<whatif::LayoutEdit, whatif::TileEdit>;

// The what-if editor: start from a configuration, edit each configurable node's output / input /
// kernel layout (only valid permutations of the tensor's rank can be chosen) or a tile file's
// bounds, and read the predicted runtime and rank at once. Every edit is a QUndoCommand (a burst
// on one node merges into one step); every evaluated configuration joins the run list; the
// session saves and loads as JSON and exports as an .npz the CLI can score. Predictions run on
// `runner` (not the model worker, which scores the file meanwhile): the newest edit wins and
// stale results are dropped.
class WhatIfPanel : public QWidget {
    Q_OBJECT
public:
    struct Run {
        QString label;  // "start: config 12", "#44 output {3,0,2,1}", ...
        std::vector<float> row;
        whatif::WhatIfReport report;
        bool pinned = false;
    };

    // The merge key of an edit that is an undo step of its own (others merge with the edit before
    // when they share its key: a burst on one node or bound).
    static constexpr int kNoMerge = -1;

    WhatIfPanel(JobRunner* runner, QWidget* parent = nullptr);

    void setGraph(const TpuGraph& graph, const QString& file);
    // The file's predictor before its configurations are scored: editing starts (or restarts, for
    // a newer scoring: another model), each edit scored and timed by the synthetic TPU; ranks and
    // predicted runtimes wait for setPredictions, which then ranks the session's runs without
    // restarting it.
    void setUnranked(const UnrankedPredictor& unranked);
    void setPredictions(const std::shared_ptr<const FilePredictions>& predictions);
    // The configuration chosen in the table. An editor that starts from "the chosen configuration"
    // and has no edits yet follows it.
    void setChosenConfig(int64_t config);
    bool ready() const { return m_predictor != nullptr; }
    bool ranked() const { return m_predictor && m_predictor->isRanked(); }

    // Starts a session from `start` (clears the undo history); `note` follows its run's label.
    void startFrom(const whatif::StartPoint& start, const QString& note = QString());
    // Starts from a row built elsewhere (e.g. the lesson's), labelled `label` in the run list.
    void startFromRow(const std::vector<float>& row, const QString& label);
    // Edits (each one undoable). Return false with the reason in lastError() when refused.
    bool setLayout(int32_t node, whatif::LayoutSlot slot, const std::vector<int>& minorToMajor);
    // One layout into one slot of several nodes, as one undoable edit: to each it fits (the others,
    // of another rank or without the slot, keep theirs). False when it fits none.
    bool setLayouts(const std::vector<int32_t>& nodes, whatif::LayoutSlot slot,
                    const std::vector<int>& minorToMajor);
    // The nodes an edit in the editor goes to: the chosen node first, then the others selected in
    // the list (Ctrl- or Shift-click, or Select Alike).
    std::vector<int32_t> selectedNodes() const;
    // Selects, beside the chosen node, every configurable node of its opcode and output shape.
    void selectAlike();
    // Ctrl-click in the graph: `node` joins the nodes an edit goes to, or leaves them (the chosen
    // node stays). Returns what happened, for the status bar.
    QString toggleNode(int32_t node);
    // `node`, one of the selected nodes, becomes the chosen one; the others stay selected (the
    // graph stepping through the selection). Otherwise as selectNode.
    void chooseWithinSelection(int32_t node);
    bool setTileBound(int column, float value);
    // The size of the dimension a tile bound tiles, as the synthetic TPU reads the kernel (exact
    // on synthetic files, an estimate on real ones): -1 when its tensor has no such dimension,
    // 0 when not known (no predictions yet, or not a bound).
    int64_t tileBoundDimension(int column) const;
    // The sizes the editor and a sweep offer for a bound: none above its dimension but the
    // dimension itself, and the current value.
    std::vector<int> tileSizeChoices(int column) const;
    // A configurable node, or on a tile file a bound (its config column): the editor shows it.
    void selectNode(int32_t node);
    // Predicts every value of one slot of the selected node (tile: the selected bound; slot 0)
    // with everything else fixed, and draws them in the sweep chart.
    void sweep(int slot);
    SweepChart* sweepChart() const { return m_sweepChart; }
    QTreeWidget* runList() const { return m_runList; }
    QComboBox* startChoice() const { return m_start; }  // "Start from …"
    SuggestionPanel* suggestions() const { return m_suggestions; }
    // Shows the "Suggest faster configurations" tab.
    void showSuggestions();
    // Whether the panel's dock is on screen (not behind another tab): off screen the node list's
    // layouts wait until it is.
    void setOnScreen(bool onScreen);

    QUndoStack* undoStack() const { return m_undo; }
    const std::vector<float>& currentRow() const { return m_row; }
    bool edited() const { return m_row != m_startRow; }  // differs from where the session started
    // Whether the editor's configuration is the file's configuration `config`.
    bool holdsConfig(int64_t config) const;
    const std::vector<Run>& runs() const { return m_runs; }
    void setPinned(int run, bool pinned);
    bool hasReport() const { return m_report.has_value(); }
    const whatif::WhatIfReport& report() const { return *m_report; }
    bool busy() const { return m_pendingJob != 0; }
    // The synthetic TPU timed the open file: its figures are the file's ground truth, not
    // estimates.
    bool synthIsGroundTruth() const { return m_predictor && m_predictor->synthIsGroundTruth(); }
    QString resultText() const;
    QString shownResult() const;  // the result line as shown (after a load: its note first)
    QString fileNote() const;     // what Save or Export last wrote, for this file
    QString lastError() const { return m_error; }
    // Nodes whose layouts differ from the start, with a description.
    QHash<int32_t, QString> editedNodes() const;

    bool saveSession(const QString& path, QString* error) const;
    bool loadSession(const QString& path, QString* error);
    bool exportNpz(const QString& path, QString* error) const;

    // Applies a whole row (the undo commands' primitive): re-predicts, refreshes the editors.
    void applyRow(const std::vector<float>& row, const QString& label);

protected:
    void showEvent(QShowEvent* event) override;

signals:
    void editedNodesChanged(const QHash<int32_t, QString>& marks);
    // The nodes selected in the list beside the chosen one (selectedNodes() but the first).
    void alsoSelectedChanged(const QVector<int32_t>& nodes);
    void nodeActivated(int node);
    void evaluated();
    // The runs evaluated before the file was scored now have their ranks and predicted runtimes.
    void reranked();
    void swept();
    // Compare the current configuration with `row` (a suggestion) in the Explain view.
    void compareRequested(const std::vector<float>& row, const QString& label);
    void statusMessage(const QString& text);  // what Save or Export wrote, with the whole path

private:
    // "this file's configurations hold 128–256", or "every configuration of this file holds 56".
    QString boundRangeText(int column) const;
    // "output_bounds_1 = 1, where this file's configurations hold 128–256".
    QString boundOutsideText(int column, float value) const;
    QString boundsOutsideText(const std::vector<int>& columns) const;  // of the current row
    // The sweep chart's note on values outside the swept bound's range; empty for layouts.
    QString sweepOutsideNote() const;
    void buildUi();
    QHBoxLayout* buildTopRow();
    void buildNodeList();
    void buildEditor();
    QWidget* buildResults();
    void buildSplit(QWidget* right);
    void addSessionFileButtons(QHBoxLayout* row);
    void sessionFileAction(bool saving, bool npz);
    // A layout column wide enough for the longest permutation its slot takes on this graph.
    int layoutColumnWidth(int slot) const;
    void usePredictor(std::shared_ptr<whatif::WhatIfPredictor> predictor, const QString& modelName);
    void rerankRuns();
    void showReranked(const std::vector<whatif::WhatIfReport>& reports);
    void startFromChosen();
    // "The best predicted" can be chosen once the file is scored.
    void updateStartChoices();
    bool isLayoutFile() const;
    void showNodeListHeader();
    void refreshNodeList(const QHash<int32_t, QString>& edited);
    void fillNodeList(const QHash<int32_t, QString>& edited);  // each row's layouts and emphasis
    void clearRunList();
    void widenRunColumns(const QTreeWidgetItem& item);
    void refreshEditor();  // fillEditor, then a wider split if the editor now asks for more
    void fillEditor();
    void fillTileBound();
    QTreeWidgetItem* listItemOf(int32_t key) const;  // the node (tile: bound) list's item, or null
    void fillLayoutSlots();
    void evaluate(const QString& label);
    // A loaded session's entries, evaluated in one job: one job each would be superseded by the
    // next (newest wins), and only the last entry reached the runs list.
    void evaluateLoaded(std::vector<Run> entries);
    void showReport(const whatif::WhatIfReport& r);
    void showLoadedReports(const std::vector<whatif::WhatIfReport>& reports);
    void addRun(const whatif::WhatIfReport& r, const std::vector<float>& row, const QString& label);
    bool pushEdit(const std::vector<float>& after, const QString& text, int mergeKey);
    // Predicts the swept knob's every value from the current configuration (a job; newest wins).
    void runSweep();
    // A sweep's candidate edit applied to the current configuration, as one undoable edit.
    void applySweepEdit(int candidate);
    // "#97 output {0,3,2,1}", "#97 and 12 more output {0,3,2,1}": an undo step's text.
    QString describeLayoutEdit(const std::vector<int32_t>& nodes, whatif::LayoutSlot slot,
                               const std::vector<int>& m) const;
    QString differingText(int64_t count) const;  // "1 node differs", "3 bounds differ"
    // Until the predictor comes: what the editor waits for (the file's configurations
    // decompressing, then the cost model), refreshed by m_preparingPoll while they decompress.
    void showPreparing();

    JobRunner* m_runner;
    TpuGraph m_graph;
    QString m_file;
    std::shared_ptr<whatif::WhatIfPredictor> m_predictor;
    QString m_modelName;  // the predictor's model, as the session file names it
    int64_t m_chosenConfig = -1;
    std::vector<float> m_startRow, m_row;
    QString m_startLabel;
    std::optional<whatif::WhatIfReport> m_report, m_startReport;
    std::vector<Run> m_runs;
    int32_t m_node = -1;
    quint64 m_pendingJob = 0;
    quint64 m_rerankJob = 0;
    QString m_pendingLabel;  // what the pending evaluation is of
    // While a session loads, its entries are pushed on the undo stack unevaluated (their
    // evaluations come in one job); they wait here, reports empty, for the reports.
    bool m_deferEvaluation = false;
    std::vector<Run> m_loaded;
    QString m_loadNote;  // the loaded session was saved for another file ("" when not)
    QString m_error;

    QUndoStack* m_undo;
    QComboBox* m_start;
    ElidedLabel* m_modelLabel;
    QTreeWidget* m_nodes;
    // Until the user drags a handle: the node list as wide as its columns (at most a share of the
    // panel), the editor as wide as it asks, the runs the rest.
    FittingSplitter* m_split;
    QWidget* m_editor;
    int m_nodeColumnsWidth = 0;  // the node list's columns as sized for this file (0: not yet)
    UntilSeen m_nodeListFill;    // the row changed while the panel was off screen
    std::vector<float> m_listedRow;   // the layout row the node list shows; empty: none yet
    QVector<int32_t> m_alsoSelected;  // selectedNodes() but the chosen one, as last refreshed
    int m_editorFitWidth = 0;    // the editor's width as last fitted (0: not yet, for this file)
    QLabel* m_editorTitle;
    QComboBox* m_slotBoxes[3] = {nullptr, nullptr, nullptr};
    QLabel* m_slotLabels[3] = {nullptr, nullptr, nullptr};
    QPushButton* m_defaultButton;
    QPushButton* m_alikeButton;
    QLabel* m_result;
    QTimer* m_preparingPoll;
    QLabel* m_fileNote;  // "Exported 3 configurations to resnet_002-whatif.npz"
    QTreeWidget* m_runList;
    QTabWidget* m_tabs;
    SweepChart* m_sweepChart;
    SuggestionPanel* m_suggestions;
    QPushButton* m_sweepButtons[3] = {nullptr, nullptr, nullptr};
    quint64 m_sweepJob = 0;
    bool m_sweepInNs = false;  // the sweep's values are predicted runtimes (else scores)
    // The swept knob as one edit per candidate, in the order the chart indexes them: a clicked bar
    // applies its edit to the configuration as it is then, and every change of the configuration
    // sweeps the knob again (bars of the configuration before had applied it whole, undoing edits
    // made since).
    std::vector<SweepEdit> m_sweepEdits;
    int m_sweepCurrent = -1;  // the candidate the current configuration is
    QString m_sweepLabel;
    QStringList m_sweepLabels;  // per candidate
};

}  // namespace tpg
