#pragma once

#include <QHash>
#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>
#include <QStringList>
#include <vector>

#include "graph/TpuGraph.h"

class QDockWidget;
class QLabel;
class QMenu;

class QMimeData;
class QProgressBar;
class QStackedWidget;
class QUrl;

namespace tpg {

class ConfigPanel;
class DatasetBrowser;
class ElidedLabel;
class ElidingStatusBar;
class ExplainPanel;
class GraphPanel;
class GuidedLesson;
class JobRunner;
class LessonPanel;
class ModelSession;
class NodeInspector;
class TileLessonPanel;
class TrainingPanel;
class WhatIfPanel;

// The explorer: graph in the middle, dataset browser (left), node inspector (right),
// configurations (bottom; further tool panels tab beside it). Files load in the background;
// a file that cannot be read gets one dialog with the reader's message, and the window stays
// usable.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // A .npz file or a dataset folder.
    void openPath(const QString& path);
    void openFile(const QString& path);
    // Lists the folder; then opens `fileToOpen`, or (when "") a preferred first graph.
    void openDataset(const QString& dir, const QString& fileToOpen = {});
    // Startup: `argument` when given, else the last session, else the embedded sample.
    void startSession(const QString& argument);
    void openSample();
    // The node to select and the configuration to choose in the next graph opened (-1: none),
    // e.g. from the command line.
    void setInitialSelection(int node, qint64 config);
    // A model file (the command line's --model) to score the first file opened with, for its kind.
    void setInitialModel(const QString& path) { m_initialModel = path; }
    // The dataset root (the folder holding npz/) of a file in the real tree, "" for loose files.
    static QString datasetRootOf(const QString& file);
    // Opens what was dropped: the first .npz file or folder among `urls`.
    bool openUrls(const QList<QUrl>& urls);
    static bool canOpen(const QMimeData* mime);

    // Where openSample() looks (tests point it elsewhere).
    void setSampleCandidates(const QStringList& candidates) { m_sampleCandidates = candidates; }

    // A panel tabbed beside the configurations; the first time it is shown the bottom area grows
    // to kBottomAreaPercent of the window where it is smaller.
    QDockWidget* addToolDock(const QString& title, QWidget* widget);

    const TpuGraph& graph() const { return m_graph; }
    QString currentFile() const { return m_currentFile; }
    bool isLoading() const { return m_loadJob != 0; }
    QStringList recentFiles() const;
    QMenu* recentMenu() const { return m_recentMenu; }
    QString statusText() const;
    QMessageBox* errorDialog() const { return m_errorBox; }

