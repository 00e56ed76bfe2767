#include "MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QUndoStack>
#include <QUrl>
#include <algorithm>
#include <utility>

#include "AboutText.h"
#include "ConfigPanel.h"
#include "ConfigTableModel.h"
#include "CountText.h"
#include "DatasetBrowser.h"
#include "ElidedLabel.h"
#include "ElidingStatusBar.h"
#include "ExplainPanel.h"
#include "FileKind.h"
#include "FilePredictions.h"
#include "GraphPanel.h"
#include "GraphView.h"
#include "JobRunner.h"
#include "LessonPanel.h"
#include "ModelNameText.h"
#include "ModelSession.h"
#include "NodeInspector.h"
#include "ReadingText.h"
#include "RemainingTime.h"
#include "SampleLocator.h"
#include "TensorMemory.h"
#include "TileLessonPanel.h"
#include "TrainingPanel.h"
#include "WhatIfPanel.h"
#include "explain/CostExplanation.h"
#include "graph/GraphFile.h"
#include "graph/GroundTruth.h"
#include "whatif/ConfigEdit.h"

Q_DECLARE_METATYPE(tpg::TpuGraph)

namespace tpg {

namespace {

constexpr int kMaxRecentFiles = 10;
const QString kRecentKey = QStringLiteral("recentFiles");
const QString kSessionFileKey = QStringLiteral("session/file");
const QString kSessionDatasetKey = QStringLiteral("session/dataset");
const QString kSessionNodeKey = QStringLiteral("session/node");
const QString kSessionConfigKey = QStringLiteral("session/config");
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
// Bumped when the docks change, so an old saved state is not applied to a new arrangement.
constexpr int kWindowStateVersion = 4;
// The first launch's window: room for the graph beside both side docks, cut to the screen's
// available area, so a laptop's 1366 x 768 shows the status bar and the docks' far edges.
constexpr QSize kDefaultWindowSize(1500, 950);
// The graph panel keeps at least this height when the window shrinks or a bottom dock grows (its
// toolbar, legend and hint take ~75 px); the docks give way first. With the tallest dock's
// minimum the window still fits a 768-pixel-high screen.
constexpr int kGraphPanelMinHeight = 240;
// The bottom docks' share of the window's height on a first launch, and what a tool tab grows them
// to the first time it is shown (never shrinking them): on a 1366 x 768 screen the what-if editor
// fits without scrolling and Explain's comparison keeps its chart's axis labels (at 45% they read
// "..."), and the graph keeps the other half.
constexpr int kBottomAreaPercent = 50;

// The `depth` folders above a path's last part ("layout/xla/random/train" at depth 4).
QString foldersAbove(const QString& path, int depth) {
    const QStringList parts = QDir::cleanPath(path).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    return parts
        .mid(std::max(0, static_cast<int>(parts.size()) - 1 - depth),
             std::min(depth, static_cast<int>(parts.size()) - 1))
        .join(QLatin1Char('/'));
}

// The recent files' menu labels: each name, and where names repeat (one program in several
// collections, layout/xla/random/train/resnet.npz beside layout/xla/default/train/resnet.npz, read
// as identical entries) as many of its folders as tell it from the others.
QStringList recentLabels(const QStringList& paths) {
    QStringList labels;
    for (const QString& path : paths) {
        const QString name = QFileInfo(path).fileName();
        QStringList namesakes;
        for (const QString& other : paths)
            if (other != path && QFileInfo(other).fileName() == name) namesakes << other;
        QString label = name;
        const int maxDepth = static_cast<int>(QDir::cleanPath(path).count(QLatin1Char('/')));
        for (int depth = 1; !namesakes.isEmpty() && depth <= maxDepth; ++depth) {
            const QString folders = foldersAbove(path, depth);
            label = name + QStringLiteral("  (") + folders + QLatin1Char(')');
            if (std::none_of(namesakes.begin(), namesakes.end(), [&](const QString& other) {
                    return foldersAbove(other, depth) == folders;
                }))
                break;
        }
        labels << label;
    }
    return labels;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_sampleCandidates(sampleCandidates()) {
    setWindowTitle(tr("TpuGraphs Explorer"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    m_statusBar = new ElidingStatusBar(this);
    setStatusBar(m_statusBar);
    m_ioRunner = new JobRunner(QStringLiteral("io"), this);
    m_layoutRunner = new JobRunner(QStringLiteral("graphviz"), this);

    m_graphPanel = new GraphPanel(m_layoutRunner, this);
    m_graphPanel->setMinimumHeight(kGraphPanelMinHeight);
    setCentralWidget(m_graphPanel);
    m_inspector = new NodeInspector(this);
    m_configPanel = new ConfigPanel(this);
    m_browser = new DatasetBrowser(m_ioRunner, this);
    m_models = new ModelSession(this);
    // Its own worker: an edit is predicted while the model worker scores the file.
    m_whatIf = new WhatIfPanel(new JobRunner(QStringLiteral("whatif"), this), this);
    createDocks();
    createMenus();
    QDockWidget* whatIfDock = addToolDock(tr("What-if"), m_whatIf);
    connect(whatIfDock, &QDockWidget::visibilityChanged, m_whatIf, &WhatIfPanel::setOnScreen);
    connectWhatIf();
    m_explain = new ExplainPanel(this);
    QDockWidget* explainDock = addToolDock(tr("Explain"), m_explain);
    connect(explainDock, &QDockWidget::visibilityChanged, m_explain, &ExplainPanel::setOnScreen);
    connectExplain();
    m_training = new TrainingPanel(this);
    m_trainingDock = addToolDock(tr("Training"), m_training);
    m_configDock->raise();
    connectTraining();
    createLesson();
    m_viewMenu->addSeparator();
    m_viewMenu->addAction(tr("&Reset Window Layout"), this, &MainWindow::resetWindowLayout)
        ->setObjectName(QStringLiteral("resetLayoutAction"));
    connectConfigMenu();

    createStatusWidgets();
    connectModelSession();
    setStatus(tr("Open a .npz file or a dataset folder (File menu, or drop it here)."));
    connectPanels();
    connectBrowser();
    connectLoading();

    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray()))
        resize(kDefaultWindowSize.boundedTo(screen()->availableGeometry().size()));
    m_stateRestored = restoreState(settings.value(kStateKey).toByteArray(), kWindowStateVersion);
    rebuildRecentMenu();
}

// The status bar's permanent widgets: the file's warnings, the graph, the model, progress.
void MainWindow::createStatusWidgets() {
    m_graphLabel = new ElidedLabel(this);
    m_graphLabel->setElideMode(Qt::ElideRight);  // the file's name first
    m_warningLabel = new QLabel(this);
    m_warningLabel->setObjectName(QStringLiteral("warningLabel"));
    m_warningLabel->setTextFormat(Qt::RichText);
    m_warningLabel->setTextInteractionFlags(Qt::LinksAccessibleByMouse);
    m_warningLabel->hide();
    // A click lists the file's warnings: the status line that named them is soon overwritten,
    // and a tooltip is easy to miss.
    connect(m_warningLabel, &QLabel::linkActivated, this, &MainWindow::showFileWarnings);
    m_progress = new QProgressBar(this);
    m_progress->setFixedWidth(160);
    m_progress->setRange(0, 0);
    m_progress->hide();
    m_modelLabel = new ElidedLabel(this);
    statusBar()->addPermanentWidget(m_warningLabel);
    statusBar()->addPermanentWidget(m_graphLabel);
    statusBar()->addPermanentWidget(m_modelLabel);
    statusBar()->addPermanentWidget(m_progress);
}

// Selection between the graph, the inspector and the configurations table.
void MainWindow::connectPanels() {
    connect(m_graphPanel, &GraphPanel::nodeSelected, m_inspector, [this](int node) {
        m_inspector->showNode(node);
        if (!m_restoringSession && !m_graph.isNull()) QSettings().setValue(kSessionNodeKey, node);
        if (node >= 0 && m_inspectorDock) m_inspectorDock->raise();
    });
    connect(m_graphPanel, &GraphPanel::statusMessage, this, &MainWindow::setStatus);
    connect(m_inspector, &NodeInspector::nodeActivated, m_graphPanel, &GraphPanel::showNode);
    connect(m_configPanel, &ConfigPanel::configChosen, this, [this](qint64 config) {
        m_inspector->setConfig(config);
        if (!m_restoringSession && !m_graph.isNull())
            QSettings().setValue(kSessionConfigKey, config);
        if (config >= 0 && !m_graph.isNull())
            setStatus(
                m_graph.isLayout()
                    ? tr("Configuration %1 chosen: nodes it sets a layout for are marked")
                          .arg(config)
                    : tr("Configuration %1 chosen: its tile sizes are listed beside the table")
                          .arg(config));
    });
    connect(m_configPanel, &ConfigPanel::nodeMarksChanged, this,
            [this](const QHash<int32_t, QString>& marks) { setMarks(m_configMarks, marks); });
    connect(m_configPanel, &ConfigPanel::nodeActivated, m_graphPanel, &GraphPanel::showNode);
}

// A dataset folder scanned: open the file asked for, or the first one worth showing.
void MainWindow::connectBrowser() {
    connect(m_browser, &DatasetBrowser::fileActivated, this, &MainWindow::openFile);
    connect(m_browser, &DatasetBrowser::statusMessage, this, &MainWindow::setStatus);
    connect(m_configPanel, &ConfigPanel::statusMessage, this, &MainWindow::setStatus);
    connect(m_browser, &DatasetBrowser::scanFailed, this, [this](const QString& message) {
        showError(tr("Cannot open the dataset folder"), message);
    });
    connect(m_browser, &DatasetBrowser::scanned, this, [this](int files) {
        setStatus(
            tr("%1 in %2").arg(countOf(files, tr("graph"), tr("graphs")), m_browser->folder()));
        QString file = m_fileAfterScan;
        if (file.isEmpty() && m_openFirstAfterScan) {
            QStringList paths;
            for (const DatasetFile& f : m_browser->files())
                if (f.error.empty()) paths << QString::fromStdString(f.path);
            file = preferredFirstFile(paths);
        }
        m_selectBestAfterOpen = m_openFirstAfterScan && !file.isEmpty();
        m_fileAfterScan.clear();
        m_openFirstAfterScan = false;
        if (!file.isEmpty())
            openFile(file);
        else if (!m_currentFile.isEmpty())
            m_browser->selectFile(m_currentFile);
    });
}

// A file read on the io worker: show it, or say why it could not be opened.
void MainWindow::connectLoading() {
    connect(m_ioRunner, &JobRunner::finished, this, [this](quint64 id, const QVariant& result) {
        if (id != m_loadJob) return;
        m_loadJob = 0;
        m_progress->hide();
        onGraphLoaded(m_loadingFile, result.value<TpuGraph>());
    });
    connect(m_ioRunner, &JobRunner::failed, this, [this](quint64 id, const QString& message) {
        if (id != m_loadJob) return;
        m_loadJob = 0;
        m_progress->hide();
        setStatus(tr("Could not open %1").arg(QFileInfo(m_loadingFile).fileName()));
        showError(tr("Cannot open file"), message);
    });
}

MainWindow::~MainWindow() {
    // Stop background work before the widgets its signals would reach are destroyed.
    m_ioRunner->cancelAll();
    m_layoutRunner->cancelAll();
}

void MainWindow::createDocks() {
    auto dock = [this](const QString& title, const QString& name, QWidget* widget,
                       Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);  // saveState() identifies docks by name
        d->setWidget(widget);
        addDockWidget(area, d);
        return d;
    };
    m_browserDock =
        dock(tr("Dataset"), QStringLiteral("datasetDock"), m_browser, Qt::LeftDockWidgetArea);
    m_inspectorDock =
        dock(tr("Node"), QStringLiteral("nodeDock"), m_inspector, Qt::RightDockWidgetArea);
    m_configDock = dock(tr("Configurations"), QStringLiteral("configDock"), m_configPanel,
                        Qt::BottomDockWidgetArea);
    setTabPosition(Qt::BottomDockWidgetArea, QTabWidget::North);
    resizeDocks({m_browserDock, m_inspectorDock}, {300, 380}, Qt::Horizontal);
    resizeDocks({m_configDock}, {240}, Qt::Vertical);
}

QDockWidget* MainWindow::addToolDock(const QString& title, QWidget* widget) {
    auto* d = new QDockWidget(title, this);
    connect(d, &QDockWidget::visibilityChanged, this, [this, d](bool visible) {
        if (!visible || d->property("grown").toBool()) return;
        d->setProperty("grown", true);
        // Only ever grown: Explain's first show had shrunk the area that Training's had grown to
        // 55%, moving the tab row from under the mouse.
        const int share = height() * kBottomAreaPercent / 100;
        if (d->height() < share) resizeDocks({d}, {share}, Qt::Vertical);
    });
    d->setObjectName(title.simplified().replace(QLatin1Char(' '), QLatin1Char('_')) +
                     QStringLiteral("Dock"));
    d->setWidget(widget);
    addDockWidget(Qt::BottomDockWidgetArea, d);
    tabifyDockWidget(m_configDock, d);
    m_toolDocks.push_back(d);
    if (m_viewMenu) m_viewMenu->addAction(d->toggleViewAction());
    return d;
}

void MainWindow::createMenus() {
    createFileMenu();
    createEditMenu();
    createModelMenu();
    createViewMenu();
    createHelpMenu();
}

void MainWindow::createFileMenu() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open File…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open TpuGraphs file"), QFileInfo(m_currentFile).absolutePath(),
            tr("TpuGraphs files (*.npz);;All files (*)"));
        if (!path.isEmpty()) openPath(path);  // the dataset tree follows
    });
    open->setShortcut(QKeySequence::Open);
    QAction* openDir = file->addAction(tr("Open &Dataset Folder…"), this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Open dataset folder"), m_browser->folder());
        if (!dir.isEmpty()) openDataset(dir, QStringLiteral(""));
    });
    openDir->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Sample"), this, &MainWindow::openSample);
    file->addSeparator();
    file->addAction(tr("Export Visible Area as &SVG…"), this, [this] { exportView(true, true); });
    file->addAction(tr("Export Visible Area as &PNG…"), this, [this] { exportView(false, true); });
    file->addAction(tr("Export Whole View as S&VG…"), this, [this] { exportView(true, false); });
    file->addAction(tr("Export Whole View as P&NG…"), this, [this] { exportView(false, false); });
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
}

