#include "WhatIfPanel.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSet>
#include <QStandardItemModel>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "CountText.h"
#include "DefaultModels.h"
#include "ElidedLabel.h"
#include "FileKind.h"
#include "FilePredictions.h"
#include "FittingSplitter.h"
#include "JobRunner.h"
#include "ModelNameText.h"
#include "RuntimeText.h"
#include "SuggestionPanel.h"
#include "SweepChart.h"
#include "VerticalScrollArea.h"
#include "WidgetLimits.h"
#include "graph/GraphFile.h"
#include "graph/Schema.h"
#include "io/CompactMatrix.h"
#include "io/Error.h"
#include "session/WhatIfSession.h"
#include "synth/TpuCostModel.h"

Q_DECLARE_METATYPE(std::vector<tpg::SweepChart::Point>)

namespace tpg {

namespace {

// "#97", or "#97 and 12 more": the nodes an edit went to, in its undo step's text.
QString nodesText(const std::vector<int32_t>& nodes) {
    if (nodes.empty()) return {};
    const QString first = QStringLiteral("#%1").arg(nodes.front());
    return nodes.size() == 1 ? first
                             : QObject::tr("%1 and %2 more").arg(first).arg(nodes.size() - 1);
}

// An undo or redo button that keeps its short label and says what it undoes in its tooltip: with
// the edit's text on it ("Undo #97 output {0,3,2,1}") the top row outgrew a 1024-px screen and
// the window with it.
QToolButton* historyButton(QAction* action, const QString& label, QWidget* parent) {
    auto* button = new QToolButton(parent);
    button->setText(label);
    const auto follow = [button, action] {
        button->setEnabled(action->isEnabled());
        button->setToolTip(action->text());
    };
    follow();
    QObject::connect(action, &QAction::changed, button, follow);
    QObject::connect(button, &QToolButton::clicked, action, &QAction::trigger);
    return button;
}

QString sweepToolTip() {
    return WhatIfPanel::tr("Sweep: predict every value of this slot, everything else fixed");
}

// A tab widget as tall as its tallest page's minimum. QTabWidget takes its pages' preferred
// heights for its width as its minimum once a page wraps text (the Suggest page's summary), so
// the search results' 192-px list hint made the What-if panel too tall for half a 768-px window.
class ShrinkingTabWidget : public QTabWidget {
public:
    using QTabWidget::QTabWidget;
    bool hasHeightForWidth() const override { return false; }
};

constexpr int kSlots = 3;
constexpr int kLargestTileCandidate = 4096;  // the largest tile size the compiler tries
constexpr int kStartBestPredicted = 3;       // "the best predicted" in the start list
// The runs list's columns other than the label, which stretches: #, Predicted, vs previous,
// Rank, Pin.
constexpr std::array<int, 5> kRunFigureColumns{0, 2, 3, 4, 5};

QString ns(double v) { return nsText(v, QObject::tr("unknown")); }
QString change(double now, double reference) {
    return changeText(now, reference);
}

QString rankText(int64_t rank) {
    return rank == 0 ? QStringLiteral("…") : countText(rank);
}

// A predicted runtime, "≤ " or "≥ " where the fit clamped it (WhatIfReport::beyondFit); unranked,
// the score.
QString predictedText(const whatif::WhatIfReport& r) {
    if (r.unranked()) return scoreText(r.score);
    return boundPrefix(r.beyondFit) + ns(r.predictedNs);
}

// `now` against `before`: in percent of the fitted runtimes, or by the scores where either lies
// beyond the fit (clamped there, equal runtimes need not mean equal predictions) or either is
// unranked (no runtime yet).
QString predictedChange(const whatif::WhatIfReport& now, const whatif::WhatIfReport& before) {
    if (now.unranked() || before.unranked()) {
        if (now.score == before.score) return QObject::tr("same score");
        return now.score < before.score ? QObject::tr("faster (by score)")
                                        : QObject::tr("slower (by score)");
    }
    switch (whatif::changeByScoreOnly(now, before)) {
        case -1:
            return QObject::tr("faster (by score)");
        case 1:
            return QObject::tr("slower (by score)");
        default:
            return change(now.predictedNs, before.predictedNs);
    }
}

// Every permutation of 0..rank-1 in lexicographic order (rank 6: 720).
std::vector<std::vector<int>> permutations(int rank) {
    std::vector<int> p(static_cast<size_t>(rank));
    for (int i = 0; i < rank; ++i) p[static_cast<size_t>(i)] = i;
    std::vector<std::vector<int>> out;
    do out.push_back(p);
    while (std::next_permutation(p.begin(), p.end()));
    return out;
}

// Sizes a tile bound can take: the compiler's candidates (powers of two, lane multiples) below the
// dimension, the dimension itself (the whole of it: a larger bound tiles it whole) and the current
// value; 0 for the whole dimension only where its size is unknown (a set 0 is written as the size,
// whatif::wholeAsDimension). `dimension` 0: not known (every candidate); -1: no such dimension.
std::vector<int> tileSizes(int current, int64_t dimension) {
    std::vector<int> s = {current};
    if (dimension <= 0) s.push_back(0);
    auto offer = [&](int v) {
        if (dimension == 0 || v < dimension) s.push_back(v);
    };
    if (dimension >= 0) {
        for (int v = 1; v <= kLargestTileCandidate; v *= 2) offer(v);
        for (int v = 384; v <= kLargestTileCandidate; v += 128) offer(v);
        if (dimension > 0)
            s.push_back(
                static_cast<int>(std::min<int64_t>(dimension, std::numeric_limits<int>::max())));
    }
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    return s;
}

// One edit: the whole row before and after, so undo and redo are exact; consecutive edits of
// one node (or one tile bound) merge into one step, other edits never.
class RowEditCommand : public QUndoCommand {
public:
    RowEditCommand(WhatIfPanel* panel, std::vector<float> before, std::vector<float> after, const QString& text,
                   int mergeKey)
        : QUndoCommand(text), m_panel(panel), m_before(std::move(before)), m_after(std::move(after)),
          m_key(mergeKey) {}
    void redo() override { m_panel->applyRow(m_after, text()); }
    void undo() override { m_panel->applyRow(m_before, QObject::tr("undo: %1").arg(text())); }
    int id() const override { return 1; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* o = static_cast<const RowEditCommand*>(other);
        if (m_key == WhatIfPanel::kNoMerge || o->m_key != m_key) return false;
        m_after = o->m_after;
        setText(o->text());
        return true;
    }

private:
    WhatIfPanel* m_panel;
    std::vector<float> m_before, m_after;
    int m_key;
};

}  // namespace

WhatIfPanel::WhatIfPanel(JobRunner* runner, QWidget* parent) : QWidget(parent), m_runner(runner) {
    m_undo = new QUndoStack(this);
    buildUi();
    connect(m_runner, &JobRunner::finished, this, [this](quint64 id, const QVariant& result) {
        if (id != m_pendingJob) return;  // superseded by a newer edit
        m_pendingJob = 0;
        if (result.userType() == qMetaTypeId<std::vector<whatif::WhatIfReport>>())
            showLoadedReports(result.value<std::vector<whatif::WhatIfReport>>());
        else
            showReport(result.value<whatif::WhatIfReport>());
    });
    connect(m_runner, &JobRunner::finished, this, [this](quint64 id, const QVariant& result) {
        if (id != m_rerankJob) return;
        m_rerankJob = 0;
        showReranked(result.value<std::vector<whatif::WhatIfReport>>());
    });
    connect(m_runner, &JobRunner::finished, this, [this](quint64 id, const QVariant& result) {
        if (id != m_sweepJob) return;
        m_sweepJob = 0;
        m_sweepChart->setSweep(m_sweepLabel, result.value<std::vector<SweepChart::Point>>(),
                               m_sweepCurrent, m_sweepInNs ? m_predictor->bestMeasuredNs() : -1,
                               m_sweepInNs, sweepOutsideNote());
        emit swept();
    });
    connect(m_runner, &JobRunner::failed, this, [this](quint64 id, const QString& message) {
        if (id == m_rerankJob) {
            m_rerankJob = 0;
            m_result->setText(
                tr("Cannot rank the configurations evaluated so far: %1").arg(message));
            return;
        }
        if (id == m_sweepJob) {
            m_sweepJob = 0;
            m_sweepChart->clear(tr("Sweep failed: %1").arg(message));
            emit swept();
            return;
        }
        if (id != m_pendingJob) return;
        m_pendingJob = 0;
        m_result->setText(tr("Cannot predict this configuration: %1").arg(message));
        emit evaluated();
    });
    setGraph(TpuGraph(), QString());
}

void WhatIfPanel::buildUi() {
    QHBoxLayout* top = buildTopRow();
    buildNodeList();
    buildEditor();
    QWidget* right = buildResults();
    buildSplit(right);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_split, 1);
}