    GraphPanel* graphPanel() const { return m_graphPanel; }
    NodeInspector* inspector() const { return m_inspector; }
    ConfigPanel* configPanel() const { return m_configPanel; }
    DatasetBrowser* datasetBrowser() const { return m_browser; }
    JobRunner* layoutRunner() const { return m_layoutRunner; }
    JobRunner* ioRunner() const { return m_ioRunner; }
    ModelSession* modelSession() const { return m_models; }
    WhatIfPanel* whatIfPanel() const { return m_whatIf; }
    TrainingPanel* trainingPanel() const { return m_training; }
    ExplainPanel* explainPanel() const { return m_explain; }
    LessonPanel* lessonPanel() const { return m_lesson; }
    TileLessonPanel* tileLessonPanel() const { return m_tileLesson; }
    QDockWidget* lessonDock() const { return m_lessonDock; }
    // Help › Learn: shows the lesson and begins it (on the sample's layout file if need be).
    void startLesson();
    // Help › Learn: How Tile Sizes…: the tile lesson, in the same dock (on the sample's tile file
    // if need be).
    void startTileLesson();
    void resetWindowLayout();
    // The right-click menu of a configuration row: explain, compare with the chosen one, edit in
    // the what-if editor, copy as edits. The caller owns it.
    QMenu* configMenu(qint64 config);
    // What an exported picture says is in view: the what-if edit, the chosen configuration or none.
    QString viewCaption() const;
    QDockWidget* trainingDock() const { return m_trainingDock; }
    QString modelLabelText() const;

signals:
    void graphLoaded(const QString& path);
    void errorShown(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createMenus();
    void createFileMenu();
    void createEditMenu();
    void createModelMenu();
    void createViewMenu();
    void createHelpMenu();
    void createStatusWidgets();
    void connectPanels();
    void connectBrowser();
    void connectLoading();
    void createDocks();
    void showError(const QString& title, const QString& message);
    void showFileWarnings();  // the open file's warnings, in a dialog that leaves the window usable
    void onGraphLoaded(const QString& path, const TpuGraph& graph);
    void releaseFreedMemory();
    void restoreSessionChoices(const QString& path, const TpuGraph& graph);
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void exportView(bool svg, bool visibleOnly);
    void saveWindowState();
    void sizeDefaultDocks();
    void setStatus(const QString& text);
    void connectModelSession();
    // Model › Predict Configurations: only while the open file has no predictions, none coming.
    void updatePredictAction();
    void showModelInUse(const QString& label);
    // The collection the open file records (an exported What-if file's), "" for none.
    std::string recordedByOpenFile() const {
        return m_graph.isNull() ? std::string() : m_graph.searchCollection();
    }
    void loadModelFromDialog();
    void connectWhatIf();
    void addWhatIfActions(QMenu* menu, int node);
    void connectTraining();
    void setMarks(QHash<int32_t, QString>& slot, const QHash<int32_t, QString>& marks);
    void updateMarks();
    void connectExplain();
    void createLesson();
    void showLessonDock(QWidget* lesson);
    void connectLesson(GuidedLesson* lesson, const QString& kind,
                       QString (*sampleFile)(const QString&));
    void connectConfigMenu();
    QDockWidget* toolDock(const QString& title) const;
    void raiseToolDock(const QString& title);  // a tab beside the configurations, brought forward
    // The first file the app picked itself: its best measured configuration, and what to try.
    void chooseBestWithHint(const TpuGraph& graph);
    static QString missingSelectionText(const TpuGraph& graph, int node, qint64 config);

    JobRunner* m_ioRunner;      // file loading, dataset scanning
    JobRunner* m_layoutRunner;  // every Graphviz call
    GraphPanel* m_graphPanel;
    NodeInspector* m_inspector;
    ConfigPanel* m_configPanel;
    DatasetBrowser* m_browser;
    ModelSession* m_models;
    WhatIfPanel* m_whatIf = nullptr;
    TrainingPanel* m_training = nullptr;
    ExplainPanel* m_explain = nullptr;
    QDockWidget* m_trainingDock = nullptr;
    LessonPanel* m_lesson = nullptr;
    TileLessonPanel* m_tileLesson = nullptr;
    QStackedWidget* m_lessons = nullptr;  // the lesson dock shows the one begun last
    QDockWidget* m_lessonDock = nullptr;
    std::vector<QDockWidget*> m_toolDocks;  // in their tab order beside the configurations
    QHash<int32_t, QString> m_configMarks, m_compareMarks, m_whatIfMarks;  // all drawn on the graph
    ElidedLabel* m_modelLabel = nullptr;
    QDockWidget* m_browserDock = nullptr;
    QDockWidget* m_inspectorDock = nullptr;
    QDockWidget* m_configDock = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_predictAction = nullptr;
    QMenu* m_viewMenu = nullptr;
    ElidedLabel* m_graphLabel;
    QLabel* m_warningLabel;
    QProgressBar* m_progress;
    QPointer<QMessageBox> m_errorBox;
    QPointer<QMessageBox> m_warningsBox;  // the open file's warnings, closed when another opens

    TpuGraph m_graph;
    QString m_currentFile;
    QString m_loadingFile;
    quint64 m_loadJob = 0;
    QString m_fileAfterScan;
    bool m_openFirstAfterScan = false;
    bool m_selectBestAfterOpen = false;
    bool m_stateRestored = false;     // a saved dock arrangement was applied
    bool m_defaultDocksSized = false;
    bool m_restoringSession = false;
    int m_initialNode = -1;
    qint64 m_initialConfig = -1;  // selections made while restoring are not re-saved
    QString m_initialModel;       // loaded once the first file is, so its scores use it
    QStringList m_sampleCandidates;
    ElidingStatusBar* m_statusBar = nullptr;
};

}  // namespace tpg