void MainWindow::createEditMenu() {
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_whatIf->undoStack()->createUndoAction(this, tr("&Undo What-if Edit"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_whatIf->undoStack()->createRedoAction(this, tr("&Redo What-if Edit"));
    redo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
    edit->addAction(undo);
    edit->addAction(redo);
}

void MainWindow::createModelMenu() {
    QMenu* model = menuBar()->addMenu(tr("&Model"));
    model->addAction(tr("&Load Model…"), this, &MainWindow::loadModelFromDialog);
    model->addAction(tr("Use &Built-in Model"), this, [this] {
        m_models->useBuiltIn(m_graph.isNull() ? Collection::Layout : m_graph.collection(), m_currentFile, m_graph);
    });
    m_predictAction = model->addAction(tr("&Predict Configurations"), this, [this] {
        m_models->predictAgain(m_currentFile, m_graph);
        m_configPanel->setPredictionsPending(true);
        updatePredictAction();
    });
    m_predictAction->setObjectName(QStringLiteral("predictAction"));
    m_predictAction->setStatusTip(tr(
        "Score the open file's configurations again, after a prediction was cancelled or failed"));
    connect(m_models, &ModelSession::busyChanged, this, &MainWindow::updatePredictAction);
    updatePredictAction();
    QAction* cancel = model->addAction(tr("&Cancel Prediction"), m_models, &ModelSession::cancel);
    cancel->setObjectName(QStringLiteral("cancelPredictionAction"));
    cancel->setEnabled(m_models->busy());  // greyed out while nothing is being predicted
    connect(m_models, &ModelSession::busyChanged, cancel, &QAction::setEnabled);
    QAction* ties = model->addAction(tr("Configurations of One &Program Share a Score"));
    ties->setObjectName(QStringLiteral("programTiesAction"));
    ties->setCheckable(true);
    ties->setChecked(m_models->programTies());
    ties->setStatusTip(tr("On: configurations the compiler makes one program of (by the synthetic TPU's model of "
                          "the compiler) share one predicted score and rank, as they share a runtime. Off: "
                          "the network's own score for each"));
    connect(ties, &QAction::toggled, this, [this](bool on) { m_models->setProgramTies(on, m_currentFile, m_graph); });
    model->addSeparator();
    model->addAction(tr("&Train a Model…"), this, [this] {
        m_trainingDock->show();
        m_trainingDock->raise();
    });
}

void MainWindow::createViewMenu() {
    m_viewMenu = menuBar()->addMenu(tr("&View"));
    GraphView* view = m_graphPanel->view();
    m_viewMenu->addAction(tr("&Fit"), QKeySequence(Qt::CTRL | Qt::Key_0), view, &GraphView::fitAll);
    m_viewMenu->addAction(tr("&Actual Size"), QKeySequence(Qt::CTRL | Qt::Key_1), view,
                          &GraphView::actualSize);
    m_viewMenu->addAction(tr("Zoom &In"), QKeySequence::ZoomIn, view, &GraphView::zoomIn);
    m_viewMenu->addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, view, &GraphView::zoomOut);
    m_viewMenu->addAction(tr("&Find Node…"), QKeySequence::Find, this, [this] {
        m_graphPanel->searchEdit()->setFocus();
        m_graphPanel->searchEdit()->selectAll();
    });
    QAction* mini = m_viewMenu->addAction(tr("&Mini-map"));
    mini->setCheckable(true);
    mini->setChecked(true);
    connect(mini, &QAction::toggled, view, &GraphView::setMiniMapVisible);
    m_viewMenu->addSeparator();
    for (QDockWidget* d : {m_browserDock, m_inspectorDock, m_configDock})
        m_viewMenu->addAction(d->toggleViewAction());
}

void MainWindow::createHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("L&earn: How Layout Affects Runtime"), this, &MainWindow::startLesson)
        ->setObjectName(QStringLiteral("learnAction"));
    help->addAction(tr("Learn: How &Tile Sizes Affect Runtime"), this, &MainWindow::startTileLesson)
        ->setObjectName(QStringLiteral("learnTilesAction"));
    help->addAction(tr("Reading &Layouts"), this, [this] {
        QMessageBox::information(this, tr("Reading layouts"), readingLayoutsText());
    });
    help->addAction(tr("Reading &Tiles"), this, [this] {
        QMessageBox::information(this, tr("Reading tiles"), readingTilesText());
    });
    help->addAction(tr("&About"), this, [this] {
        QMessageBox::about(this, tr("About TpuGraphs Explorer"),
                           aboutText(m_training->runsFolder()));
    });
}