// Where to start from, undo and redo, the session's files and the model's name.
QHBoxLayout* WhatIfPanel::buildTopRow() {
    m_start = new QComboBox(this);
    m_start->addItems({tr("the chosen configuration"), tr("the compiler default"), tr("the best measured"),
                       tr("the best predicted")});
    updateStartChoices();
    auto* startButton = new QPushButton(tr("Start"), this);
    startButton->setToolTip(tr("Start a what-if session from this configuration (clears the undo history)"));
    connect(startButton, &QPushButton::clicked, this, [this] {
        switch (m_start->currentIndex()) {
            case 0:
                startFromChosen();
                break;
            case 1: startFrom(whatif::StartPoint::parse("default")); break;
            case 2: startFrom(whatif::StartPoint::parse("best")); break;
            default:
                startFrom(whatif::StartPoint::parse("predicted-best"));
                break;
        }
    });
    auto* undo = historyButton(m_undo->createUndoAction(this, tr("Undo")), tr("Undo"), this);
    auto* redo = historyButton(m_undo->createRedoAction(this, tr("Redo")), tr("Redo"), this);
    // Cut in the middle where the row is short: a training run's model named whole had made the
    // panel, and the window, wider than a 1024-px screen.
    m_modelLabel = new ElidedLabel(this);
    m_modelLabel->setObjectName(QStringLiteral("whatIfModelLabel"));
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Start from"), this));
    top->addWidget(m_start);
    top->addWidget(startButton);
    top->addWidget(undo);
    top->addWidget(redo);
    top->addSpacing(12);
    // On the top row, not under the runs: below the runs list they fell out of sight on a
    // 1024 x 600 screen, behind the right column's scroll bar.
    addSessionFileButtons(top);
    top->addWidget(m_modelLabel);
    return top;
}

void WhatIfPanel::buildNodeList() {
    m_nodes = new QTreeWidget(this);
    m_nodes->setRootIsDecorated(false);
    m_nodes->setUniformRowHeights(true);
    m_nodes->setAlternatingRowColors(true);
    connect(m_nodes, &QTreeWidget::itemSelectionChanged, this, &WhatIfPanel::refreshEditor);
    connect(m_nodes, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (!item) return;
        m_node = item->data(0, Qt::UserRole).toInt();
        refreshEditor();
        if (isLayoutFile()) emit nodeActivated(m_node);
    });
}

// The chosen node's slots, each with its values and a sweep button, and "Default".
void WhatIfPanel::buildEditor() {
    auto* editor = new QWidget(this);
    m_editor = editor;
    auto* grid = new QGridLayout(editor);
    m_editorTitle = new QLabel(editor);
    m_editorTitle->setWordWrap(true);
    grid->addWidget(m_editorTitle, 0, 0, 1, 2);
    for (int s = 0; s < kSlots; ++s) {
        m_slotLabels[s] = new QLabel(editor);
        m_slotBoxes[s] = new QComboBox(editor);
        m_slotBoxes[s]->setMaxVisibleItems(24);
        m_slotBoxes[s]->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        m_slotBoxes[s]->setMinimumContentsLength(widgetlimits::kValueBoxMinChars);
        grid->addWidget(m_slotLabels[s], 1 + s, 0);
        grid->addWidget(m_slotBoxes[s], 1 + s, 1);
        m_sweepButtons[s] = new QPushButton(QStringLiteral("⇅"), editor);
        m_sweepButtons[s]->setMaximumWidth(32);
        grid->addWidget(m_sweepButtons[s], 1 + s, 2);
        connect(m_sweepButtons[s], &QPushButton::clicked, this, [this, s] { sweep(s); });
        connect(m_slotBoxes[s], &QComboBox::activated, this, [this, s](int index) {
            const QVariant v = m_slotBoxes[s]->itemData(index);
            if (isLayoutFile()) {
                std::vector<int> m;
                for (const QVariant& x : v.toList()) m.push_back(x.toInt());
                setLayouts(selectedNodes(), static_cast<whatif::LayoutSlot>(s), m);
            } else {
                setTileBound(m_node, v.toFloat());
            }
        });
    }
    m_defaultButton = new QPushButton(tr("Default"), editor);
    m_defaultButton->setToolTip(tr(
        "Let the compiler choose every layout of this node, or of every selected node (all -1)"));
    connect(m_defaultButton, &QPushButton::clicked, this, [this] {
        const std::vector<int32_t> nodes = selectedNodes();
        std::vector<float> row = m_row;
        for (int s = 0; s < kSlots; ++s)
            whatif::applyLayoutToNodes(m_graph, row, nodes, static_cast<whatif::LayoutSlot>(s), {});
        pushEdit(row, tr("%1 all default").arg(nodesText(nodes)),
                 nodes.size() == 1 ? m_node : kNoMerge);
    });
    m_alikeButton = new QPushButton(tr("Select Alike"), editor);
    m_alikeButton->setToolTip(
        tr("Select every configurable node with this one's opcode and output shape: an edit then "
           "sets each of them (Ctrl- or Shift-click in the list or the graph selects by hand)"));
    connect(m_alikeButton, &QPushButton::clicked, this, &WhatIfPanel::selectAlike);
    // Under the slot labels, which are wider than it: the editor keeps its width.
    grid->addWidget(m_alikeButton, 4, 0, Qt::AlignRight);
    grid->addWidget(m_defaultButton, 4, 1);
    grid->setRowStretch(5, 1);
}

// The prediction's text above the tabs of runs, the sweep chart and the suggestions.
QWidget* WhatIfPanel::buildResults() {
    m_result = new QLabel(this);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_preparingPoll = new QTimer(this);
    m_preparingPoll->setInterval(widgetlimits::kDecodeProgressPollMs);
    connect(m_preparingPoll, &QTimer::timeout, this, &WhatIfPanel::showPreparing);
    m_runList = new QTreeWidget(this);
    m_runList->setHeaderLabels({tr("#"), tr("Configuration"), tr("Predicted"), tr("vs previous"), tr("Rank"), tr("Pin")});
    m_runList->setRootIsDecorated(false);
    m_runList->setUniformRowHeights(true);
    // The label takes the width the figures do not need (it was cut to "start: the co…" while
    // the pin column stretched over the rest).
    m_runList->header()->setStretchLastSection(false);
    m_runList->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_runList->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    clearRunList();
    connect(m_runList, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
        if (column != 5) return;
        const int run = item->data(0, Qt::UserRole).toInt();
        if (run >= 0 && run < static_cast<int>(m_runs.size()))
            m_runs[static_cast<size_t>(run)].pinned = item->checkState(5) == Qt::Checked;
    });
    connect(m_runList, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        const int run = item->data(0, Qt::UserRole).toInt();
        if (run >= 0 && run < static_cast<int>(m_runs.size()))
            pushEdit(m_runs[static_cast<size_t>(run)].row, tr("back to run %1").arg(run + 1),
                     kNoMerge);
    });
    auto* runs = new QWidget(this);
    auto* runsLayout = new QVBoxLayout(runs);
    runsLayout->setContentsMargins(0, 0, 0, 0);
    runsLayout->addWidget(m_runList, 1);
    m_sweepChart = new SweepChart(this);
    connect(m_sweepChart, &SweepChart::candidateClicked, this, &WhatIfPanel::applySweepEdit);
    m_suggestions = new SuggestionPanel(this);
    connect(m_suggestions, &SuggestionPanel::loadRequested, this,
            [this](const std::vector<float>& row, const QString& label) {
                pushEdit(row, label, kNoMerge);
            });
    connect(m_suggestions, &SuggestionPanel::compareRequested, this, &WhatIfPanel::compareRequested);
    m_tabs = new ShrinkingTabWidget(this);
    m_tabs->addTab(runs, tr("Runs"));
    m_tabs->addTab(m_sweepChart, tr("Sweep"));
    m_tabs->addTab(m_suggestions, tr("Suggest"));
    m_tabs->setTabToolTip(2, tr("Suggest faster configurations: a search guided by the cost model"));
    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_result);
    rightLayout->addWidget(m_tabs, 1);
    return right;
}

// Node list, editor and results side by side, each column asking for the width it needs.
void WhatIfPanel::buildSplit(QWidget* right) {
    m_split = new FittingSplitter(this);
    m_split->addWidget(m_nodes);
    m_split->addWidget(m_editor);
    // In a scroll area: a report or a search summary of more lines would otherwise grow the
    // panel's minimum height, and with it the docks (the tab row moved from under the mouse).
    auto* rightScroll = new VerticalScrollArea(right, this);
    rightScroll->setFrameShape(QFrame::NoFrame);
    m_split->addWidget(rightScroll);
    m_split->setWantedWidth(
        0,
        [this] {
            // The columns as sized, not the header's length: its last section stretches.
            return widthForColumns(*m_nodes, m_nodeColumnsWidth > 0 ? m_nodeColumnsWidth
                                                                    : m_nodes->header()->length());
        },
        widgetlimits::kWhatIfNodeListMaxShare);
    // The editor only grows within a file: it asks for more once a node's slots show, and a
    // split that jumped back and forth with the selection would move the runs under the mouse.
    m_split->setWantedWidth(1, [this] {
        m_editorFitWidth = std::max(
            {m_editorFitWidth, m_editor->sizeHint().width(), m_editor->minimumSizeHint().width()});
        return m_editorFitWidth;
    });
}

// Save, Load and Export, and what was last saved.
void WhatIfPanel::addSessionFileButtons(QHBoxLayout* row) {
    auto* save = new QPushButton(tr("Save…"), this);
    auto* load = new QPushButton(tr("Load…"), this);
    auto* exportButton = new QPushButton(tr("Export .npz…"), this);
    save->setToolTip(tr("Save this session's configurations as JSON"));
    load->setToolTip(tr("Load a saved what-if session for this file"));
    exportButton->setToolTip(
        tr("Write the evaluated configurations as an .npz that `tpugraphs predict` scores"));
    connect(save, &QPushButton::clicked, this, [this] { sessionFileAction(true, false); });
    connect(load, &QPushButton::clicked, this, [this] { sessionFileAction(false, false); });
    connect(exportButton, &QPushButton::clicked, this, [this] { sessionFileAction(true, true); });
    row->addWidget(save);
    row->addWidget(load);
    row->addWidget(exportButton);
    // By its file name (the whole path is its tooltip); Ignored, so that a long name is cut
    // (in the middle, keeping its end) rather than widening the panel.
    m_fileNote = new ElidedLabel(this);
    m_fileNote->setObjectName(QStringLiteral("whatIfFileNote"));
    m_fileNote->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    row->addWidget(m_fileNote, 1);
}

void WhatIfPanel::sessionFileAction(bool saving, bool npz) {
    const FileKind kind = npz ? FileKind{QStringLiteral("whatif-npz"),
                                         tr("TpuGraphs files (*.npz)"), QStringLiteral("npz")}
                              : FileKind{QStringLiteral("whatif-session"),
                                         tr("What-if sessions (*.json)"), QStringLiteral("json")};
    // Not beside the open file: an .npz exported into a dataset's split would be listed, and
    // trained on, as one of its graphs.
    const QString suggested =
        QFileInfo(m_file).completeBaseName() + QStringLiteral("-whatif.") + kind.suffix;
    const QString path =
        saving
            ? chooseFileToSave(this, npz ? tr("Export .npz") : tr("Save Session"), kind, suggested)
            : chooseFileToOpen(this, tr("Load Session"), kind);
    if (path.isEmpty()) return;
    QString error;
    const bool ok = npz      ? exportNpz(path, &error)
                    : saving ? saveSession(path, &error)
                             : loadSession(path, &error);
    if (!ok) {
        m_result->setText(error);
        return;
    }
    if (!saving) return;  // the loaded runs show themselves
    const QString runs =
        countOf(static_cast<int64_t>(m_runs.size()), tr("configuration"), tr("configurations"));
    const QString wrote = npz ? tr("Exported %1 to %2") : tr("Saved %1 to %2");
    m_fileNote->setText(wrote.arg(runs, QFileInfo(path).fileName()));
    m_fileNote->setToolTip(QDir::toNativeSeparators(path));
    emit statusMessage(wrote.arg(runs, QDir::toNativeSeparators(path)));
}

void WhatIfPanel::showSuggestions() { m_tabs->setCurrentWidget(m_suggestions); }

void WhatIfPanel::showPreparing() {
    const auto& table = isLayoutFile() ? m_graph.layoutConfigs() : nullptr;
    if (m_predictor || m_graph.isNull()) {
        m_preparingPoll->stop();
        return;
    }
    if (table && !table->complete() && table->error().empty()) {
        m_result->setText(
            tr("Decompressing the file's %1 (%2%): edits can start once they are read…")
                .arg(countOf(table->numConfigs(), tr("configuration"), tr("configurations")))
                .arg(static_cast<int>(table->progress() * 100)));
        m_preparingPoll->start();
        return;
    }
    m_preparingPoll->stop();
    m_result->setText(tr("Preparing the cost model for this file…"));
}

bool WhatIfPanel::isLayoutFile() const { return !m_graph.isNull() && m_graph.isLayout(); }

void WhatIfPanel::setGraph(const TpuGraph& graph, const QString& file) {
    m_graph = graph;
    m_file = file;
    m_fileNote->clear();
    m_fileNote->setToolTip({});
    m_predictor.reset();
    m_modelName.clear();
    m_runner->cancelLane(QStringLiteral("whatif"));
    m_pendingJob = 0;
    m_runner->cancelLane(QStringLiteral("rerank"));
    m_rerankJob = 0;
    m_undo->clear();
    m_row.clear();
    m_startRow.clear();
    m_runs.clear();
    m_report.reset();
    m_startReport.reset();
    m_chosenConfig = -1;
    m_node = -1;
    clearRunList();
    m_nodes->clear();
    showNodeListHeader();
    m_runner->cancelLane(QStringLiteral("sweep"));
    m_sweepJob = 0;
    m_sweepEdits.clear();
    m_sweepChart->clear(tr("Sweep a slot: the ⇅ button beside it predicts every value."));
    m_suggestions->setPredictor(nullptr);
    updateStartChoices();
    if (graph.isNull())
        m_result->setText(tr("No graph open."));
    else
        showPreparing();
    m_modelLabel->clear();
    m_modelLabel->setToolTip(QString());
    refreshEditor();
    setEnabled(!graph.isNull());
    emit editedNodesChanged({});
}

// Also when the editor has a predictor: this is a newer scoring of the file (another model, or the
// program rule switched), whose edits should not wait for it either.
void WhatIfPanel::setUnranked(const UnrankedPredictor& unranked) {
    if (!unranked.predictor || unranked.file != m_file) return;
    if (unranked.sameModel && m_predictor && !m_predictor->isRanked() &&
        unranked.modelName == m_modelName) {
        // The same scores: the session goes on, and this scoring's predictions rank it.
        m_predictor = unranked.predictor;
        return;
    }
    usePredictor(unranked.predictor, unranked.modelName);
}

void WhatIfPanel::setPredictions(const std::shared_ptr<const FilePredictions>& predictions) {
    if (!predictions || predictions->file != m_file) return;
    // The same scoring's unranked predictor (one synthetic TPU): the session goes on, ranked.
    const bool ranksSession =
        m_predictor && !m_startRow.empty() && predictions->predictor->ranks(*m_predictor);
    if (!ranksSession) {
        usePredictor(predictions->predictor, predictions->modelName);
        return;
    }
    m_predictor = predictions->predictor;
    m_suggestions->rankWith(m_predictor);
    updateStartChoices();
    rerankRuns();
    runSweep();  // in runtimes now
}

void WhatIfPanel::usePredictor(std::shared_ptr<whatif::WhatIfPredictor> predictor,
                               const QString& modelName) {
    m_predictor = std::move(predictor);
    m_modelName = modelName;
    m_modelLabel->setText(shortModelName(modelName));
    m_modelLabel->setToolTip(tr("The model that predicts the runtimes: %1").arg(modelName));
    m_suggestions->setPredictor(m_predictor);
    updateStartChoices();
    if (isLayoutFile()) {
        if (const std::string why = whatif::layoutEditingUnavailable(m_graph); !why.empty()) {
            m_result->setText(QString::fromStdString(why));
            return;
        }
    }
    startFromChosen();
}

void WhatIfPanel::updateStartChoices() {
    auto* choices = qobject_cast<QStandardItemModel*>(m_start->model());
    QStandardItem* bestPredicted = choices ? choices->item(kStartBestPredicted) : nullptr;
    if (!bestPredicted) return;
    const bool known = ranked();
    bestPredicted->setEnabled(known);
    bestPredicted->setToolTip(known ? QString()
                                    : tr("Known once the file's configurations are scored"));
    if (!known && m_start->currentIndex() == kStartBestPredicted) m_start->setCurrentIndex(0);
}