void MainWindow::updatePredictAction() {
    if (m_predictAction)
        m_predictAction->setEnabled(!m_graph.isNull() && !m_models->scoredOrScoring(m_currentFile));
}

void MainWindow::connectModelSession() {
    connect(
        m_models, &ModelSession::progressed, this,
        [this](double fraction, const QString& what, double left) {
            if (m_loadJob != 0) return;  // the loading bar has the status bar
            m_progress->setRange(0, 100);
            m_progress->setValue(static_cast<int>(fraction * 100));
            m_progress->setFormat(tr("predicting %p%"));
            m_progress->show();
            setStatus(tr("%1…%2 (Model › Cancel Prediction to stop)")
                          .arg(what, left >= 0 ? tr(" ETA %1").arg(clockText(left)) : QString()));
        });
    auto done = [this] {  // scored, failed or cancelled
        if (m_loadJob == 0) m_progress->hide();
        m_progress->setRange(0, 0);
        releaseFreedMemory();
    };
    connect(m_models, &ModelSession::predictionsReady, this,
            [this, done](const std::shared_ptr<const FilePredictions>& p) {
                if (p->file != m_currentFile) return;  // a file opened since
                done();
                m_configPanel->setPredictions(p);
                const bool own = p->predictor && !p->predictor->model().tiesSamePrograms();
                setStatus(tr("Predicted %1 with %2%3")
                              .arg(countOf(m_graph.numConfigs(), tr("configuration"),
                                           tr("configurations")),
                                   shortModelName(p->modelName),
                                   own ? tr(", each by the network's own score") : QString()));
            });
    connect(m_models, &ModelSession::predictionFailed, this, [this, done](const QString& message) {
        done();
        m_configPanel->setPredictionsPending(false);
        setStatus(
            tr("No predictions: %1 (Model › Predict Configurations to try again)").arg(message));
    });
    connect(m_models, &ModelSession::predictionCancelled, this, [this, done] {
        done();
        m_configPanel->setPredictionsPending(false);
        setStatus(tr("Prediction cancelled (Model › Predict Configurations to start it again)."));
    });
    // The label names the open file's model; one loaded for the other kind of file waits for it.
    connect(
        m_models, &ModelSession::modelChanged, this, [this](Collection kind, const QString& name) {
            const Collection open = m_graph.isNull() ? Collection::Layout : m_graph.collection();
            const QString inUse = m_models->modelName(open, m_currentFile, recordedByOpenFile());
            showModelInUse(inUse);
            if (kind == open)
                setStatus(tr("Model in use: %1").arg(shortModelName(name)));
            else
                setStatus(tr("%1 will score %2 files; this %3 file keeps %4")
                              .arg(shortModelName(name), QString::fromLatin1(collectionName(kind)),
                                   QString::fromLatin1(collectionName(open)),
                                   shortModelName(inUse)));
        });
    connect(m_models, &ModelSession::modelRejected, this, [this](const QString& message) {
        showError(tr("Cannot use that model"), message + tr("\n\nThe previous model stays in use."));
    });
    showModelInUse(m_models->modelName(Collection::Layout, m_currentFile));
}

// The status bar names the model briefly (a full path would push the status message out and
// widen the window); its tooltip has the whole name.
void MainWindow::showModelInUse(const QString& label) {
    m_modelLabel->setText(tr("Model: %1").arg(shortModelName(label)));
    m_modelLabel->setToolTip(
        tr("The cost model that predicts runtimes (Model menu to change it):\n%1").arg(label));
}

QString MainWindow::modelLabelText() const { return m_modelLabel->text(); }

void MainWindow::connectWhatIf() {
    connect(m_whatIf, &WhatIfPanel::editedNodesChanged, this,
            [this](const QHash<int32_t, QString>& marks) { setMarks(m_whatIfMarks, marks); });
    // The first file's hint names three things to try (an edit, Explain, the lesson); once one is
    // done it has served (it stayed above the graph through a whole lesson).
    connect(m_whatIf, &WhatIfPanel::evaluated, this, [this] {
        if (m_whatIf->edited()) m_graphPanel->hideHint();
    });
    connect(m_whatIf, &WhatIfPanel::nodeActivated, m_graphPanel, &GraphPanel::showNode);
    connect(m_whatIf, &WhatIfPanel::alsoSelectedChanged, m_graphPanel,
            &GraphPanel::setAlsoSelected);
    connect(m_graphPanel, &GraphPanel::nodeMenuBuilt, this, &MainWindow::addWhatIfActions);
    // Ctrl-click in the graph adds a node to What-if's selection, or selects it when there is none.
    connect(m_graphPanel, &GraphPanel::nodeToggled, this, [this](int node) {
        const QString what = m_whatIf->toggleNode(node);
        if (what.isEmpty())
            m_graphPanel->showNode(node);
        else
            setStatus(what);
    });
    connect(m_whatIf, &WhatIfPanel::statusMessage, this, &MainWindow::setStatus);
    connect(m_graphPanel, &GraphPanel::nodeSelected, m_whatIf, [this](int node, bool within) {
        if (within)
            m_whatIf->chooseWithinSelection(node);
        else
            m_whatIf->selectNode(node);
    });
    connect(m_configPanel, &ConfigPanel::configChosen, m_whatIf, &WhatIfPanel::setChosenConfig);
    connect(m_models, &ModelSession::unrankedReady, m_whatIf, &WhatIfPanel::setUnranked);
    connect(m_models, &ModelSession::predictionsReady, m_whatIf, &WhatIfPanel::setPredictions);
}

void MainWindow::connectExplain() {
    connect(toolDock(tr("Explain")), &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible) m_graphPanel->hideHint();
    });
    connect(m_configPanel, &ConfigPanel::configChosen, m_explain, &ExplainPanel::setChosenConfig);
    connect(m_models, &ModelSession::predictionsReady, m_explain, &ExplainPanel::setPredictions);
    connect(m_explain, &ExplainPanel::overlayChanged, m_graphPanel, &GraphPanel::setConfigOverlay);
    connect(m_explain, &ExplainPanel::overlayChanged, m_inspector,
            &NodeInspector::setConfigOverlay);
    connect(m_explain, &ExplainPanel::nodeActivated, m_graphPanel, &GraphPanel::showNode);
    connect(m_graphPanel, &GraphPanel::nodeSelected, m_explain, &ExplainPanel::selectNode);
    // What the what-if editor holds is what the graph and the explanation show, live: an edit (a
    // tile bound too), or a start other than the chosen configuration (the lesson's); back at the
    // chosen configuration, that again. (Only layout edits counted, and with no configuration
    // chosen, a lesson's start left an earlier edit's labels in the graph.)
    connect(m_whatIf, &WhatIfPanel::evaluated, this, [this] {
        const int64_t chosen = m_configPanel->chosenConfig();
        if (chosen >= 0 && m_whatIf->holdsConfig(chosen))
            m_explain->setChosenConfig(chosen);
        else if (!m_whatIf->currentRow().empty())
            m_explain->explainRow(m_whatIf->currentRow(), m_whatIf->edited()
                                                              ? tr("the what-if edit")
                                                              : tr("the what-if editor's start"));
    });
    // A suggestion compared with the current configuration: A = the editor's row, B = the suggestion.
    connect(m_whatIf, &WhatIfPanel::compareRequested, this, [this](const std::vector<float>& row, const QString& label) {
        m_explain->explainRow(m_whatIf->currentRow(), tr("the current configuration"));
        m_explain->compareWithRow(row, label);
        raiseToolDock(tr("Explain"));
    });
    connect(m_explain, &ExplainPanel::comparedNodesChanged, this,
            [this](const QHash<int32_t, QString>& marks) { setMarks(m_compareMarks, marks); });
}