// The runs evaluated before the file was scored, evaluated again for their ranks and runtimes
// (one job); an evaluation still pending is submitted again to the ranked predictor.
void WhatIfPanel::rerankRuns() {
    if (m_pendingJob != 0) {
        if (!m_loaded.empty())
            evaluateLoaded(std::move(m_loaded));
        else
            evaluate(m_pendingLabel);
    }
    std::vector<std::vector<float>> rows;
    rows.reserve(m_runs.size());
    for (const Run& r : m_runs) rows.push_back(r.row);
    if (rows.empty()) return;
    auto predictor = m_predictor;
    m_rerankJob = m_runner->submit(QStringLiteral("rerank"),
                                   [predictor, rows = std::move(rows)](JobControl& job) {
                                       return evaluateRows(*predictor, rows, job);
                                   });
}

void WhatIfPanel::showReranked(const std::vector<whatif::WhatIfReport>& reports) {
    if (m_runs.empty() || reports.size() > m_runs.size()) return;
    for (size_t i = 0; i < reports.size(); ++i) m_runs[i].report = reports[i];
    for (size_t i = 0; i < m_runs.size(); ++i) {
        auto* item = m_runList->topLevelItem(static_cast<int>(i));
        if (!item) continue;
        const whatif::WhatIfReport& r = m_runs[i].report;
        item->setText(2, predictedText(r));
        item->setText(3, i > 0 ? predictedChange(r, m_runs[i - 1].report) : QStringLiteral("–"));
        item->setText(4, rankText(r.rank));
        widenRunColumns(*item);
    }
    m_startReport = m_runs.front().report;
    if (m_pendingJob == 0) {
        m_report = m_runs.back().report;
        m_result->setText(resultText());
        m_suggestions->setCurrent(m_row, *m_report);
    }
    emit reranked();
}

// "The chosen configuration", or with none chosen the compiler's default, saying why: the start
// list reads "the chosen configuration" either way.
void WhatIfPanel::startFromChosen() {
    if (m_chosenConfig >= 0)
        startFrom(whatif::StartPoint{whatif::StartPoint::Kind::Row, m_chosenConfig});
    else
        startFrom(whatif::StartPoint::parse("default"), tr(" (no configuration chosen)"));
}

void WhatIfPanel::setChosenConfig(int64_t config) {
    m_chosenConfig = config;
    if (m_predictor && config >= 0 && m_start->currentIndex() == 0 && m_undo->count() == 0 &&
        !holdsConfig(config))
        startFrom(whatif::StartPoint{whatif::StartPoint::Kind::Row, config});
}

bool WhatIfPanel::holdsConfig(int64_t config) const {
    return m_predictor && config >= 0 && config < m_graph.numConfigs() && !m_row.empty() &&
           m_row == m_predictor->row(config);
}

void WhatIfPanel::startFrom(const whatif::StartPoint& start, const QString& note) {
    if (!m_predictor) return;
    std::vector<float> row;
    try {
        row = m_predictor->startRow(start);
    } catch (const FormatError& e) {
        m_error = QString::fromUtf8(e.what());
        m_result->setText(m_error);
        return;
    }
    startFromRow(row, tr("start: %1%2").arg(QString::fromStdString(start.text()), note));
}

void WhatIfPanel::startFromRow(const std::vector<float>& row, const QString& label) {
    if (!m_predictor) return;
    m_startRow = row;
    m_startLabel = label;
    m_runner->cancelLane(QStringLiteral("rerank"));
    m_rerankJob = 0;
    m_undo->clear();
    m_runs.clear();
    clearRunList();
    m_startReport.reset();
    applyRow(m_startRow, m_startLabel);
}

void WhatIfPanel::applyRow(const std::vector<float>& row, const QString& label) {
    m_row = row;
    const QHash<int32_t, QString> edited = editedNodes();
    refreshNodeList(edited);
    refreshEditor();
    emit editedNodesChanged(edited);
    evaluate(label);
    runSweep();
}

void WhatIfPanel::evaluate(const QString& label) {
    if (!m_predictor || m_deferEvaluation) return;
    auto predictor = m_predictor;
    const std::vector<float> row = m_row;
    m_pendingLabel = label;
    m_pendingJob = m_runner->submit(QStringLiteral("whatif"), [predictor, row](JobControl&) {
        return QVariant::fromValue(predictor->evaluate(row));
    });
}

void WhatIfPanel::evaluateLoaded(std::vector<Run> entries) {
    auto predictor = m_predictor;
    std::vector<std::vector<float>> rows;
    rows.reserve(entries.size());
    for (const Run& e : entries) rows.push_back(e.row);
    m_loaded = std::move(entries);
    m_pendingJob = m_runner->submit(
        QStringLiteral("whatif"), [predictor, rows = std::move(rows)](JobControl& job) {
            std::vector<whatif::WhatIfReport> reports;
            for (size_t i = 0; i < rows.size() && !job.cancelled(); ++i) {
                reports.push_back(predictor->evaluate(rows[i]));
                job.setProgress(static_cast<double>(i + 1) / static_cast<double>(rows.size()));
            }
            return QVariant::fromValue(reports);
        });
}

bool WhatIfPanel::pushEdit(const std::vector<float>& after, const QString& text, int mergeKey) {
    if (after == m_row) return true;
    m_undo->push(new RowEditCommand(this, m_row, after, text, mergeKey));
    return true;
}

QString WhatIfPanel::differingText(int64_t count) const {
    return isLayoutFile() ? countOf(count, tr("node differs"), tr("nodes differ"))
                          : countOf(count, tr("bound differs"), tr("bounds differ"));
}

QString WhatIfPanel::describeLayoutEdit(const std::vector<int32_t>& nodes, whatif::LayoutSlot slot,
                                        const std::vector<int>& m) const {
    return tr("%1 %2 %3")
        .arg(nodesText(nodes), QLatin1String(whatif::slotName(slot)),
             QString::fromStdString(whatif::layoutText(m)));
}

bool WhatIfPanel::setLayout(int32_t node, whatif::LayoutSlot slot, const std::vector<int>& minorToMajor) {
    if (!m_predictor) {
        m_error = tr("No predictions yet for this file.");
        return false;
    }
    const whatif::LayoutEdit edit{node, slot, minorToMajor};
    try {
        whatif::checkLayoutEdit(m_graph, edit);
    } catch (const FormatError& e) {
        m_error = QString::fromUtf8(e.what());
        return false;
    }
    std::vector<float> row = m_row;
    whatif::applyLayoutEdit(m_graph, row, edit);
    return pushEdit(row, describeLayoutEdit({node}, slot, minorToMajor), node);
}

bool WhatIfPanel::setLayouts(const std::vector<int32_t>& nodes, whatif::LayoutSlot slot,
                             const std::vector<int>& minorToMajor) {
    if (nodes.size() == 1) return setLayout(nodes.front(), slot, minorToMajor);
    if (!m_predictor || nodes.empty()) {
        m_error =
            m_predictor ? tr("No node is selected.") : tr("No predictions yet for this file.");
        return false;
    }
    std::vector<float> row = m_row;
    const std::vector<int32_t> written =
        whatif::applyLayoutToNodes(m_graph, row, nodes, slot, minorToMajor);
    if (written.empty()) {
        m_error = tr("None of the %1 selected nodes can take %2 as its %3 layout")
                      .arg(nodes.size())
                      .arg(QString::fromStdString(whatif::layoutText(minorToMajor)),
                           QLatin1String(whatif::slotName(slot)));
        return false;
    }
    return pushEdit(row, describeLayoutEdit(written, slot, minorToMajor), kNoMerge);
}

std::vector<int32_t> WhatIfPanel::selectedNodes() const {
    std::vector<int32_t> nodes;
    if (m_node >= 0) nodes.push_back(m_node);
    if (!isLayoutFile()) return nodes;
    for (const QTreeWidgetItem* item : m_nodes->selectedItems()) {
        const int32_t node = item->data(0, Qt::UserRole).toInt();
        if (node != m_node) nodes.push_back(node);
    }
    return nodes;
}

void WhatIfPanel::selectAlike() {
    if (!isLayoutFile() || m_node < 0) return;
    const std::vector<int32_t> alike = whatif::nodesAlike(m_graph, m_node);
    const QSet<int32_t> wanted(alike.begin(), alike.end());
    {
        const QSignalBlocker block(m_nodes);
        for (int i = 0; i < m_nodes->topLevelItemCount(); ++i) {
            QTreeWidgetItem* item = m_nodes->topLevelItem(i);
            item->setSelected(wanted.contains(item->data(0, Qt::UserRole).toInt()));
        }
    }
    refreshEditor();
}