void MainWindow::connectConfigMenu() {
    QTableView* table = m_configPanel->table();
    table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(table, &QWidget::customContextMenuRequested, this, [this, table](const QPoint& pos) {
        const QModelIndex index = table->indexAt(pos);
        if (!index.isValid()) return;
        std::unique_ptr<QMenu> menu(configMenu(m_configPanel->model()->configAt(index.row())));
        if (menu) menu->exec(table->viewport()->mapToGlobal(pos));
    });
}

QMenu* MainWindow::configMenu(qint64 config) {
    if (m_graph.isNull() || config < 0 || config >= m_graph.numConfigs()) return nullptr;
    auto raise = [this](const QString& title) { raiseToolDock(title); };
    auto* menu = new QMenu(this);
    menu->addAction(tr("Explain Configuration %1").arg(config), this, [this, config, raise] {
        m_configPanel->chooseConfig(config);
        raise(tr("Explain"));
    });
    const qint64 chosen = m_configPanel->chosenConfig();
    QAction* compare = menu->addAction(
        chosen >= 0 && chosen != config ? tr("Compare with Configuration %1 (Chosen)").arg(chosen)
                                        : tr("Compare with the Chosen Configuration"),
        this, [this, config, raise] {
            m_explain->compareWith(config);
            raise(tr("Explain"));
        });
    compare->setEnabled(chosen >= 0 && chosen != config);
    QAction* edit = menu->addAction(tr("Edit in What-if"), this, [this, config, raise] {
        m_configPanel->chooseConfig(config);
        m_whatIf->startFrom(whatif::StartPoint{whatif::StartPoint::Kind::Row, config});
        raise(tr("What-if"));
    });
    edit->setEnabled(m_whatIf->ready());
    menu->addAction(tr("Copy Configuration"), this, [this, config] {
        std::vector<float> row;
        if (m_graph.isLayout()) {
            row.resize(static_cast<size_t>(m_graph.layoutConfigs()->rowSize()));
            m_graph.layoutConfigs()->read(config, 1, row.data());
        } else {
            row.assign(m_graph.tileConfig(config), m_graph.tileConfig(config) + m_graph.configFeatureWidth());
        }
        QGuiApplication::clipboard()->setText(QString::fromStdString(whatif::rowAsEdits(m_graph, row)));
        setStatus(tr("Configuration %1 copied as edits").arg(config));
    });
    menu->addSeparator();
    menu->addAction(tr("Copy Table Row"), this, [this, config] {
        if (m_configPanel->copyRow(m_configPanel->model()->rowOf(config)))
            setStatus(tr("Configuration %1's row copied with the column names").arg(config));
    });
    menu->addAction(m_configPanel->exportTableAction());
    return menu;
}

QDockWidget* MainWindow::toolDock(const QString& title) const {
    const auto it =
        std::find_if(m_toolDocks.begin(), m_toolDocks.end(),
                     [&title](const QDockWidget* d) { return d->windowTitle() == title; });
    return it == m_toolDocks.end() ? nullptr : *it;
}

// A configurable node's menu in the graph leads to its editor, alone or with the nodes alike.
void MainWindow::addWhatIfActions(QMenu* menu, int node) {
    if (!m_graph.isLayout() || m_graph.configurableIndex(node) < 0) return;
    const auto alike = static_cast<int64_t>(whatif::nodesAlike(m_graph, node).size()) - 1;
    const auto edit = [this, node](bool withAlike) {
        raiseToolDock(tr("What-if"));
        m_graphPanel->showNode(node);
        m_whatIf->selectNode(node);  // now: a node not drawn is selected in the graph only later
        if (withAlike) m_whatIf->selectAlike();
    };
    menu->addSeparator();
    QAction* one =
        menu->addAction(tr("Edit #%1 in What-if").arg(node), this, [edit] { edit(false); });
    one->setEnabled(m_whatIf->ready());
    QAction* all = menu->addAction(
        alike > 0 ? tr("Edit #%1 and %2 Alike in What-if")
                        .arg(node)
                        .arg(countOf(alike, tr("Node"), tr("Nodes")))
                  : tr("Edit with Nodes Alike in What-if (none has its opcode and output shape)"),
        this, [edit] { edit(true); });
    all->setEnabled(m_whatIf->ready() && alike > 0);
}

void MainWindow::raiseToolDock(const QString& title) {
    if (QDockWidget* d = toolDock(title)) {
        d->show();
        d->raise();
    }
}

void MainWindow::createLesson() {
    m_lesson = new LessonPanel(m_whatIf, this);
    m_tileLesson = new TileLessonPanel(m_whatIf, this);
    m_lessons = new QStackedWidget(this);
    m_lessons->addWidget(m_lesson);
    m_lessons->addWidget(m_tileLesson);
    m_lessonDock = new QDockWidget(tr("Lesson"), this);
    m_lessonDock->setObjectName(QStringLiteral("lessonDock"));
    m_lessonDock->setWidget(m_lessons);
    // Beside the dataset (not needed during a lesson), so the node inspector stays in view.
    addDockWidget(Qt::LeftDockWidgetArea, m_lessonDock);
    tabifyDockWidget(m_browserDock, m_lessonDock);
    m_browserDock->raise();
    m_lessonDock->hide();  // until Help › Learn
    m_viewMenu->addAction(m_lessonDock->toggleViewAction());
    connectLesson(m_lesson, tr("layout"), &lessonFile);
    connectLesson(m_tileLesson, tr("tile"), &tileLessonFile);
}

// A lesson's node and panel requests reach the window, the graph's selection reaches it, and
// its call for a file of its kind (`kind`) opens the sample's (`sampleFile` of the sample folder).
void MainWindow::connectLesson(GuidedLesson* lesson, const QString& kind,
                               QString (*sampleFile)(const QString&)) {
    connect(lesson, &GuidedLesson::nodeActivated, m_graphPanel, &GraphPanel::showNode);
    connect(m_graphPanel, &GraphPanel::nodeSelected, lesson, &GuidedLesson::selectNode);
    connect(lesson, &GuidedLesson::panelWanted, this, &MainWindow::raiseToolDock);
    connect(lesson, &GuidedLesson::fileWanted, this, [this, kind, sampleFile] {
        const QString file = sampleFile(findSampleDir(m_sampleCandidates));
        if (file.isEmpty())
            showError(
                tr("The lesson needs a %1 file").arg(kind),
                tr("No sample %1 file was found (looked in %2). Open a %1 file, then Help › Learn.")
                    .arg(kind, m_sampleCandidates.join(QStringLiteral(", "))));
        else
            openFile(file);
    });
}

void MainWindow::startLesson() {
    showLessonDock(m_lesson);
    m_lesson->begin();
}

void MainWindow::startTileLesson() {
    showLessonDock(m_tileLesson);
    m_tileLesson->begin();
}

void MainWindow::showLessonDock(QWidget* lesson) {
    m_graphPanel->hideHint();
    m_lessons->setCurrentWidget(lesson);
    m_lessonDock->show();
    m_lessonDock->raise();
    // Room for the lesson's text at a size a class can read.
    if (m_lessonDock->width() < width() / 4)
        resizeDocks({m_lessonDock, m_inspectorDock},
                    {width() * 2 / 7, std::max(m_inspectorDock->width(), width() / 5)},
                    Qt::Horizontal);
}

void MainWindow::connectTraining() {
    m_training->setGeneralModelProvider([this](Collection kind) {
        return m_models->modelFor(kind, m_currentFile, recordedByOpenFile());
    });
    m_training->setRunsFolder(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                              QStringLiteral("/runs"));
    connect(m_training, &TrainingPanel::useModelRequested, this,
            [this](const QString& path) { m_models->loadModel(path, m_graph); });
    // The bar is shared: the run's progress stays in its tab, and the bar says where.
    connect(m_training, &TrainingPanel::runStarted, this, [this] {
        setStatus(tr("Training: run started · its progress is in the Training tab"));
    });
    connect(m_training, &TrainingPanel::runFinished, this,
            [this] { setStatus(tr("Training: %1").arg(m_training->statusText())); });
    connect(m_training, &TrainingPanel::runFailed, this,
            [this](const QString& message) { showError(tr("Training could not run"), message); });
}

// Each choice of a configuration re-sends all three sets, the what-if and compared ones mostly
// empty as before: marking a 2,594-node configuration's nodes again for each took 5 ms.
void MainWindow::setMarks(QHash<int32_t, QString>& slot, const QHash<int32_t, QString>& marks) {
    if (slot == marks) return;
    slot = marks;
    updateMarks();
}

void MainWindow::updateMarks() {
    QHash<int32_t, QString> marks = m_configMarks;
    for (const auto* more : {&m_compareMarks, &m_whatIfMarks})
        for (auto it = more->begin(); it != more->end(); ++it) marks.insert(it.key(), it.value());
    m_graphPanel->setMarkedNodes(marks);
}

void MainWindow::loadModelFromDialog() {
    const QString path = chooseFileToOpen(this, tr("Load Cost Model"), costModelFileKind());
    if (!path.isEmpty()) m_models->loadModel(path, m_graph);
}

void MainWindow::setStatus(const QString& text) {
    m_statusBar->setMessage(text);
}

QString MainWindow::statusText() const {
    return m_statusBar->message();
}