QTreeWidgetItem* WhatIfPanel::listItemOf(int32_t key) const {
    for (int i = 0; i < m_nodes->topLevelItemCount(); ++i)
        if (m_nodes->topLevelItem(i)->data(0, Qt::UserRole).toInt() == key)
            return m_nodes->topLevelItem(i);
    return nullptr;
}

QString WhatIfPanel::toggleNode(int32_t node) {
    if (!isLayoutFile() || m_node < 0 || node == m_node || m_nodes->topLevelItemCount() == 0)
        return {};
    QTreeWidgetItem* item = listItemOf(node);  // the list holds the configurable nodes
    if (!item) return tr("#%1 is not configurable: What-if cannot edit it").arg(node);
    const bool joined = !item->isSelected();
    item->setSelected(joined);  // the list's selection change refreshes the editor
    return (joined ? tr("What-if: #%1 joins #%2's edit (%3)")
                   : tr("What-if: #%1 leaves #%2's edit (%3)"))
        .arg(node)
        .arg(m_node)
        .arg(countOf(m_alsoSelected.size() + 1, tr("node"), tr("nodes")));
}

int64_t WhatIfPanel::tileBoundDimension(int column) const {
    if (!m_predictor || isLayoutFile()) return 0;
    return m_predictor->synthTpu().tileBoundDimension(column);
}

std::vector<int> WhatIfPanel::tileSizeChoices(int column) const {
    if (column < 0 || column >= static_cast<int>(m_row.size())) return {};
    return tileSizes(static_cast<int>(m_row[static_cast<size_t>(column)]),
                     tileBoundDimension(column));
}

bool WhatIfPanel::setTileBound(int column, float value) {
    if (!m_predictor || isLayoutFile() || column < 0 || column >= static_cast<int>(m_row.size()) ||
        !whatif::isTileBoundPosition(column) || value < 0) {
        m_error = tr("Not a tile bound of this file.");
        return false;
    }
    std::vector<float> row = m_row;
    const whatif::TileEdit edit =
        whatif::wholeAsDimension(m_predictor->synthTpu(), whatif::TileEdit{column, value});
    whatif::applyTileEdit(row, edit);
    return pushEdit(row, QString::fromStdString(edit.text()), column);
}

void WhatIfPanel::sweep(int slot) {
    if (!m_predictor || m_row.empty() || m_node < 0) return;
    m_sweepEdits.clear();
    m_sweepLabels.clear();
    if (isLayoutFile()) {
        const auto s = static_cast<whatif::LayoutSlot>(slot);
        const whatif::SlotTensor t = whatif::slotTensor(m_graph, m_node, s);
        if (!t.usable || m_graph.configurableIndex(m_node) < 0) return;
        std::vector<std::vector<int>> values = permutations(t.rank());
        values.insert(values.begin(), std::vector<int>{});
        for (auto& v : values) {
            m_sweepLabels << QString::fromStdString(whatif::layoutText(v));
            m_sweepEdits.emplace_back(whatif::LayoutEdit{m_node, s, std::move(v)});
        }
        m_sweepLabel = tr("#%1 %2").arg(m_node).arg(QLatin1String(whatif::slotName(s)));
    } else {
        if (!whatif::isTileBoundPosition(m_node)) return;
        for (int v : tileSizeChoices(m_node)) {
            m_sweepLabels << QString::number(v);
            m_sweepEdits.emplace_back(whatif::TileEdit{m_node, static_cast<float>(v)});
        }
        m_sweepLabel = QString::fromStdString(schema::tileConfigFeatureNames()[static_cast<size_t>(m_node)]);
    }
    m_sweepChart->clear(tr("Sweeping %1 (%2 values)…").arg(m_sweepLabel).arg(m_sweepEdits.size()));
    m_tabs->setCurrentWidget(m_sweepChart);
    runSweep();
}

namespace {

std::vector<float> withEdit(const TpuGraph& graph, std::vector<float> row, const SweepEdit& edit) {
    if (const auto* layout = std::get_if<whatif::LayoutEdit>(&edit))
        whatif::applyLayoutEdit(graph, row, *layout);
    else
        whatif::applyTileEdit(row, std::get<whatif::TileEdit>(edit));
    return row;
}

// Whether `row` already holds the value `edit` sets (read, not applied and compared).
bool holds(const TpuGraph& graph, const std::vector<float>& row, const SweepEdit& edit) {
    if (const auto* layout = std::get_if<whatif::LayoutEdit>(&edit))
        return whatif::layoutOf(graph, row, layout->node, layout->slot) == layout->minorToMajor;
    const whatif::TileEdit& tile = std::get<whatif::TileEdit>(edit);
    return row[static_cast<size_t>(tile.column)] == tile.value;
}

}  // namespace

void WhatIfPanel::runSweep() {
    if (!m_predictor || m_sweepEdits.empty() || m_deferEvaluation) return;
    m_sweepCurrent = -1;
    for (size_t i = 0; i < m_sweepEdits.size(); ++i)
        if (holds(m_graph, m_row, m_sweepEdits[i])) m_sweepCurrent = static_cast<int>(i);
    auto predictor = m_predictor;
    // Runtimes need the file's scores (the fit); until then the chart is in scores.
    m_sweepInNs = m_predictor->isRanked() && m_predictor->bestMeasuredNs() > 0;
    // Each value as an edit's report gives it (a bar clicked shows its own prediction), one at a
    // time: an edit waits for at most one value of a sweep it supersedes, not for all of them.
    // The rows are built there too (25 copies of a 45,000-node file's row are megabytes).
    m_sweepJob = m_runner->submit(
        QStringLiteral("sweep"), [predictor, graph = m_graph, row = m_row, edits = m_sweepEdits,
                                  labels = m_sweepLabels](JobControl& control) {
            std::vector<SweepChart::Point> points;
            for (size_t i = 0; i < edits.size() && !control.cancelled(); ++i) {
                const whatif::WhatIfReport r = predictor->evaluate(withEdit(graph, row, edits[i]));
                const auto* tile = std::get_if<whatif::TileEdit>(&edits[i]);
                const bool outside =
                    tile && std::find(r.boundsOutsideFile.begin(), r.boundsOutsideFile.end(),
                                      tile->column) != r.boundsOutsideFile.end();
                points.push_back({labels[static_cast<int>(i)],
                                  r.predictedNs >= 0 ? r.predictedNs : r.score, r.synthNs,
                                  static_cast<int>(i), r.score, r.beyondFit, outside});
                control.setProgress(static_cast<double>(i + 1) / static_cast<double>(edits.size()));
            }
            return QVariant::fromValue(points);
        });
}

QString WhatIfPanel::sweepOutsideNote() const {
    // The swept bound's, not the selected one's: another may be selected while the sweep runs.
    const auto* tile =
        m_sweepEdits.empty() ? nullptr : std::get_if<whatif::TileEdit>(&m_sweepEdits.front());
    if (!tile || !m_predictor || !m_predictor->boundRange(tile->column).known) return {};
    return tr("outside the file's values (%1): the model extrapolates")
        .arg(boundRangeText(tile->column));
}

void WhatIfPanel::applySweepEdit(int candidate) {
    if (candidate < 0 || candidate >= static_cast<int>(m_sweepEdits.size())) return;
    const auto& edit = m_sweepEdits[static_cast<size_t>(candidate)];
    const auto* layout = std::get_if<whatif::LayoutEdit>(&edit);
    pushEdit(withEdit(m_graph, m_row, edit),
             tr("%1 %2 (from the sweep)").arg(m_sweepLabel, m_sweepLabels.value(candidate)),
             layout ? layout->node : std::get<whatif::TileEdit>(edit).column);
}

void WhatIfPanel::selectNode(int32_t node) {
    const bool valid = isLayoutFile() ? node >= 0 && node < m_graph.numNodes() &&
                                            m_graph.configurableIndex(node) >= 0
                                      : node >= 0 && node < static_cast<int32_t>(m_row.size()) &&
                                            whatif::isTileBoundPosition(node);
    if (!valid) return;
    m_node = node;  // remembered even before the list is filled
    const QSignalBlocker block(m_nodes);  // the graph already shows it
    if (QTreeWidgetItem* item = listItemOf(node)) {
        // The graph answering the list's own choice keeps the list's other selected nodes.
        if (m_nodes->currentItem() != item) m_nodes->setCurrentItem(item);
        m_nodes->scrollToItem(item);
    }
    refreshEditor();
}