void MainWindow::showFileWarnings() {
    QStringList lines;
    for (const auto& w : m_graph.warnings())
        lines << QStringLiteral("• ") + QString::fromStdString(w);
    if (lines.isEmpty()) return;
    if (m_warningsBox) {
        m_warningsBox->raise();
        m_warningsBox->activateWindow();
        return;
    }
    auto* box = new QMessageBox(
        QMessageBox::Information, tr("Warnings"),
        tr("%1 opened with these warnings:\n\n%2")
            .arg(QString::fromStdString(m_graph.name()), lines.join(QLatin1Char('\n'))),
        QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("warningsDialog"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->show();
    m_warningsBox = box;
}

void MainWindow::showError(const QString& title, const QString& message) {
    if (m_errorBox) m_errorBox->close();
    // Non-modal: the window stays usable behind it, and tests can find and read it.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("errorDialog"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->show();
    m_errorBox = box;
    emit errorShown(message);
}

void MainWindow::setInitialSelection(int node, qint64 config) {
    m_initialNode = node;
    m_initialConfig = config;
}

QString MainWindow::datasetRootOf(const QString& file) {
    // .../npz/tile/xla/SPLIT/F.npz or .../npz/layout/SRC/SEARCH/SPLIT/F.npz
    QDir dir = QFileInfo(file).absoluteDir();
    for (int up = 0; up < 4; ++up) {
        const QString name = dir.dirName();
        if (!dir.cdUp()) return {};
        if ((name == QLatin1String("tile") || name == QLatin1String("layout")) &&
            dir.dirName() == QLatin1String("npz"))
            return dir.absolutePath();
    }
    return {};
}

void MainWindow::openPath(const QString& path) {
    const QFileInfo info(path);
    if (info.isDir()) {
        openDataset(info.absoluteFilePath());
    } else if (info.exists()) {
        // A file of a dataset tree: the browser lists its dataset (unless it lists it already).
        const QString file = info.absoluteFilePath();
        const QString root = datasetRootOf(file);
        const QString listed = QFileInfo(m_browser->folder()).canonicalFilePath();
        const bool inListed = !listed.isEmpty() && info.canonicalFilePath().startsWith(listed + QLatin1Char('/'));
        if (!root.isEmpty() && !inListed)
            openDataset(root, file);
        else
            openFile(file);
    } else {
        showError(tr("Cannot open"), tr("%1: no such file or folder").arg(path));
    }
}

void MainWindow::openFile(const QString& pathIn) {
    const QString path = QFileInfo(pathIn).absoluteFilePath();
    if (m_loadJob && path == m_loadingFile) return;
    if (!m_loadJob && path == m_currentFile && !m_graph.isNull()) return;
    m_loadingFile = path;
    m_progress->show();
    setStatus(tr("Loading %1…").arg(QFileInfo(path).fileName()));
    const std::string p = path.toStdString();
    // Newest request wins: clicking through the browser quickly loads only the last file.
    m_loadJob = m_ioRunner->submit(QStringLiteral("load"), [p](JobControl&) {
        return QVariant::fromValue(loadWithGroundTruth(p));
    });
}

void MainWindow::onGraphLoaded(const QString& path, const TpuGraph& graph) {
    if (m_warningsBox) m_warningsBox->close();
    m_graph = graph;
    m_currentFile = path;
    // The panels' resets announce "no node, no configuration": not the user's choice, so the saved
    // session keeps its own until restoreSessionChoices has read it.
    m_restoringSession = true;
    m_graphPanel->setGraph(graph, path);
    m_inspector->setGraph(graph);
    m_configPanel->setGraph(graph);
    m_whatIf->setGraph(graph, path);
    m_explain->setGraph(graph, path);
    m_lesson->setGraph(graph, path);
    m_tileLesson->setGraph(graph, path);
    m_training->setCurrentFile(path, graph);
    m_restoringSession = false;
    showModelInUse(m_models->modelName(graph.collection(), path, graph.searchCollection()));
    m_models->predict(path, graph);
    updatePredictAction();
    // Loaded against the file, refused with a message if it cannot score it; it re-scores the file.
    if (!m_initialModel.isEmpty()) m_models->loadModel(std::exchange(m_initialModel, {}), graph);
    m_configPanel->setPredictionsPending(!graph.isNull());
    m_browser->selectFile(path);
    setWindowTitle(tr("%1 — TpuGraphs Explorer").arg(QString::fromStdString(graph.name())));
    QString summary = tr("%1 · %2 · %3 · %4 · %5")
                          .arg(QString::fromStdString(graph.name()),
                               QLatin1String(collectionName(graph.collection())),
                               countOf(graph.numNodes(), tr("node"), tr("nodes")),
                               countOf(graph.numEdges(), tr("edge"), tr("edges")),
                               countOf(graph.numConfigs(), tr("config"), tr("configs")));
    if (graph.isLayout())
        summary += tr(" · %1 configurable").arg(countText(graph.numConfigurable()));
    m_graphLabel->setText(summary);
    m_graphLabel->setToolTip(summary + QLatin1Char('\n') + QDir::toNativeSeparators(path));
    QStringList warnings;
    for (const auto& w : graph.warnings()) warnings << QString::fromStdString(w);
    m_warningLabel->setVisible(!warnings.isEmpty());
    m_warningLabel->setText(warnings.isEmpty()
                                ? QString()
                                : QStringLiteral("<a href='warnings' style='color:#8a6d00'>%1</a>")
                                      .arg(warnings.size() == 1
                                               ? tr("⚠ 1 warning")
                                               : tr("⚠ %1 warnings").arg(warnings.size())));
    m_warningLabel->setToolTip(warnings.join(QLatin1Char('\n')) + tr("\n(click to list them)"));
    if (!warnings.isEmpty())
        setStatus(tr("Opened with warnings: %1").arg(warnings.join(QStringLiteral("; "))));
    addRecent(path);
    restoreSessionChoices(path, graph);
    emit graphLoaded(path);
}

// Once a file's scoring ends, what it and the last file freed goes back to the OS (every file
// opened is scored): after a 45,000-node file, a 176-node one had kept the explorer at its peak,
// 904 MB, for the rest of the session.
void MainWindow::releaseFreedMemory() {
    m_ioRunner->submit(QStringLiteral("release-memory"), [](JobControl&) {
        nn::releaseFreedMemory();
        return QVariant();
    });
}

// The --node and --config ids the file lacks, in words ("" when it has both or none was asked).
QString MainWindow::missingSelectionText(const TpuGraph& graph, int node, qint64 config) {
    const QString name = QString::fromStdString(graph.name());
    QStringList parts;
    if (node >= graph.numNodes())
        parts << tr("--node %1 is not a node of %2 (0 to %3)")
                     .arg(node)
                     .arg(name)
                     .arg(graph.numNodes() - 1);
    if (config >= graph.numConfigs())
        parts << (graph.numConfigs() == 0
                      ? tr("--config %1: %2 has no configurations").arg(config).arg(name)
                      : tr("--config %1 is not a configuration of %2 (0 to %3)")
                            .arg(config)
                            .arg(name)
                            .arg(graph.numConfigs() - 1));
    return parts.join(QStringLiteral("; "));
}

// Back to the node and configuration the last session showed in this file (or those asked for
// on the command line); a first visit remembers the file instead.
void MainWindow::restoreSessionChoices(const QString& path, const TpuGraph& graph) {
    QSettings settings;
    const bool initial = m_initialNode >= 0 || m_initialConfig >= 0;
    if (initial || settings.value(kSessionFileKey).toString() == path) {
        m_restoringSession = !initial;
        const qint64 config =
            initial ? m_initialConfig : settings.value(kSessionConfigKey, -1).toLongLong();
        const int node = initial ? m_initialNode : settings.value(kSessionNodeKey, -1).toInt();
        m_initialNode = -1;
        m_initialConfig = -1;
        settings.setValue(kSessionFileKey, path);
        if (config >= 0 && config < graph.numConfigs()) m_configPanel->chooseConfig(config);
        if (node >= 0 && node < graph.numNodes()) m_graphPanel->showNode(node);
        if (initial) {  // the command line's: an id the file lacks is said where it stays in view
            const QString missing = missingSelectionText(graph, node, config);
            if (!missing.isEmpty()) m_graphPanel->showHint(missing);
        }
        m_restoringSession = false;
    } else {
        settings.setValue(kSessionFileKey, path);
        settings.remove(kSessionNodeKey);
        settings.remove(kSessionConfigKey);
        if (m_selectBestAfterOpen) chooseBestWithHint(graph);
    }
    m_selectBestAfterOpen = false;
}

void MainWindow::chooseBestWithHint(const TpuGraph& graph) {
    if (!graph.runtimesKnown()) return;
    const qint64 best = m_configPanel->model()->bestConfig();  // by the table's ranking (tile: normalised)
    m_configPanel->chooseConfig(best);
    m_graphPanel->showHint(tr("Configuration %1, the fastest measured, is chosen. Try: edit a layout in the "
                              "<b>What-if</b> tab, see why it is fast in <b>Explain</b>, or <b>Help › Learn</b> "
                              "for a guided lesson.")
                               .arg(best));
}

void MainWindow::openDataset(const QString& dir, const QString& fileToOpen) {
    m_fileAfterScan = fileToOpen;
    m_openFirstAfterScan = fileToOpen.isEmpty();
    m_browserDock->show();
    m_browser->openFolder(dir);
    m_training->setDatasetFolder(dir);
    QSettings().setValue(kSessionDatasetKey, dir);
    setStatus(tr("Scanning %1…").arg(dir));
}

void MainWindow::openSample() {
    const QString dir = findSampleDir(m_sampleCandidates);
    if (dir.isEmpty()) {
        setStatus(tr("No sample data found (looked in %1; set TPUGRAPHS_SAMPLE_DIR). Use File > "
                     "Open to open a graph.")
                      .arg(m_sampleCandidates.join(QStringLiteral(", "))));
        return;
    }
    openDataset(dir);
}

void MainWindow::startSession(const QString& argument) {
    if (!argument.isEmpty()) {
        openPath(argument);
        return;
    }
    QSettings settings;
    const QString dataset = settings.value(kSessionDatasetKey).toString();
    const QString file = settings.value(kSessionFileKey).toString();
    const bool fileOk = !file.isEmpty() && QFileInfo(file).isFile();
    if (!dataset.isEmpty() && QFileInfo(dataset).isDir()) {
        openDataset(dataset, fileOk && file.startsWith(dataset) ? file : QString());
        if (fileOk && !file.startsWith(dataset)) openFile(file);
        return;
    }
    if (fileOk) {
        openFile(file);
        return;
    }
    openSample();
}

bool MainWindow::canOpen(const QMimeData* mime) {
    if (!mime || !mime->hasUrls()) return false;
    for (const QUrl& url : mime->urls()) {
        const QFileInfo info(url.toLocalFile());
        if (url.isLocalFile() &&
            (info.isDir() || info.suffix().compare(QLatin1String("npz"), Qt::CaseInsensitive) == 0))
            return true;
    }
    return false;
}

bool MainWindow::openUrls(const QList<QUrl>& urls) {
    for (const QUrl& url : urls) {
        if (!url.isLocalFile()) continue;
        const QFileInfo info(url.toLocalFile());
        if (info.isDir() || info.suffix().compare(QLatin1String("npz"), Qt::CaseInsensitive) == 0) {
            openPath(info.absoluteFilePath());
            return true;
        }
    }
    return false;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (canOpen(event->mimeData())) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    if (openUrls(event->mimeData()->urls())) event->acceptProposedAction();
}

QStringList MainWindow::recentFiles() const {
    return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::addRecent(const QString& path) {
    QStringList recent = recentFiles();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecentFiles) recent.removeLast();
    QSettings().setValue(kRecentKey, recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    if (!m_recentMenu) return;
    m_recentMenu->clear();
    // Files (and folders) that no longer exist leave the list.
    QStringList recent = recentFiles();
    recent.erase(std::remove_if(recent.begin(), recent.end(), [](const QString& p) { return !QFileInfo::exists(p); }),
                 recent.end());
    if (recent != recentFiles()) QSettings().setValue(kRecentKey, recent);
    const QStringList labels = recentLabels(recent);
    for (qsizetype i = 0; i < recent.size(); ++i) {
        const QString path = recent[i];
        QAction* a = m_recentMenu->addAction(labels[i], this, [this, path] {
            if (!QFileInfo::exists(path)) {  // gone since the menu was built
                showError(tr("Cannot open"), tr("%1 no longer exists; it is removed from the recent files.").arg(path));
                rebuildRecentMenu();
                return;
            }
            openPath(path);
        });
        a->setToolTip(path);
        a->setStatusTip(path);
    }
    if (!recent.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear List"), this, [this] {
            QSettings().remove(kRecentKey);
            rebuildRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

QString MainWindow::viewCaption() const {
    if (m_graph.isNull()) return {};
    if (!m_whatIf->editedNodes().isEmpty())
        return tr("Configuration: the what-if edit (%1 changed from its start)")
            .arg(countOf(m_whatIf->editedNodes().size(), tr("node"), tr("nodes")));
    const qint64 chosen = m_configPanel->chosenConfig();
    if (chosen < 0) return tr("No configuration chosen: the file's default layouts");
    QString text = tr("Configuration %1").arg(chosen);
    if (m_graph.runtimesKnown())
        text += tr(": %1 measured").arg(QString::fromStdString(explain::nsText(m_graph.runtimes()[static_cast<size_t>(chosen)])));
    return text;
}

void MainWindow::exportView(bool svg, bool visibleOnly) {
    if (m_graph.isNull()) {
        setStatus(tr("Nothing to export: no graph open"));
        return;
    }
    // Both formats share a folder: a user exporting a picture both ways wants them side by side.
    const FileKind kind{QStringLiteral("view-export"),
                        svg ? tr("SVG images (*.svg)") : tr("PNG images (*.png)"),
                        svg ? QStringLiteral("svg") : QStringLiteral("png")};
    const QString suggested = QFileInfo(m_currentFile).completeBaseName() + QLatin1Char('-') +
                              m_graphPanel->currentSpec().fileStem() + QLatin1Char('.') +
                              kind.suffix;
    const QString path = chooseFileToSave(
        this, svg ? tr("Export view as SVG") : tr("Export view as PNG"), kind, suggested);
    if (path.isEmpty()) return;
    const QString error = svg ? m_graphPanel->exportSvg(path, visibleOnly, viewCaption())
                              : m_graphPanel->exportPng(path, visibleOnly, viewCaption());
    if (!error.isEmpty())
        showError(tr("Export failed"), error);
    else
        setStatus(tr("Exported %1").arg(path));
}

void MainWindow::saveWindowState() {
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState(kWindowStateVersion));
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (m_stateRestored || m_defaultDocksSized) return;
    // Without a saved arrangement, the docks' default widths once the window has its size: the
    // tree's names and the inspector's feature names readable, not squeezed to a sliver.
    m_defaultDocksSized = true;
    sizeDefaultDocks();
}

void MainWindow::sizeDefaultDocks() {
    resizeDocks({m_browserDock, m_inspectorDock}, {std::max(300, width() / 5), std::max(380, width() / 4)},
                Qt::Horizontal);
    resizeDocks({m_configDock}, {height() * kBottomAreaPercent / 100}, Qt::Vertical);
}

// Every dock back where a first launch puts it, docked and shown (the lesson only while it runs):
// a dock closed, floated or moved stayed so in every later session, the arrangement being saved.
// The window keeps its size (a dock docked beside another on the way made it grow past the screen).
void MainWindow::resetWindowLayout() {
    const QSize before = size();
    const auto place = [this](QDockWidget* d, Qt::DockWidgetArea area) {
        d->setFloating(false);
        if (dockWidgetArea(d) != area) addDockWidget(area, d);
        d->show();
    };
    place(m_browserDock, Qt::LeftDockWidgetArea);
    place(m_inspectorDock, Qt::RightDockWidgetArea);
    place(m_configDock, Qt::BottomDockWidgetArea);
    for (QDockWidget* d : m_toolDocks) {
        d->setFloating(false);
        tabifyDockWidget(m_configDock, d);
        d->show();
        d->setProperty("grown", false);  // grows to its share again when next raised
    }
    const bool lesson = m_lesson->running() || m_tileLesson->running();
    m_lessonDock->setFloating(false);
    tabifyDockWidget(m_browserDock, m_lessonDock);
    m_lessonDock->setVisible(lesson);
    m_configDock->raise();
    (lesson ? m_lessonDock : m_browserDock)->raise();
    resize(before);
    sizeDefaultDocks();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (m_training->isRunning()) {
        const auto answer = QMessageBox::question(
            this, tr("Training in progress"),
            tr("A training run is in progress. Stop it and quit?\n\nThe best model so far and the run's state are "
               "kept: the run can be resumed from the Training panel."),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
        m_training->stop();  // the worker saves the state; the panel's runner joins it on destruction
    }
    saveWindowState();
    QMainWindow::closeEvent(event);
}

}  // namespace tpg