void WhatIfPanel::chooseWithinSelection(int32_t node) {
    // Made current without touching the selection, selectNode leaves the selection alone.
    QTreeWidgetItem* item = isLayoutFile() ? listItemOf(node) : nullptr;
    if (item != nullptr && item->isSelected()) {
        const QSignalBlocker block(m_nodes);
        m_nodes->setCurrentItem(item, 0, QItemSelectionModel::NoUpdate);
    }
    selectNode(node);
}

QHash<int32_t, QString> WhatIfPanel::editedNodes() const {
    QHash<int32_t, QString> out;
    if (!isLayoutFile() || m_row.empty() || m_row.size() != m_startRow.size()) return out;
    for (int32_t node : m_graph.configurableNodes()) {
        QStringList parts;
        for (int s = 0; s < kSlots; ++s) {
            const auto slot = static_cast<whatif::LayoutSlot>(s);
            const auto now = whatif::layoutOf(m_graph, m_row, node, slot);
            if (now != whatif::layoutOf(m_graph, m_startRow, node, slot))
                parts << QStringLiteral("%1 %2").arg(QLatin1String(whatif::slotName(slot)),
                                                     QString::fromStdString(whatif::layoutText(now)));
        }
        if (!parts.isEmpty()) out.insert(node, tr("what-if edit: %1").arg(parts.join(QStringLiteral(" · "))));
    }
    return out;
}

// Named before the list fills (with the predictions): an empty list's header read "1".
void WhatIfPanel::showNodeListHeader() {
    const QStringList labels =
        m_graph.isNull() || m_graph.isLayout()
            ? QStringList{tr("Node"), tr("Opcode"), tr("Output"), tr("Input"), tr("Kernel")}
            : QStringList{tr("Tile bound"), tr("Value"), tr("Dimension")};
    m_nodes->setColumnCount(
        static_cast<int>(labels.size()));  // a tile file after a layout one had kept 5
    m_nodes->setHeaderLabels(labels);
}

void WhatIfPanel::refreshNodeList(const QHash<int32_t, QString>& edited) {
    const QSignalBlocker block(m_nodes);
    if (m_row.empty()) {
        m_nodes->clear();
        m_listedRow.clear();
        m_nodeListFill.drop();
        return;
    }
    // Items are built once per file and updated in place afterwards: an edit on a program with
    // thousands of configurable nodes must not rebuild the list.
    const bool layout = isLayoutFile();
    const int expected = layout ? static_cast<int>(m_graph.numConfigurable()) : 3 * static_cast<int>(schema::kMaxRank);
    const bool build = m_nodes->topLevelItemCount() != expected;
    if (build) {
        m_nodes->clear();
        m_listedRow.clear();
        showNodeListHeader();
        // Several layout nodes take one edit together; a tile bound is edited alone.
        m_nodes->setSelectionMode(layout ? QAbstractItemView::ExtendedSelection
                                         : QAbstractItemView::SingleSelection);
        if (layout) {
            for (int32_t node : m_graph.configurableNodes()) {
                auto* item = new QTreeWidgetItem(m_nodes);
                item->setText(0, QStringLiteral("#%1").arg(node));
                item->setData(0, Qt::UserRole, node);
                item->setText(1, QString::fromStdString(m_graph.opcodeName(node)));
            }
        } else {
            const auto& names = schema::tileConfigFeatureNames();
            for (int c = 0; c < static_cast<int>(names.size()); ++c)
                if (whatif::isTileBoundPosition(c)) {
                    auto* item = new QTreeWidgetItem(m_nodes, {QString::fromStdString(names[static_cast<size_t>(c)])});
                    item->setData(0, Qt::UserRole, c);
                }
        }
    }
    // Behind another tab the rows wait to be seen: on a 45,000-node file refilling 2,594 of them
    // took a fifth of the GUI thread's time for each configuration chosen in the table.
    if (!build && m_nodeListFill.defer(*this)) {
        QTreeWidgetItem* current = listItemOf(m_node);
        if (current && m_nodes->currentItem() != current) m_nodes->setCurrentItem(current);
    } else {
        fillNodeList(edited);
    }
    if (!build) return;
    m_editorFitWidth = 0;
    // Sized once, with room for a bold (edited) row: resizing per edit would scan every item. A
    // layout column also fits the longest layout its slot can take, so a later start or edit
    // is not cut to "{2,0,3,...".
    m_nodeColumnsWidth = sizeColumnsUnstretched(*m_nodes->header(), [this, layout] {
        int total = 0;
        for (int c = 0; c < m_nodes->columnCount(); ++c) {
            m_nodes->resizeColumnToContents(c);
            int width = m_nodes->columnWidth(c) * 115 / 100 + 4;
            if (layout && c >= 2) width = std::max(width, layoutColumnWidth(c - 2));
            m_nodes->setColumnWidth(c, width);
            total += width;
        }
        return total;
    });
    m_split->fit();
}

void WhatIfPanel::fillNodeList(const QHash<int32_t, QString>& edited) {
    const QSignalBlocker block(m_nodes);
    m_nodeListFill.drop();
    const bool layout = isLayoutFile();
    // A layout row is written again only where its slots changed since the list last showed a
    // row: on a 45,000-node program an edit had formatted all 7,782 slots.
    const bool whole = m_listedRow.size() != m_row.size();
    const auto width = static_cast<size_t>(std::max<int64_t>(0, m_graph.configFeatureWidth()));
    for (int i = 0; i < m_nodes->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_nodes->topLevelItem(i);
        const int key = item->data(0, Qt::UserRole).toInt();
        bool bold = false;
        if (layout) {
            const size_t at = static_cast<size_t>(m_graph.configurableIndex(key)) * width;
            if (whole || !std::equal(m_row.begin() + static_cast<ptrdiff_t>(at),
                                     m_row.begin() + static_cast<ptrdiff_t>(at + width),
                                     m_listedRow.begin() + static_cast<ptrdiff_t>(at)))
                for (int s = 0; s < kSlots; ++s)
                    item->setText(2 + s,
                                  QString::fromStdString(whatif::layoutText(whatif::layoutOf(
                                      m_graph, m_row, key, static_cast<whatif::LayoutSlot>(s)))));
            bold = edited.contains(key);
            if (item->toolTip(0) != edited.value(key)) item->setToolTip(0, edited.value(key));
        } else if (key < static_cast<int>(m_row.size())) {
            item->setText(1, QString::number(m_row[static_cast<size_t>(key)]));
            const int64_t dimension = tileBoundDimension(key);
            item->setText(2, dimension > 0   ? QString::number(dimension)
                             : dimension < 0 ? tr("–")
                                             : QString());
            item->setToolTip(2,
                             dimension > 0 ? tr("The size of the dimension this bound tiles")
                             : dimension < 0
                                 ? tr("Its tensor has no such dimension: the bound changes nothing")
                                 : QString());
            bold = !m_startRow.empty() && m_row[static_cast<size_t>(key)] != m_startRow[static_cast<size_t>(key)];
        }
        if (item->font(0).bold() != bold) {
            QFont f = item->font(0);
            f.setBold(bold);
            for (int c = 0; c < m_nodes->columnCount(); ++c) item->setFont(c, f);
        }
        if (key == m_node && m_nodes->currentItem() != item) m_nodes->setCurrentItem(item);
    }
    if (layout) m_listedRow = m_row;
}

void WhatIfPanel::setOnScreen(bool onScreen) {
    if (m_nodeListFill.setOnScreen(onScreen)) fillNodeList(editedNodes());
}

void WhatIfPanel::showEvent(QShowEvent* event) {
    if (m_nodeListFill.take()) fillNodeList(editedNodes());
    QWidget::showEvent(event);
}

int WhatIfPanel::layoutColumnWidth(int slot) const {
    int rank = 0;
    for (int32_t node : m_graph.configurableNodes()) {
        const whatif::SlotTensor t =
            whatif::slotTensor(m_graph, node, static_cast<whatif::LayoutSlot>(slot));
        if (t.usable) rank = std::max(rank, t.rank());
    }
    std::vector<int> longest(static_cast<size_t>(rank));
    std::iota(longest.begin(), longest.end(), 0);
    QFont bold = m_nodes->font();
    bold.setBold(true);
    const QFontMetrics metrics(bold);
    const int text =
        std::max(metrics.horizontalAdvance(QString::fromStdString(whatif::layoutText(longest))),
                 metrics.horizontalAdvance(QString::fromStdString(whatif::layoutText({}))));
    // The item view's text margin on each side (Qt's CT_ItemViewItem), then the list's slack.
    const int margins =
        2 * (m_nodes->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_nodes) + 1);
    return (text + margins) * 115 / 100 + 4;
}

void WhatIfPanel::refreshEditor() {
    const std::vector<int32_t> nodes = selectedNodes();
    const QVector<int32_t> also(nodes.size() > 1 ? nodes.begin() + 1 : nodes.end(), nodes.end());
    const bool changed = also != m_alsoSelected;
    m_alsoSelected = also;  // before fillEditor, whose title counts them
    fillEditor();
    if (m_editor->sizeHint().width() > m_editorFitWidth) m_split->fit();
    if (changed) emit alsoSelectedChanged(also);
}

void WhatIfPanel::fillEditor() {
    const bool layout = isLayoutFile();
    const bool have = !m_row.empty() && m_node >= 0 &&
                      (layout ? m_graph.configurableIndex(m_node) >= 0 : m_node < static_cast<int>(m_row.size()));
    m_defaultButton->setVisible(layout);
    m_defaultButton->setEnabled(have);
    m_alikeButton->setVisible(layout);
    m_alikeButton->setEnabled(have);
    if (!have) {
        m_editorTitle->setText(m_row.empty() ? QString()
                                             : layout ? tr("Choose a configurable node (here or in the graph).")
                                                      : tr("Choose a tile bound."));
        for (int s = 0; s < kSlots; ++s) {
            m_slotLabels[s]->hide();
            m_slotBoxes[s]->hide();
            m_sweepButtons[s]->hide();
        }
        return;
    }
    if (layout)
        fillLayoutSlots();
    else
        fillTileBound();
}

// The chosen tile bound's sizes; the other slots hidden.
void WhatIfPanel::fillTileBound() {
    const int current = static_cast<int>(m_row[static_cast<size_t>(m_node)]);
    const QString name =
        QString::fromStdString(schema::tileConfigFeatureNames()[static_cast<size_t>(m_node)]);
    const int64_t dimension = tileBoundDimension(m_node);
    m_editorTitle->setText(
        dimension < 0 ? tr("%1: its tensor has no such dimension, so it changes nothing").arg(name)
        : dimension > 0 ? tr("%1, of a dimension of %2").arg(name).arg(dimension)
                        : tr("%1 (0 = the whole dimension)").arg(name));
    m_slotLabels[0]->setText(tr("size"));
    const QSignalBlocker block(m_slotBoxes[0]);
    m_slotBoxes[0]->clear();
    for (int v : tileSizeChoices(m_node)) {
        m_slotBoxes[0]->addItem(
            v == 0 || v == dimension ? tr("%1 (whole)").arg(v) : QString::number(v), v);
        if (v == current) m_slotBoxes[0]->setCurrentIndex(m_slotBoxes[0]->count() - 1);
    }
    m_slotLabels[0]->show();
    m_slotBoxes[0]->show();
    m_sweepButtons[0]->show();
    // Sweeping a bound that changes nothing would chart one value.
    m_sweepButtons[0]->setEnabled(dimension >= 0);
    m_sweepButtons[0]->setToolTip(dimension < 0 ? tr("Nothing to sweep: the bound changes nothing")
                                                : sweepToolTip());
    for (int s = 1; s < kSlots; ++s) {
        m_slotLabels[s]->hide();
        m_slotBoxes[s]->hide();
        m_sweepButtons[s]->hide();
    }
}

// The chosen node's three slots, each with the permutations of its tensor's rank.
void WhatIfPanel::fillLayoutSlots() {
    const auto others = static_cast<int64_t>(m_alsoSelected.size());
    m_editorTitle->setText(
        tr("Node #%1 · %2: minor-to-major layouts (first = most minor)")
            .arg(m_node)
            .arg(QString::fromStdString(m_graph.opcodeName(m_node))) +
        (others == 0
             ? QString()
             : tr("<br><b>%1 selected too</b>: an edit sets each it fits; a sweep varies #%2 alone")
                   .arg(countOf(others, tr("other node"), tr("other nodes")))
                   .arg(m_node)));
    for (int s = 0; s < kSlots; ++s) {
        const auto slot = static_cast<whatif::LayoutSlot>(s);
        const whatif::SlotTensor t = whatif::slotTensor(m_graph, m_node, slot);
        QComboBox* box = m_slotBoxes[s];
        const QSignalBlocker block(box);
        box->clear();
        m_slotLabels[s]->setText(t.usable ? tr("%1 of #%2 %3").arg(QLatin1String(whatif::slotName(slot))).arg(t.tensorNode)
                                                .arg(QString::fromStdString(t.shapeText()))
                                          : QLatin1String(whatif::slotName(slot)));
        box->setEnabled(t.usable);
        m_sweepButtons[s]->show();
        m_sweepButtons[s]->setEnabled(t.usable);
        m_sweepButtons[s]->setToolTip(sweepToolTip());
        box->setToolTip(t.usable ? tr("Only permutations of this tensor's %1 dimensions").arg(t.rank())
                                 : QString::fromStdString(t.why));
        m_slotLabels[s]->show();
        box->show();
        const std::vector<int> current = whatif::layoutOf(m_graph, m_row, m_node, slot);
        box->addItem(tr("default"), QVariantList());
        if (!t.usable) continue;
        for (const auto& p : permutations(t.rank())) {
            QVariantList v;
            QStringList dims;
            for (int d : p) {
                v << d;
                dims << QString::number(t.dims[static_cast<size_t>(d)]);
            }
            box->addItem(tr("%1  (sizes %2)").arg(QString::fromStdString(whatif::layoutText(p)), dims.join(QLatin1Char(','))), v);
            if (p == current) box->setCurrentIndex(box->count() - 1);
        }
    }
}

void WhatIfPanel::showReport(const whatif::WhatIfReport& r) {
    addRun(r, m_row, m_pendingLabel);
    m_result->setText(resultText());
    m_suggestions->setCurrent(m_row, r);
    emit evaluated();
}

void WhatIfPanel::showLoadedReports(const std::vector<whatif::WhatIfReport>& reports) {
    if (reports.size() != m_loaded.size()) return;  // cancelled part-way
    for (size_t i = 0; i < reports.size(); ++i) {
        addRun(reports[i], m_loaded[i].row, m_loaded[i].label);
        if (m_loaded[i].pinned) setPinned(static_cast<int>(m_runs.size()) - 1, true);
    }
    m_loaded.clear();
    const QString note = m_loadNote.isEmpty()
                             ? QString()
                             : QStringLiteral("<span style=\"color:#a05a00\">%1</span><br>")
                                   .arg(m_loadNote.toHtmlEscaped());
    m_result->setText(note + resultText());
    m_suggestions->setCurrent(m_row, reports.back());
    emit evaluated();
}

void WhatIfPanel::addRun(const whatif::WhatIfReport& r, const std::vector<float>& row,
                         const QString& label) {
    m_report = r;
    if (!m_startReport) m_startReport = r;
    const std::optional<whatif::WhatIfReport> previous =
        m_runs.empty() ? std::nullopt : std::optional(m_runs.back().report);
    m_runs.push_back({label, row, r, false});
    const int index = static_cast<int>(m_runs.size()) - 1;
    auto* item = new QTreeWidgetItem(m_runList);
    item->setData(0, Qt::UserRole, index);
    item->setText(0, QString::number(index + 1));
    item->setText(1, label);
    item->setToolTip(1, label);
    item->setText(2, predictedText(r));
    item->setText(3, previous ? predictedChange(r, *previous) : QStringLiteral("–"));
    item->setText(4, rankText(r.rank));
    item->setCheckState(5, Qt::Unchecked);
    widenRunColumns(*item);
    m_runList->scrollToItem(item);
}

void WhatIfPanel::clearRunList() {
    m_runList->clear();
    QHeaderView* header = m_runList->header();
    for (int c : kRunFigureColumns) header->resizeSection(c, header->sectionSizeHint(c));
}

// The figures' columns grow to the widest text they have held and keep that width until the
// list is cleared: resizing them to their contents measured every run again on each edit, a cost
// that grew with the list.
void WhatIfPanel::widenRunColumns(const QTreeWidgetItem& item) {
    QHeaderView* header = m_runList->header();
    for (int c : kRunFigureColumns) {
        const int needed = m_runList->sizeHintForIndex(m_runList->indexFromItem(&item, c)).width();
        if (needed > header->sectionSize(c)) header->resizeSection(c, needed);
    }
}

QString WhatIfPanel::shownResult() const {
    return m_result->text();
}

QString WhatIfPanel::resultText() const {
    if (!m_report || !m_predictor) return {};
    const whatif::WhatIfReport& r = *m_report;
    QStringList lines;
    const QString vsStart =
        m_startReport ? predictedChange(r, *m_startReport) : QStringLiteral("–");
    if (r.unranked()) {
        lines << tr("<b>Score %1</b> (lower is faster) · %2 vs start")
                     .arg(r.score, 0, 'f', 4)
                     .arg(vsStart);
        lines << tr("The rank among this file's %1 and the predicted runtime come once they are "
                    "scored")
                     .arg(countOf(r.configs, tr("configuration"), tr("configurations")));
    } else {
        const QString predicted = r.predictedNs >= 0
                                      ? predictedText(r)
                                      : tr("score %1 (runtimes unknown)").arg(r.score, 0, 'f', 4);
        const double best = m_predictor->bestMeasuredNs();
        // Clamped at the fit's fastest end, a change against the best would read +0.0%.
        const QString vsBest =
            r.predictedNs >= 0 && r.beyondFit < 0
                ? tr("faster than every measured configuration (%1)").arg(ns(best))
                : tr("%1 vs best measured (%2)").arg(change(r.predictedNs, best), ns(best));
        lines << tr("<b>Predicted %1</b> · %2 vs start · %3").arg(predicted, vsStart, vsBest);
        lines << tr("Would rank <b>%1 of %2</b> among this file's configurations (by predicted "
                    "score)")
                     .arg(countText(r.rank), countText(r.configs));
    }
    lines << tr("Synthetic TPU: %1 (%2)")
                 .arg(ns(r.synthNs), m_predictor->synthIsGroundTruth() ? tr("ground truth for this synthetic file")
                                                                         : tr("an analytic estimate, not this file's hardware"));
    if (r.matchingRow >= 0)
        lines << tr("Equals config %1 of the file, measured %2").arg(r.matchingRow).arg(ns(r.matchingRuntimeNs));
    else if (r.sameProgramRow >= 0)
        lines << tr("Compiles to the same program as config %1 (by the synthetic TPU's compiler "
                    "model%2), measured %3: the differences do not change the executable")
                     .arg(r.sameProgramRow)
                     .arg(m_predictor->synthIsGroundTruth() ? QString()
                                                            : tr(", an estimate of XLA"))
                     .arg(ns(r.sameProgramRuntimeNs));
    else if (r.extrapolating)
        lines << tr("<span style='color:#b35900'>⚠ The model is extrapolating: the nearest "
                    "measured config (%1) differs in %2 %3, more than measured configs differ from "
                    "each other.</span>")
                     .arg(r.nearestRow)
                     .arg(r.nearestDistance)
                     .arg(isLayoutFile() ? tr("nodes") : tr("bounds"));
    else
        lines << tr("Nearest measured config: %1 (%2)")
                     .arg(r.nearestRow)
                     .arg(differingText(r.nearestDistance));
    if (!r.boundsOutsideFile.empty())
        lines
            << tr("<span style='color:#b35900'>⚠ %1: a tile this kernel was not measured with, so "
                  "the model extrapolates.</span>")
                   .arg(boundsOutsideText(r.boundsOutsideFile));
    return lines.join(QStringLiteral("<br>"));
}

QString WhatIfPanel::boundRangeText(int column) const {
    const whatif::BoundRange range = m_predictor->boundRange(column);
    const QString low = countText(std::llround(range.low));
    return range.low == range.high ? tr("every configuration of this file holds %1").arg(low)
                                   : tr("this file's configurations hold %1–%2")
                                         .arg(low, countText(std::llround(range.high)));
}

QString WhatIfPanel::boundOutsideText(int column, float value) const {
    return tr("%1 = %2, where %3")
        .arg(QString::fromStdString(schema::tileConfigFeatureNames()[static_cast<size_t>(column)]))
        .arg(countText(std::llround(m_predictor->effectiveBound(column, value))))
        .arg(boundRangeText(column));
}

QString WhatIfPanel::boundsOutsideText(const std::vector<int>& columns) const {
    QStringList parts;
    for (int column : columns)
        if (column < static_cast<int>(m_row.size()))
            parts << boundOutsideText(column, m_row[static_cast<size_t>(column)]);
    return parts.join(QStringLiteral("; "));
}

void WhatIfPanel::setPinned(int run, bool pinned) {
    if (run < 0 || run >= static_cast<int>(m_runs.size())) return;
    m_runs[static_cast<size_t>(run)].pinned = pinned;
    if (auto* item = m_runList->topLevelItem(run)) item->setCheckState(5, pinned ? Qt::Checked : Qt::Unchecked);
}

QString WhatIfPanel::fileNote() const {
    return m_fileNote->text();
}

bool WhatIfPanel::saveSession(const QString& path, QString* error) const {
    if (m_graph.isNull() || m_runs.empty()) {
        if (error) *error = tr("Nothing to save: no configuration evaluated yet.");
        return false;
    }
    nlohmann::json doc = session::whatIfDocument(
        m_file.toStdString(), collectionName(m_graph.collection()), m_modelName.toStdString());
    for (const Run& run : m_runs) {
        nlohmann::json entry = {{"label", run.label.toStdString()},
                                {"config", run.row},
                                {"score", run.report.score},
                                {"synthetic_tpu_ns", run.report.synthNs},
                                {"pinned", run.pinned}};
        if (!run.report.unranked())
            entry["rank"] = run.report.rank;  // evaluated before the file was scored
        if (run.report.predictedNs >= 0) entry["predicted_ns"] = run.report.predictedNs;
        doc["configurations"].push_back(std::move(entry));
    }
    try {
        session::writeWhatIfSession(path.toStdString(), doc);
    } catch (const FormatError& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    return true;
}

bool WhatIfPanel::loadSession(const QString& path, QString* error) {
    if (!m_predictor) {
        if (error)
            *error =
                tr("%1: open the file it belongs to and wait for its predictions first").arg(path);
        return false;
    }
    session::WhatIfSession loaded;
    try {
        loaded = session::readWhatIfSession(path.toStdString(), m_graph);
    } catch (const FormatError& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    m_loadNote = QString::fromStdString(
        session::otherFileNote(loaded, path.toStdString(), m_file.toStdString()));
    std::vector<Run> entries;
    for (session::WhatIfEntry& e : loaded.entries)
        entries.push_back({QString::fromStdString(e.label), std::move(e.config), {}, e.pinned});
    m_startRow = entries.front().row;
    m_startLabel = tr("loaded: %1").arg(entries.front().label);
    entries.front().label = m_startLabel;
    m_undo->clear();
    m_runs.clear();
    clearRunList();
    m_startReport.reset();
    // Undo steps back through the entries; each becomes a run, evaluated together below.
    m_deferEvaluation = true;
    applyRow(m_startRow, m_startLabel);
    for (size_t i = 1; i < entries.size(); ++i)
        pushEdit(entries[i].row, entries[i].label, kNoMerge);
    m_deferEvaluation = false;
    evaluateLoaded(std::move(entries));
    runSweep();
    return true;
}

bool WhatIfPanel::exportNpz(const QString& path, QString* error) const {
    if (m_runs.empty() || m_graph.isNull()) {
        if (error) *error = tr("Nothing to export: no configuration evaluated yet.");
        return false;
    }
    try {
        TpuGraphData d = m_graph.data();
        // The search it came from, so the file opened alone (or given to `tpugraphs predict`) is
        // scored by the model that scored it here, not the kind's general one.
        const std::string collection = nn::builtInModelCollection(
            m_file.toStdString(), m_graph.collection(), m_graph.searchCollection());
        d.searchCollection =
            collection == collectionName(m_graph.collection()) ? std::string() : collection;
        const auto n = static_cast<int64_t>(m_runs.size());
        d.runtimes.assign(static_cast<size_t>(n), 0.0);  // not measured: a test-split file
        if (isLayoutFile()) {
            CompactMatrix m(m_predictor->rowWidth());
            for (const Run& run : m_runs) m.appendRows(run.row.data(), 1);
            d.layoutConfigs = LayoutConfigTable::fromMatrix(std::move(m), m_graph.numConfigurable(), m_graph.configFeatureWidth());
        } else {
            d.tileConfigFeatures.clear();
            for (const Run& run : m_runs) d.tileConfigFeatures.insert(d.tileConfigFeatures.end(), run.row.begin(), run.row.end());
            d.runtimeNormalizers.assign(static_cast<size_t>(n), 0.0);
        }
        saveTpuGraph(TpuGraph(std::move(d)), path.toStdString(), true);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

}  // namespace tpg
