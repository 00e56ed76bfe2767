// The what-if dock as a user drives it (offscreen): start, edit, read the prediction, undo and
// redo, save and load, export; a test-split file; a tile file.
#include <QBarLegendMarker>
#include <QBarSeries>
#include <QBarSet>
#include <QComboBox>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStyleOptionViewItem>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QUndoStack>
#include <QValueAxis>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "ChildWithText.h"
#include "CountText.h"
#include "DefaultModels.h"
#include "ElidedLabel.h"
#include "FileDialogAnswer.h"
#include "FilePredictions.h"
#include "JobRunner.h"
#include "NnLimits.h"
#include "NodeListLayouts.h"
#include "PredictedFile.h"
#include "ScreenFonts.h"
#include "SweepChart.h"
#include "TestSettings.h"
#include "UndecodedFixture.h"
#include "WhatIfPanel.h"
#include "graph/GraphFile.h"
#include "graph/Schema.h"
#include "synth/SyntheticDataset.h"
#include "synth/TpuCostModel.h"
#include "whatif/WhatIfPredictor.h"

using namespace tpg;
using namespace tpg::whatif;

namespace {

bool waitEvaluated(WhatIfPanel& panel) {
    QSignalSpy spy(&panel, &WhatIfPanel::evaluated);
    return panel.busy() ? spy.wait(60000) : true;
}

int32_t nodeWithOutputRank(const TpuGraph& g, int minRank) {
    for (int32_t n : g.configurableNodes())
        if (slotTensor(g, n, LayoutSlot::Output).rank() >= minRank) return n;
    return -1;
}

// The panel's session saved to `path` and read back (empty when it could not be saved).
QJsonObject savedSession(const WhatIfPanel& panel, const QString& path) {
    QString error;
    if (!panel.saveSession(path, &error)) {
        qWarning("%s", qPrintable(error));
        return {};
    }
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

std::vector<int> reversed(int rank) {
    std::vector<int> p(static_cast<size_t>(rank));
    std::iota(p.rbegin(), p.rend(), 0);
    return p;
}

// A sweep of a rank-4 slot as the panel draws it: "default" (the fastest) and the 24
// permutations, 2.3 ms and up in steps of 5 us.
std::vector<SweepChart::Point> rankFourSweep() {
    std::vector<int> order = {0, 1, 2, 3};
    std::vector<SweepChart::Point> points{{QStringLiteral("default"), 2.3e6, 2.3e6, 0}};
    int i = 1;
    do {
        QStringList dims;
        for (const int d : order) dims << QString::number(d);
        const double ns = 2.3e6 + 5000.0 * i;
        points.push_back({QStringLiteral("{%1}").arg(dims.join(QLatin1Char(','))), ns, ns, i++});
    } while (std::next_permutation(order.begin(), order.end()));
    return points;
}

}  // namespace

class TestWhatIfPanel : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    TpuGraph m_layout;

    // Whether every fraction reported under a message starting with `phase` lies in [from, to],
    // the phases following each other on one bar, never going back. Reports come at most every
    // kProgressIntervalMs, so a short phase may report nothing; the last report always comes.
    static bool phaseWithin(const QSignalSpy& progressed, const QString& phase, double from,
                            double to) {
        double last = -1;
        for (const QList<QVariant>& p : progressed) {
            const double f = p.at(1).toDouble();
            if (f < last) return false;
            last = f;
            if (p.at(2).toString().startsWith(phase) && (f < from || f > to)) return false;
        }
        return true;
    }

    // Whether the last report, which always comes, is `phase` at the end of the bar.
    static bool endsWithPhase(const QSignalSpy& progressed, const QString& phase) {
        return !progressed.isEmpty() && progressed.last().at(2).toString() == phase &&
               progressed.last().at(1).toDouble() == 1.0;
    }

    // The panel on m_layout, started from its configuration 5 (the predictions scored on `runner`).
    void startOnConfig5(JobRunner& runner, WhatIfPanel& panel) {
        panel.setGraph(m_layout, QStringLiteral("r.npz"));
        panel.setChosenConfig(5);
        panel.setPredictions(predictedFile(runner, QStringLiteral("r.npz"), m_layout));
    }

    // The panel on m_layout as "r.npz" scored on `runner`, its start evaluated: the file's
    // predictions, or null when the start was not evaluated.
    std::shared_ptr<const FilePredictions> openLayout(JobRunner& runner, WhatIfPanel& panel) const {
        panel.setGraph(m_layout, QStringLiteral("r.npz"));
        auto predictions = predictedFile(runner, QStringLiteral("r.npz"), m_layout);
        panel.setPredictions(predictions);
        return waitEvaluated(panel) ? predictions : nullptr;
    }

    // The panel on a tile kernel "k.npz" scored on `runner`, its start evaluated: the file's
    // predictions, or null when the start was not evaluated.
    static std::shared_ptr<const FilePredictions> openTile(JobRunner& runner, WhatIfPanel& panel,
                                                           const TpuGraph& tile) {
        panel.setGraph(tile, QStringLiteral("k.npz"));
        auto predictions = predictedFile(runner, QStringLiteral("k.npz"), tile);
        panel.setPredictions(predictions);
        return waitEvaluated(panel) ? predictions : nullptr;
    }

    // Whether every run's figures (all columns but the label) fit their columns whole.
    static bool runFiguresFit(const QTreeWidget& runs) {
        for (int i = 0; i < runs.topLevelItemCount(); ++i)
            for (int c : {0, 2, 3, 4, 5}) {
                const QModelIndex index = runs.indexFromItem(runs.topLevelItem(i), c);
                if (runs.sizeHintForIndex(index).width() > runs.header()->sectionSize(c)) {
                    qWarning() << "run" << i << "column" << c << runs.topLevelItem(i)->text(c)
                               << "is cut";
                    return false;
                }
            }
        return true;
    }

    static QStandardItem* bestPredictedChoice(const WhatIfPanel& panel) {
        auto* choices = qobject_cast<QStandardItemModel*>(panel.startChoice()->model());
        return choices->item(panel.startChoice()->findText(QStringLiteral("the best predicted")));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        useEmptyTestSettings(QStringLiteral("test_widgets_whatif"));
        m_layout = synth::makeLayoutGraph(synth::Recipe::ResNet, 9, 400, 150, synth::LayoutSearch::Random, "r");
    }

    void editShowsItsPredictionAndRank() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        startOnConfig5(runner, panel);
        QVERIFY(panel.ready());
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.runs().size(), size_t{1});
        QVERIFY2(panel.resultText().contains(QStringLiteral("Equals config 5")), qPrintable(panel.resultText()));
        QVERIFY(panel.resultText().contains(QStringLiteral("ground truth for this synthetic file")));

        const int32_t node = nodeWithOutputRank(m_layout, 4);
        QVERIFY(node >= 0);
        const std::vector<int> before = layoutOf(m_layout, panel.currentRow(), node, LayoutSlot::Output);
        QToolButton* undoButton = nullptr;
        for (QToolButton* b : panel.findChildren<QToolButton*>())
            if (b->text() == QStringLiteral("Undo")) undoButton = b;
        QVERIFY(undoButton && !undoButton->isEnabled());
        const int undoWidth = undoButton->sizeHint().width();
        std::vector<int> perm = reversed(4);
        if (perm == before) std::swap(perm[0], perm[1]);
        QVERIFY(panel.setLayout(node, LayoutSlot::Output, perm));
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.runs().size(), size_t{2});
        QCOMPARE(layoutOf(m_layout, panel.currentRow(), node, LayoutSlot::Output), perm);
        QVERIFY(panel.editedNodes().contains(node));
        const QString text = panel.resultText();
        QVERIFY2(text.contains(QStringLiteral("Would rank")) && text.contains(QStringLiteral("of 150")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("vs start")));
        QVERIFY(text.contains(QStringLiteral("Synthetic TPU")));
        QVERIFY(panel.report().predictedNs > 0);
        // The button names the edit in its tooltip, not on itself: "Undo #97 output {0,3,2,1}"
        // widened the top row past a 1024-px screen.
        QVERIFY(undoButton->isEnabled());
        QCOMPARE(undoButton->text(), QStringLiteral("Undo"));
        QCOMPARE(undoButton->sizeHint().width(), undoWidth);
        QVERIFY2(undoButton->toolTip().startsWith(QStringLiteral("Undo #%1").arg(node)),
                 qPrintable(undoButton->toolTip()));

        // A second edit of the same node merges into one undo step; undo returns to the start.
        std::vector<int> other = perm;
        std::swap(other[2], other[3]);
        QVERIFY(panel.setLayout(node, LayoutSlot::Output, other));
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.undoStack()->count(), 1);
        panel.undoStack()->undo();
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(layoutOf(m_layout, panel.currentRow(), node, LayoutSlot::Output), before);
        QVERIFY(panel.editedNodes().isEmpty());
        panel.undoStack()->redo();
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(layoutOf(m_layout, panel.currentRow(), node, LayoutSlot::Output), other);

        // Sweep the node's output layout: every permutation (and default) predicted; clicking the
        // best bar applies it.
        panel.selectNode(node);
        QSignalSpy swept(&panel, &WhatIfPanel::swept);
        panel.sweep(0);
        QVERIFY(swept.wait(60000));
        const auto& points = panel.sweepChart()->points();
        QCOMPARE(points.size(), size_t{25});  // 4! permutations + default
        QVERIFY(std::is_sorted(points.begin(), points.end(),
                               [](const auto& a, const auto& b) { return a.model < b.model; }));
        QVERIFY(points.front().synth > 0);
        const int undoBefore = panel.undoStack()->count();
        emit panel.sweepChart()->candidateClicked(points.front().candidate);
        QVERIFY(waitEvaluated(panel));
        QVERIFY(panel.undoStack()->count() >= undoBefore);

        // Invalid edits are refused with the reason.
        QVERIFY(!panel.setLayout(node, LayoutSlot::Output, {0, 1}));
        QVERIFY(panel.lastError().contains(QStringLiteral("permutation")));
        QVERIFY(!panel.setLayout(m_layout.numNodes() + 5, LayoutSlot::Output, {}));
    }

    // Another model (or the program rule switched) re-scores the open file: the editor takes the
    // new scoring's unranked predictor at once, restarting from the chosen configuration, rather
    // than editing with the old model until the new scores are in (minutes on a big file).
    void anotherModelsScoringTakesOverTheEditorAtOnce() {
        JobRunner runner(QStringLiteral("whatif"));
        WhatIfPanel panel(&runner);
        startOnConfig5(runner, panel);
        QVERIFY(waitEvaluated(panel));
        const int32_t node = nodeWithOutputRank(m_layout, 4);
        QVERIFY(panel.setLayout(node, LayoutSlot::Output, reversed(4)));
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.runs().size(), size_t{2});
        nn::CostModel other =
            nn::CostModel::fromBytes(nn::defaultModel(Collection::Layout).toBytes(), "other.tpgm");
        other.setTieSamePrograms(false);
        const auto unranked = std::make_shared<WhatIfPredictor>(
            std::make_shared<const TpuGraph>(m_layout), other, WhatIfPredictor::Unranked{});
        panel.setUnranked({QStringLiteral("r.npz"), QStringLiteral("other.tpgm"), unranked});
        QVERIFY(!panel.ranked());
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.runs().size(), size_t{1});  // restarted, with the new model
        QCOMPARE(panel.runs().front().label, QStringLiteral("start: config 5"));
        QCOMPARE(panel.report().rank, int64_t{0});
        QCOMPARE(panel.report().score, other.scoreEdited(m_layout, panel.currentRow().data()));
        QCOMPARE(panel.undoStack()->count(), 0);
    }

    // The file's predictions say what they are doing: first which configurations compile to one
    // program (a synthetic TPU pass each: ~10 s of a 45,000-node file's 5,000), then the scores,
    // then the violation ratios. Each phase takes the share of the bar it takes of the time, so an
    // ETA holds; the index timed every configuration already, so the last phase is short.
    void predictingAFileReportsEachPhase() {
        JobRunner runner(QStringLiteral("model"));
        QSignalSpy progressed(&runner, &JobRunner::progressed);
        QVERIFY(predictedFile(runner, QStringLiteral("r.npz"), m_layout) != nullptr);
        QVERIFY(progressed.count() >= 2);
        const QString first = progressed.first().at(2).toString();
        QVERIFY2(
            first == QStringLiteral("Finding which of 150 configurations compile to one program"),
            qPrintable(first));
        QVERIFY(progressed.first().at(1).toDouble() <= nn::limits::kProgramIndexShare);
        QVERIFY(phaseWithin(progressed, QStringLiteral("Predicting"),
                            nn::limits::kProgramIndexShare, 0.95));
        QVERIFY(endsWithPhase(
            progressed, QStringLiteral("Computing the violation ratios of 150 configurations")));
    }

    // A file whose configurations are still decompressing (a Fortran-ordered table decodes in the
    // background: 13 s for a 3.7 GB one) says so first, at no share of the bar, where the wait had
    // shown nothing and counted in the ETA as scoring time.
    void aFileStillDecompressingSaysSoFirst() {
        const TpuGraph g = undecodedFortranFixture();
        QVERIFY(!g.layoutConfigs()->complete());
        JobRunner runner(QStringLiteral("model"));
        QSignalSpy progressed(&runner, &JobRunner::progressed);
        QVERIFY(predictedFile(runner, QStringLiteral("f.npz"), g) != nullptr);
        QVERIFY(g.layoutConfigs()->complete());
        const QString first = progressed.first().at(2).toString();
        QVERIFY2(first.startsWith(QStringLiteral("Decompressing 3,000 configurations (")),
                 qPrintable(first));
        QCOMPARE(progressed.first().at(1).toDouble(), 0.0);
        QVERIFY(endsWithPhase(
            progressed, QStringLiteral("Computing the violation ratios of 3,000 configurations")));
    }

    // Until its predictor comes, the editor says what it waits for: the file's configurations
    // decompressing (how far), then the cost model; it had said "Preparing the cost model" for
    // the 13 s a 3.7 GB Fortran-ordered table took to decompress.
    void theEditorSaysItWaitsForTheConfigurationsToDecompress() {
        const TpuGraph g = undecodedFortranFixture();
        JobRunner runner(QStringLiteral("whatif"));
        WhatIfPanel panel(&runner);
        panel.setGraph(g, QStringLiteral("f.npz"));
        auto shown = [&panel](const QString& start) {
            for (const QLabel* label : panel.findChildren<QLabel*>())
                if (label->text().startsWith(start)) return true;
            return false;
        };
        QVERIFY(
            shown(QStringLiteral("Decompressing the file's 3,000 configurations (0%): edits can "
                                 "start once they are read")));
        g.layoutConfigs()->wait();
        QTRY_VERIFY(shown(QStringLiteral("Preparing the cost model for this file")));
        const auto unranked = std::make_shared<WhatIfPredictor>(
            std::make_shared<const TpuGraph>(g), nn::defaultModel(Collection::Layout),
            WhatIfPredictor::Unranked{});
        panel.setUnranked({QStringLiteral("f.npz"), QStringLiteral("built-in"), unranked});
        QVERIFY(waitEvaluated(panel));
        QVERIFY(!shown(QStringLiteral("Preparing")));
        QVERIFY(!shown(QStringLiteral("Decompressing")));
    }

    // A tile kernel has no program index: the scores, then a synthetic TPU pass each.
    void predictingATileFileReportsEachPhase() {
        JobRunner runner(QStringLiteral("model"));
        QSignalSpy progressed(&runner, &JobRunner::progressed);
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 60, "k");
        QVERIFY(predictedFile(runner, QStringLiteral("k.npz"), tile) != nullptr);
        QVERIFY(phaseWithin(progressed, QStringLiteral("Predicting"), 0.0, 0.8));
        QVERIFY(endsWithPhase(progressed,
                              QStringLiteral("Timing 60 configurations on the synthetic TPU")));
    }

    // On a big file the scoring takes minutes: the editor starts with the unranked predictor
    // (each edit scored and timed by the synthetic TPU at once), and the file's predictions then
    // rank the session's runs without restarting it, an edit still pending among them.
    void editsBeforeTheFileIsScoredAndRanksThemAfter() {
        JobRunner runner(QStringLiteral("whatif"));
        WhatIfPanel panel(&runner);
        const QString file = QStringLiteral("r.npz");
        panel.setGraph(m_layout, file);
        panel.setChosenConfig(5);
        const auto unranked = std::make_shared<WhatIfPredictor>(
            std::make_shared<const TpuGraph>(m_layout), nn::defaultModel(Collection::Layout),
            WhatIfPredictor::Unranked{});
        panel.setUnranked({file, QStringLiteral("built-in layout model"), unranked});
        QVERIFY(panel.ready() && !panel.ranked());
        // "Start from the best predicted" waits for the scores (it had failed with a message).
        QVERIFY(!bestPredictedChoice(panel)->isEnabled());
        QVERIFY(bestPredictedChoice(panel)->toolTip().contains(QStringLiteral("once the file's")));
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.runs().front().label, QStringLiteral("start: config 5"));
        const int32_t node = nodeWithOutputRank(m_layout, 4);
        std::vector<int> perm = reversed(4);
        if (perm == layoutOf(m_layout, panel.currentRow(), node, LayoutSlot::Output))
            std::swap(perm[0], perm[1]);
        QVERIFY(panel.setLayout(node, LayoutSlot::Output, perm));
        QVERIFY(waitEvaluated(panel));
        const QString text = panel.resultText();
        QVERIFY2(text.contains(QStringLiteral("<b>Score ")) &&
                     text.contains(QStringLiteral("once they are scored")) &&
                     text.contains(QStringLiteral("ground truth for this synthetic file")) &&
                     !text.contains(QStringLiteral("Would rank")),
                 qPrintable(text));
        QCOMPARE(panel.report().rank, int64_t{0});
        QCOMPARE(panel.report().synthNs,
                 synth::TpuCostModel(m_layout).layoutRuntime(panel.currentRow().data()));
        // A sweep before the ranks is in scores; the ranks redraw it in runtimes (it had stayed in
        // scores until the next edit).
        const auto sweptIn = [&panel] {
            const QList<QAbstractAxis*> axes = panel.sweepChart()->chart()->axes(Qt::Vertical);
            return axes.isEmpty() ? QString() : axes.front()->titleText();
        };
        panel.selectNode(node);
        QSignalSpy sweeps(&panel, &WhatIfPanel::swept);
        panel.sweep(0);
        QVERIFY(sweeps.wait(60000));
        QCOMPARE(sweptIn(), QStringLiteral("score"));
        QCOMPARE(panel.runList()->topLevelItem(1)->text(4), QStringLiteral("…"));
        QVERIFY(runFiguresFit(*panel.runList()));
        QVERIFY(panel.runList()->topLevelItem(1)->text(2).startsWith(QStringLiteral("score ")));
        QVERIFY(panel.runList()->topLevelItem(1)->text(3).contains(QStringLiteral("by score")) ||
                panel.runList()->topLevelItem(1)->text(3) == QStringLiteral("same score"));
        // Saved before the ranks: the model named, no rank written (it had written "rank": 0).
        const QJsonObject doc = savedSession(panel, m_dir.filePath(QStringLiteral("unranked.json")));
        QCOMPARE(doc.value(QStringLiteral("model")).toString(),
                 QStringLiteral("built-in layout model"));
        for (const auto& entry : doc.value(QStringLiteral("configurations")).toArray()) {
            QVERIFY(!entry.toObject().contains(QStringLiteral("rank")));
            QVERIFY(!entry.toObject().contains(QStringLiteral("predicted_ns")));
            QVERIFY(entry.toObject().value(QStringLiteral("synthetic_tpu_ns")).toDouble() > 0);
        }

        const auto predictions =
            rankedPredictions(file, QStringLiteral("built-in layout model"), unranked);
        std::vector<int> other = perm;
        std::swap(other[2], other[3]);
        QVERIFY(panel.setLayout(node, LayoutSlot::Output, other));  // pending as the ranks come
        QSignalSpy reranked(&panel, &WhatIfPanel::reranked);
        panel.setPredictions(predictions);
        QVERIFY(panel.ranked());
        QVERIFY(bestPredictedChoice(panel)->isEnabled());
        QVERIFY(reranked.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.busy() && panel.runs().size() == 3, 60000);
        QCOMPARE(panel.undoStack()->count(), 1);  // the session went on: one (merged) edit
        QCOMPARE(panel.runs().front().label, QStringLiteral("start: config 5"));
        for (int i = 0; i < 3; ++i) {
            const WhatIfPanel::Run& run = panel.runs()[static_cast<size_t>(i)];
            const WhatIfReport expected = predictions->predictor->evaluate(run.row);
            QCOMPARE(run.report.rank, expected.rank);
            QCOMPARE(run.report.predictedNs, expected.predictedNs);
            QCOMPARE(panel.runList()->topLevelItem(i)->text(4), QString::number(expected.rank));
            QVERIFY(!panel.runList()->topLevelItem(i)->text(2).startsWith(QStringLiteral("score")));
        }
        QCOMPARE(layoutOf(m_layout, panel.currentRow(), node, LayoutSlot::Output), other);
        // The runtimes and ranks that replaced the scores fit their columns.
        QVERIFY(runFiguresFit(*panel.runList()));
        QVERIFY2(panel.resultText().contains(QStringLiteral("Would rank")),
                 qPrintable(panel.resultText()));
        QTRY_VERIFY_WITH_TIMEOUT(sweptIn() != QStringLiteral("score") && !sweptIn().isEmpty(),
                                 60000);
    }

    // A default layout spelled out (rank-1 .. 0, the layout node_feat gives this program's nodes)
    // is the same program as the start row: the panel says so and keeps the row's score and rank.
    // "Start from the chosen configuration" with none chosen starts from the compiler's default
    // and says why (the list reads "the chosen configuration" all the while); a choice then moves
    // the unedited editor there.
    void noChosenConfigurationStartsFromTheDefaultAndSaysSo() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        panel.setGraph(m_layout, QStringLiteral("r.npz"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("r.npz"), m_layout));
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.runs().front().label,
                 QStringLiteral("start: the compiler default (no configuration chosen)"));
        panel.setChosenConfig(7);
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.runs().front().label, QStringLiteral("start: config 7"));
    }

    void spelledOutDefaultIsTheRowsProgram() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        startOnConfig5(runner, panel);
        QVERIFY(waitEvaluated(panel));
        const WhatIfReport start = panel.report();
        int32_t node = -1;
        for (int32_t n : m_layout.configurableNodes())
            if (slotTensor(m_layout, n, LayoutSlot::Output).rank() >= 2 &&
                layoutOf(m_layout, panel.currentRow(), n, LayoutSlot::Output).empty())
                node = n;
        QVERIFY(node >= 0);
        QVERIFY(panel.setLayout(node, LayoutSlot::Output, reversed(slotTensor(m_layout, node, LayoutSlot::Output).rank())));
        QVERIFY(waitEvaluated(panel));
        const QString text = panel.resultText();
        QVERIFY2(text.contains(QStringLiteral("Compiles to the same program as config 5")), qPrintable(text));
        QCOMPARE(panel.report().score, start.score);
        QCOMPARE(panel.report().rank, start.rank);
    }

    // Runtimes are drawn in the unit of the largest one shown: a tile kernel's 14 us were bars of
    // 0.014 ms with ticks 0.0141, 0.0143 (three digits could not tell them apart).
    void sweepChartPicksTheUnitOfItsRuntimes() {
        SweepChart chart;
        const auto drawn = [&](double ns) {
            chart.setSweep(
                QStringLiteral("bound"),
                {{QStringLiteral("a"), ns, ns * 1.01, 0}, {QStringLiteral("b"), ns * 1.02, ns, 1}},
                0, ns * 0.99, true);
            const auto* y = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).front());
            const auto* bars = qobject_cast<QBarSeries*>(chart.chart()->series().front());
            return std::make_tuple(y->titleText(), bars->barSets().front()->label(),
                                   bars->barSets().front()->at(0));
        };
        QCOMPARE(drawn(14000),
                 std::make_tuple(QStringLiteral("us"), QStringLiteral("model (us)"), 14.0));
        QCOMPARE(drawn(2.5e6),
                 std::make_tuple(QStringLiteral("ms"), QStringLiteral("model (ms)"), 2.5));
        QCOMPARE(drawn(800),
                 std::make_tuple(QStringLiteral("ns"), QStringLiteral("model (ns)"), 800.0));
    }

    // In the What-if dock of a 1366 x 768 screen (560 x 190 px) the bars get twice the height they
    // had: the title, a legend row above the plot and the chart's frame had left them 48 px of
    // 190 on the screen (27 px here). The legend goes beside them, in the labels' smaller type.
    void sweepChartLeavesTheBarsMostOfAShortDock() {
        const ScreenFonts screenFonts;
        SweepChart chart;
        chart.resize(560, 190);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setSweep(QStringLiteral("#8 input"), rankFourSweep(), 10, 2.3e6, true);
        QTest::qWait(50);
        const QRectF plot = chart.chart()->plotArea();
        QVERIFY2(
            plot.height() >= 0.4 * chart.height(),
            qPrintable(
                QStringLiteral("bars %1 px high of %2").arg(plot.height()).arg(chart.height())));
        QVERIFY2(plot.width() >= 0.5 * chart.width(),  // the legend beside it takes the rest
                 qPrintable(
                     QStringLiteral("bars %1 px wide of %2").arg(plot.width()).arg(chart.width())));
        QVERIFY(chart.chart()->legend()->isVisible());
    }

    // The legend tells the model's bars from the synthetic TPU's by their colours: Qt drew a bar
    // set's marker "from the series" hollow, so the two looked alike.
    void sweepLegendShowsEachBarSetsColour() {
        SweepChart chart;
        chart.setSweep(QStringLiteral("#8 input"), rankFourSweep(), 10, 2.3e6, true);
        int bars = 0;
        for (QLegendMarker* marker : chart.chart()->legend()->markers()) {
            if (marker->type() != QLegendMarker::LegendMarkerTypeBar) continue;
            ++bars;
            QCOMPARE(marker->shape(), QLegend::MarkerShapeRectangle);
            QBarSet* set = static_cast<QBarLegendMarker*>(marker)->barset();
            QCOMPARE(marker->brush().color(), set->color());
            QCOMPARE(set->borderColor(), set->color());
        }
        QCOMPARE(bars, 2);
    }

    // Every bar keeps its label: in a 25-value layout sweep the leftmost bar's label ("default"
    // where the compiler's layout predicts fastest) was hidden.
    void sweepChartLabelsEveryBar() {
        const ScreenFonts screenFonts;
        SweepChart chart;
        chart.resize(560, 190);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        const std::vector<SweepChart::Point> points = rankFourSweep();
        chart.setSweep(QStringLiteral("#8 input"), points, 0, 2.3e6, true);
        QTest::qWait(50);
        // Shown: drawn in a colour one sees, inside the chart, below the bars.
        const QRectF plot = chart.chart()->plotArea();
        const QRectF view = chart.mapToScene(chart.viewport()->rect()).boundingRect();
        QStringList hidden;
        for (const SweepChart::Point& p : points) {
            bool shown = false;
            for (QGraphicsItem* item : chart.scene()->items()) {
                const QRectF box = item->sceneBoundingRect();
                if (auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item);
                    text && text->text() == p.label && text->isVisible() &&
                    text->brush().style() == Qt::SolidPattern &&
                    text->brush().color().alpha() > 0 && view.contains(box) &&
                    box.top() >= plot.bottom())
                    shown = true;
                if (auto* text = dynamic_cast<QGraphicsTextItem*>(item);
                    text && text->toPlainText() == p.label && text->isVisible() &&
                    text->defaultTextColor().alpha() > 0)
                    shown = true;
            }
            if (!shown) hidden << p.label;
        }
        QVERIFY2(hidden.isEmpty(), qPrintable(hidden.join(QLatin1Char(' '))));
        // Replacing the chart deletes the one before (QChartView only releases it).
        QPointer<QChart> before = chart.chart();
        chart.clear(QStringLiteral("next"));
        QVERIFY(before.isNull());
    }

    // Values the fit clamps to the fastest measured runtime draw alike: they keep the model's
    // order (they had sorted by their position in the list) and the title says why they are level.
    void sweepChartOrdersClampedValuesByScore() {
        SweepChart chart;
        std::vector<SweepChart::Point> points = {{QStringLiteral("a"), 2e6, 2.2e6, 0, 8.3, -1},
                                                 {QStringLiteral("b"), 2e6, 2.1e6, 1, 8.1, -1},
                                                 {QStringLiteral("c"), 2.5e6, 2.5e6, 2, 8.6, 0}};
        chart.setSweep(QStringLiteral("#8 output"), points, 0, 2e6, true);
        QCOMPARE(chart.points()[0].label, QStringLiteral("b"));
        QCOMPARE(chart.points()[1].label, QStringLiteral("a"));
        QCOMPARE(chart.chart()->title(),
                 QStringLiteral("#8 output · 2 faster than all measured, in the model's order"));
    }

    // The runtime axis ticks on a round step, each tick's label distinct: the sample's
    // resnet_001 sweep read 2.311, 2.406, 2.501, 2.595, 2.69 ms.
    void sweepChartTicksOnARoundStep() {
        SweepChart chart;
        const auto axisFor = [&](double a, double b, int current, double best) {
            chart.setSweep(QStringLiteral("slot"),
                           {{QStringLiteral("a"), a, a, 0}, {QStringLiteral("b"), b, b, 1}},
                           current, best, true);
            return qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).front());
        };
        const auto ticks = [](const QValueAxis* y) {
            const double step = (y->max() - y->min()) / (y->tickCount() - 1);
            QSet<QString> labels;
            for (int i = 0; i < y->tickCount(); ++i)
                labels.insert(QString::asprintf(y->labelFormat().toLatin1().constData(),
                                                y->min() + i * step));
            return std::make_pair(step, static_cast<int>(labels.size()));
        };
        for (const double ns : {2.3e6, 14000.0, 803.0}) {
            const QValueAxis* y = axisFor(ns, ns * 1.16, 1, ns * 0.99);
            const double unit = ns >= 1e6 ? 1e6 : ns >= 1e3 ? 1e3 : 1;
            QVERIFY(y->min() <= 0.99 * ns / unit && y->max() >= 1.16 * ns / unit);
            const auto [step, distinct] = ticks(y);
            const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
            QVERIFY2(std::abs(mantissa - std::round(mantissa * 2) / 2) < 1e-9,
                     qPrintable(QString::number(step)));
            QCOMPARE(distinct, y->tickCount());
        }
        // Runtimes from 0.1 to 2 ms: the axis had started at -1 ms.
        QCOMPARE(axisFor(100000, 2e6, 0, 100000)->min(), 0.0);
        // Two runtimes 0.05% apart: "%.4g" wrote every tick as "14".
        const QValueAxis* close = axisFor(14000, 14007, 0, -1);
        QCOMPARE(ticks(close).second, close->tickCount());
    }

    // The buttons offer a name after the file, in the home folder the first time (not the file's:
    // an .npz there would join its dataset) and then where the last one went; they add the suffix
    // to a name without one (the dialogs started in the launch folder with no name and wrote
    // "mine"), and say what they wrote.
    void fileButtonsNameTheirFilesAndSayWhatTheyWrote() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        const QString file = m_dir.filePath(QStringLiteral("r.npz"));
        panel.setGraph(m_layout, file);
        panel.setPredictions(predictedFile(runner, file, m_layout));
        QVERIFY(waitEvaluated(panel));
        QVERIFY(panel.setLayout(nodeWithOutputRank(m_layout, 4), LayoutSlot::Output, reversed(4)));
        QVERIFY(waitEvaluated(panel));
        const auto button = [&panel](const QString& text) {
            return childWithText<QPushButton>(panel, text);
        };
        FileDialogSeen seen;
        answerNextFileDialog(m_dir.filePath(QStringLiteral("mine")), &seen);
        button(QStringLiteral("Export .npz…"))->click();
        QVERIFY(seen.shown);
        QCOMPARE(QDir(seen.folder), QDir::home());
        QCOMPARE(seen.offeredName, QStringLiteral("r-whatif.npz"));
        QVERIFY(QFile::exists(m_dir.filePath(QStringLiteral("mine.npz"))));
        QCOMPARE(
            loadTpuGraph(m_dir.filePath(QStringLiteral("mine.npz")).toStdString()).numConfigs(),
            int64_t{2});
        QCOMPARE(panel.fileNote(), QStringLiteral("Exported 2 configurations to mine.npz"));

        answerNextFileDialog(m_dir.filePath(QStringLiteral("mine")), &seen);
        button(QStringLiteral("Save…"))->click();
        QCOMPARE(seen.offeredName, QStringLiteral("r-whatif.json"));
        QVERIFY(QFile::exists(m_dir.filePath(QStringLiteral("mine.json"))));
        QCOMPARE(panel.fileNote(), QStringLiteral("Saved 2 configurations to mine.json"));
        answerNextFileDialog(m_dir.filePath(QStringLiteral("again")), &seen);
        button(QStringLiteral("Export .npz…"))->click();
        QCOMPARE(QDir(seen.folder), QDir(m_dir.path()));  // where the last export went
        panel.setGraph(m_layout, file);  // another file: the note was about the last one
        QVERIFY(panel.fileNote().isEmpty());
    }

    // In the top row at a 1024-px screen's width the note after an export is cut in the middle,
    // keeping the file name's end: it read "Exported 1 con", clipped at the row's model label.
    void theFileNoteKeepsTheFileNamesEnd() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        panel.resize(1016, 360);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QString file = m_dir.filePath(QStringLiteral("r.npz"));
        panel.setGraph(m_layout, file);
        panel.setPredictions(predictedFile(runner, file, m_layout));
        QVERIFY(waitEvaluated(panel));
        FileDialogSeen seen;
        answerNextFileDialog(m_dir.filePath(QStringLiteral("the-layouts-shown-to-the-class")),
                             &seen);
        QSignalSpy status(&panel, &WhatIfPanel::statusMessage);
        childWithText<QPushButton>(panel, QStringLiteral("Export .npz…"))->click();
        // The whole of it, with the path, for the window's status bar.
        QCOMPARE(status.count(), 1);
        QCOMPARE(status.first().at(0).toString(),
                 QStringLiteral("Exported 1 configuration to %1")
                     .arg(QDir::toNativeSeparators(
                         m_dir.filePath(QStringLiteral("the-layouts-shown-to-the-class.npz")))));
        QCOMPARE(panel.fileNote(),
                 QStringLiteral("Exported 1 configuration to the-layouts-shown-to-the-class.npz"));
        auto* note = panel.findChild<ElidedLabel*>(QStringLiteral("whatIfFileNote"));
        QVERIFY(note != nullptr);
        QTRY_VERIFY(note->width() > 0);
        const QString shown = note->shownText();
        QVERIFY2(shown != note->text() && shown.contains(QChar(0x2026)), qPrintable(shown));
        QVERIFY2(
            shown.startsWith(QStringLiteral("Exp")) && shown.endsWith(QStringLiteral("class.npz")),
            qPrintable(shown));
        QVERIFY2(note->fontMetrics().horizontalAdvance(shown) <= note->contentsRect().width(),
                 qPrintable(shown));
    }

    void saveLoadAndExport() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        const auto predictions = openLayout(runner, panel);
        QVERIFY(predictions);
        const int32_t node = nodeWithOutputRank(m_layout, 4);
        QVERIFY(panel.setLayout(node, LayoutSlot::Output, reversed(4)));
        QVERIFY(waitEvaluated(panel));
        panel.setPinned(1, true);
        const QString json = m_dir.filePath(QStringLiteral("session.json"));
        const QJsonObject doc = savedSession(panel, json);
        QString error;
        QCOMPARE(doc.value(QStringLiteral("format")).toString(), QStringLiteral("tpugraphs-whatif"));
        QCOMPARE(doc.value(QStringLiteral("configurations")).toArray().size(), 2);

        WhatIfPanel again(&runner);
        again.setGraph(m_layout, QStringLiteral("r.npz"));
        again.setPredictions(predictions);
        QVERIFY(waitEvaluated(again));
        QVERIFY2(again.loadSession(json, &error), qPrintable(error));
        QVERIFY(waitEvaluated(again));
        QCOMPARE(again.currentRow(), panel.currentRow());
        QCOMPARE(again.undoStack()->count(), 1);
        // Every entry is a run again, with its prediction and pin (only the last entry was: each
        // entry's evaluation superseded the one before).
        QCOMPARE(again.runs().size(), panel.runs().size());
        for (size_t i = 0; i < panel.runs().size(); ++i) {
            QCOMPARE(again.runs()[i].row, panel.runs()[i].row);
            // Scored incrementally from another previous row: equal within float tolerance.
            QVERIFY(std::abs(again.runs()[i].report.score - panel.runs()[i].report.score) < 1e-5);
            QCOMPARE(again.runs()[i].pinned, panel.runs()[i].pinned);
        }
        QVERIFY(again.runs()[1].pinned);
        QCOMPARE(again.runs()[1].label, panel.runs()[1].label);
        // The label column takes the spare width (the pin column did, the label was cut), and
        // the whole label is its tooltip.
        again.resize(1200, 700);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        const QHeaderView* header = again.runList()->header();
        QCOMPARE(header->sectionResizeMode(1), QHeaderView::Stretch);
        for (int c : {0, 2, 3, 4, 5})
            QVERIFY2(header->sectionSize(1) > header->sectionSize(c),
                     qPrintable(QString::number(c)));
        QCOMPARE(again.runList()->topLevelItem(0)->toolTip(1), again.runs()[0].label);
        QVERIFY2(!again.shownResult().contains(QStringLiteral("was saved for")),
                 qPrintable(again.shownResult()));
        again.undoStack()->undo();  // back to the first entry
        QVERIFY(waitEvaluated(again));
        QCOMPARE(again.currentRow(), panel.runs()[0].row);

        // Saved atomically (no temporary file left), and a session saved for another file loads
        // with a note saying so.
        QVERIFY(!QFile::exists(json + QStringLiteral(".tmp")));
        QJsonObject moved = doc;
        moved.insert(QStringLiteral("file"), QStringLiteral("/elsewhere/another.npz"));
        const QString movedPath = m_dir.filePath(QStringLiteral("moved.json"));
        QFile movedFile(movedPath);
        QVERIFY(movedFile.open(QIODevice::WriteOnly));
        movedFile.write(QJsonDocument(moved).toJson());
        movedFile.close();
        QVERIFY2(again.loadSession(movedPath, &error), qPrintable(error));
        QVERIFY(waitEvaluated(again));
        QVERIFY2(again.shownResult().contains(
                     movedPath +
                     QStringLiteral(
                         " was saved for another.npz; its configurations are applied to r.npz")),
                 qPrintable(again.shownResult()));

        const QString npz = m_dir.filePath(QStringLiteral("whatif.npz"));
        QVERIFY2(panel.exportNpz(npz, &error), qPrintable(error));
        const TpuGraph exported = loadTpuGraph(npz.toStdString());
        QCOMPARE(exported.numConfigs(), int64_t{2});
        QVERIFY(!exported.runtimesKnown());
        QCOMPARE(exported.layoutConfigs()->config(1), panel.currentRow());
    }

    // A session that is not one, or holds a value no file may hold, is refused, naming it, and the
    // panel keeps its configuration.
    void aBadSessionIsRefusedAndTheConfigurationKept() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        QVERIFY(openLayout(runner, panel));
        QString error;
        QFile bad(m_dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"format\": \"tpugraphs-whatif\", \"configurations\": [{\"config\": [1, 2]}]}");
        bad.close();
        QVERIFY(!panel.loadSession(bad.fileName(), &error));
        QVERIFY2(error.contains(QStringLiteral("configurations[0].config")), qPrintable(error));

        // Before, 1e30 showed a NaN score and 99 ranked as if valid.
        const std::vector<float> before = panel.currentRow();
        const auto writeRow = [&](const QString& name, const QJsonValue& value) {
            QJsonArray row;
            for (float v : before) row.append(v);
            row[5] = value;
            const QJsonObject doc{{QStringLiteral("format"), QStringLiteral("tpugraphs-whatif")},
                                  {QStringLiteral("configurations"),
                                   QJsonArray{QJsonObject{{QStringLiteral("config"), row}}}}};
            QFile out(m_dir.filePath(name));
            if (!out.open(QIODevice::WriteOnly)) return QString();
            out.write(QJsonDocument(doc).toJson());
            return out.fileName();
        };
        const int32_t firstConfigurable = m_layout.configurableNodes().front();
        const QString where =
            QStringLiteral(
                "key 'configurations[0].config': value 5 (node %1, output_layout_5) holds ")
                .arg(firstConfigurable);
        QVERIFY(!panel.loadSession(writeRow(QStringLiteral("v99.json"), 99), &error));
        QVERIFY2(error.contains(
                     where +
                     QStringLiteral("99 (expected a layout value: a whole number from -1 to 5)")),
                 qPrintable(error));
        QVERIFY(!panel.loadSession(writeRow(QStringLiteral("v1e30.json"), 1e30), &error));
        QVERIFY2(error.contains(where + QStringLiteral("1.00000002e+30")), qPrintable(error));
        QVERIFY(!panel.loadSession(writeRow(QStringLiteral("v1e300.json"), 1e300), &error));
        QVERIFY2(error.contains(
                     QStringLiteral("value 5 is 1e+300 (expected a number within float range)")),
                 qPrintable(error));
        QVERIFY(!panel.loadSession(writeRow(QStringLiteral("vtext.json"), QStringLiteral("x")),
                                   &error));
        QVERIFY2(error.contains(QStringLiteral("value 5 is \"x\"")), qPrintable(error));
        QCOMPARE(panel.currentRow(), before);
    }

    // Several nodes take one edit: Select Alike (or Ctrl-click in the list) selects them, and a
    // layout chosen in the editor goes to each it fits as one undo step; the graph answering the
    // list's choice keeps the selection.
    void oneEditSetsEverySelectedNode() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        startOnConfig5(runner, panel);
        QVERIFY(waitEvaluated(panel));
        int32_t node = -1, otherRank = -1;
        for (int32_t n : m_layout.configurableNodes()) {
            const whatif::SlotTensor t = slotTensor(m_layout, n, LayoutSlot::Output);
            if (node < 0 && t.rank() == 4 && nodesAlike(m_layout, n).size() > 2) node = n;
            if (t.usable && t.rank() != 4) otherRank = n;
        }
        QVERIFY(node >= 0 && otherRank >= 0);
        std::vector<int32_t> alike = nodesAlike(m_layout, node);
        panel.selectNode(node);
        auto* selectAlike = childWithText<QPushButton>(panel, QStringLiteral("Select Alike"));
        QVERIFY(selectAlike && selectAlike->isEnabled());
        QTest::mouseClick(selectAlike, Qt::LeftButton);
        panel.selectNode(node);  // the graph answering the list
        std::vector<int32_t> selected = panel.selectedNodes();
        QCOMPARE(selected.front(), node);
        std::sort(selected.begin(), selected.end());
        std::sort(alike.begin(), alike.end());
        QCOMPARE(selected, alike);
        const QString selectedToo =
            QStringLiteral("%1 other nodes selected too").arg(alike.size() - 1);
        bool titleSaysSo = false;
        for (const QLabel* l : panel.findChildren<QLabel*>())
            titleSaysSo = titleSaysSo || l->text().contains(selectedToo);
        QVERIFY(titleSaysSo);

        QTreeWidget* list = nullptr;  // Ctrl-click: a node of another rank joins the selection
        for (QTreeWidget* t : panel.findChildren<QTreeWidget*>())
            if (t->headerItem()->text(0) == QStringLiteral("Node")) list = t;
        QVERIFY(list);
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            if (list->topLevelItem(i)->data(0, Qt::UserRole).toInt() == otherRank)
                list->topLevelItem(i)->setSelected(true);
        QCOMPARE(panel.selectedNodes().size(), alike.size() + 1);

        std::vector<int> perm = reversed(4);
        if (perm == layoutOf(m_layout, panel.currentRow(), node, LayoutSlot::Output))
            std::swap(perm[0], perm[1]);
        const std::vector<float> before = panel.currentRow();
        QComboBox* output = nullptr;  // the editor's first slot
        for (QComboBox* box : panel.findChildren<QComboBox*>())
            if (!output && box->count() > 1 && box->itemText(0) == QStringLiteral("default"))
                output = box;
        QVERIFY(output);
        QVariantList wanted;
        for (int d : perm) wanted << d;
        const int index = output->findData(wanted);
        QVERIFY(index > 0);
        const int steps = panel.undoStack()->count();
        output->setCurrentIndex(index);
        emit output->activated(index);
        QVERIFY(waitEvaluated(panel));
        for (int32_t n : alike)
            QCOMPARE(layoutOf(m_layout, panel.currentRow(), n, LayoutSlot::Output), perm);
        QCOMPARE(layoutOf(m_layout, panel.currentRow(), otherRank, LayoutSlot::Output),
                 layoutOf(m_layout, before, otherRank, LayoutSlot::Output));
        QCOMPARE(panel.undoStack()->count(), steps + 1);
        QVERIFY2(panel.undoStack()->undoText().contains(
                     QStringLiteral("#%1 and %2 more output").arg(node).arg(alike.size() - 1)),
                 qPrintable(panel.undoStack()->undoText()));
        panel.undoStack()->undo();
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.currentRow(), before);
    }

    // A loaded session of several entries undoes one entry at a time (its pushes had merged into
    // one step, so Undo leapt from the last entry to the first).
    void undoStepsBackThroughEachLoadedEntry() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        const auto predictions = openLayout(runner, panel);
        QVERIFY(predictions);
        std::vector<int32_t> nodes;
        for (int32_t n : m_layout.configurableNodes())
            if (slotTensor(m_layout, n, LayoutSlot::Output).rank() == 4 && nodes.size() < 3)
                nodes.push_back(n);
        QCOMPARE(nodes.size(), size_t{3});
        for (int32_t n : nodes) {  // three nodes: three undo steps
            QVERIFY(panel.setLayout(n, LayoutSlot::Output, reversed(4)));
            QVERIFY(waitEvaluated(panel));
        }
        QCOMPARE(panel.runs().size(), size_t{4});
        const QString json = m_dir.filePath(QStringLiteral("four.json"));
        QVERIFY(!savedSession(panel, json).isEmpty());

        WhatIfPanel again(&runner);
        again.setGraph(m_layout, QStringLiteral("r.npz"));
        again.setPredictions(predictions);
        QVERIFY(waitEvaluated(again));
        QString error;
        QVERIFY2(again.loadSession(json, &error), qPrintable(error));
        QVERIFY(waitEvaluated(again));
        QCOMPARE(again.undoStack()->count(), 3);
        for (int entry = 2; entry >= 0; --entry) {
            again.undoStack()->undo();
            QVERIFY(waitEvaluated(again));
            QCOMPARE(again.currentRow(), panel.runs()[static_cast<size_t>(entry)].row);
        }
    }

    void testSplitFileHasNoRuntimes() {
        TpuGraphData d = m_layout.data();
        d.runtimes.assign(d.runtimes.size(), 0.0);
        const TpuGraph test(std::move(d));
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        panel.setGraph(test, QStringLiteral("t.npz"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("t.npz"), test));
        QVERIFY(waitEvaluated(panel));
        QVERIFY2(panel.resultText().contains(QStringLiteral("runtimes unknown")), qPrintable(panel.resultText()));
        QVERIFY(panel.resultText().contains(QStringLiteral("Would rank")));
    }

    // A configuration the model scores beyond every measured one gets the fit's end runtime: the
    // text says "≤" and "faster than every measured configuration", where it had read "+0.0% vs
    // best measured", and a change against the start goes by the scores.
    void aPredictionBeyondTheFitSaysSo() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        panel.setGraph(m_layout, QStringLiteral("r.npz"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("r.npz"), m_layout));
        QVERIFY(waitEvaluated(panel));
        panel.startFrom(StartPoint::parse("default"));
        QVERIFY(waitEvaluated(panel));
        int beyond = 0, within = 0;
        for (int32_t node : m_layout.configurableNodes()) {
            const int rank = slotTensor(m_layout, node, LayoutSlot::Output).rank();
            if (rank < 2) continue;
            if (!panel.setLayout(node, LayoutSlot::Output, reversed(rank))) continue;
            QVERIFY(waitEvaluated(panel));
            const whatif::WhatIfReport& r = panel.report();
            const QString text = panel.resultText();
            if (r.beyondFit < 0) {
                ++beyond;
                QVERIFY2(
                    text.contains(QStringLiteral("Predicted ≤ ")) &&
                        text.contains(QStringLiteral("faster than every measured configuration")) &&
                        !text.contains(QStringLiteral("vs best measured")),
                    qPrintable(text));
            } else {
                within += r.beyondFit == 0;
                QVERIFY2(text.contains(QStringLiteral("vs best measured")), qPrintable(text));
            }
            if (beyond > 0 && within > 0) break;
        }
        QVERIFY2(beyond > 0 && within > 0, "expected edits on both sides of the fit's fastest end");
    }

    void tileBoundsEdit() {
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::DotKernel, 4, 80, "k");
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        QVERIFY(openTile(runner, panel, tile));
        const float bound = panel.currentRow()[8] == 128.0f ? 256.0f : 128.0f;  // output_bounds_0
        QVERIFY(panel.setTileBound(8, bound));
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.currentRow()[8], bound);
        // The nearest measured row is one bound away, said in words ("bound(s)" had shown as is,
        // and counted the group's derived sum and product: "3 bound(s) differ").
        QVERIFY(panel.setTileBound(8, 3));  // a size no row of the file has
        QVERIFY(waitEvaluated(panel));
        QVERIFY2(panel.resultText().contains(QStringLiteral("(1 bound differs)")),
                 qPrintable(panel.resultText()));
        QVERIFY(!panel.setTileBound(14, 3));  // a sum is derived, not edited
        QCOMPARE(panel.runs().size(), size_t{3});
        QSignalSpy swept(&panel, &WhatIfPanel::swept);
        panel.selectNode(8);  // no effect on a tile file: the bound is chosen in the list
        panel.sweep(0);       // nothing selected yet: no sweep
        QCOMPARE(swept.count(), 0);
    }

    // A bound set to 0 (the whole dimension) is written as the dimension's size, as the file's
    // configurations write it: the model had read the 0 as given, and its group's product as 0,
    // so a sweep drew "0" and "256" as two values, 0.2 ms and 0.1 ms, of one tile.
    void aWholeBoundIsWrittenAsItsSize() {
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 60, "k");
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        QVERIFY(openTile(runner, panel, tile));
        int column = -1;
        for (int c = 0; c < 24 && column < 0; ++c)
            if (isTileBoundPosition(c) && panel.tileBoundDimension(c) > 1 &&
                panel.currentRow()[static_cast<size_t>(c)] < panel.tileBoundDimension(c))
                column = c;
        QVERIFY(column >= 0);
        const auto size = static_cast<float>(panel.tileBoundDimension(column));
        QVERIFY(panel.setTileBound(column, 0));
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.currentRow()[static_cast<size_t>(column)], size);
        const std::vector<int> sizes = panel.tileSizeChoices(column);
        QVERIFY(std::find(sizes.begin(), sizes.end(), 0) == sizes.end());
        QCOMPARE(sizes.back(), static_cast<int>(size));
    }

    // A tile size outside the values the file's configurations give its bound is named under
    // the prediction and starred in the sweep: the model never saw the kernel with such a tile
    // (a one-lane output tile had read as fast as the best, one bound from a measured row).
    void sizesOutsideTheFilesRangeAreMarked() {
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 60, "k");
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        const auto predictions = openTile(runner, panel, tile);
        QVERIFY(predictions);
        const whatif::WhatIfPredictor& p = *predictions->predictor;
        int column = -1;
        for (int c = 0; c < 24 && column < 0; ++c)
            if (p.boundRange(c).known && p.boundRange(c).low > 1) column = c;
        QVERIFY(column >= 0);
        const whatif::BoundRange range = p.boundRange(column);
        const QString name =
            QString::fromStdString(schema::tileConfigFeatureNames()[static_cast<size_t>(column)]);
        QVERIFY2(!panel.resultText().contains(QStringLiteral("⚠")), qPrintable(panel.resultText()));
        QVERIFY(panel.setTileBound(column, 1));
        QVERIFY(waitEvaluated(panel));
        const QString low = countText(std::llround(range.low));
        const QString held =
            range.low == range.high
                ? QStringLiteral("every configuration of this file holds %1").arg(low)
                : QStringLiteral("this file's configurations hold %1–%2")
                      .arg(low, countText(std::llround(range.high)));
        const QString says = QStringLiteral(
                                 "⚠ %1 = 1, where %2: a tile this kernel was not "
                                 "measured with, so the model extrapolates.")
                                 .arg(name, held);
        QVERIFY2(panel.resultText().contains(says), qPrintable(panel.resultText()));
        auto* list = panel.findChild<QTreeWidget*>();
        const QList<QTreeWidgetItem*> items = list->findItems(name, Qt::MatchExactly);
        QVERIFY(!items.isEmpty());
        list->setCurrentItem(items.front());
        QSignalSpy swept(&panel, &WhatIfPanel::swept);
        panel.sweep(0);
        // Another bound selected while the sweep runs: the note stays the swept bound's.
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            if (list->topLevelItem(i) != items.front() &&
                !list->topLevelItem(i)->text(0).endsWith(QStringLiteral("_5")))
                list->setCurrentItem(list->topLevelItem(i));
        QVERIFY(list->currentItem() != items.front());
        QVERIFY(swept.wait(60000));
        int starred = 0;
        for (const SweepChart::Point& point : panel.sweepChart()->points()) {
            const float value = point.label.toFloat();
            QCOMPARE(point.outsideFile, value < range.low || value > range.high);
            starred += point.outsideFile;
        }
        QVERIFY(starred > 0);
        QVERIFY2(panel.sweepChart()->chart()->title().contains(
                     QStringLiteral("* outside the file's values (%1): the model extrapolates")
                         .arg(held)),
                 qPrintable(panel.sweepChart()->chart()->title()));
    }

    // On a laptop's screen the node list shows every column, each layout whole (the longest its
    // slot takes, bold as an edited row is), and the editor gets the width it asks for. The list
    // had been 225 px (its Input column off to the right, layouts cut to "{2,0,3,...") while the
    // runs took 960 px. A split the user dragged stays as dragged.
    // While the predictions run (minutes on a 45,000-node file) the empty list is named for the
    // file's kind: its header had read "1".
    void theListIsNamedBeforeThePredictions() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        auto* list = panel.findChild<QTreeWidget*>();
        QVERIFY(list);
        panel.setGraph(m_layout, QStringLiteral("r.npz"));
        QCOMPARE(list->topLevelItemCount(), 0);
        QCOMPARE(list->headerItem()->text(0), QStringLiteral("Node"));
        QCOMPARE(list->headerItem()->text(4), QStringLiteral("Kernel"));
        panel.setGraph(synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 40, "k"),
                       QStringLiteral("k.npz"));
        QCOMPARE(list->headerItem()->text(0), QStringLiteral("Tile bound"));
        QCOMPARE(list->columnCount(), 3);
    }

    // Off screen the node list's layouts wait until the panel is seen (on a 45,000-node file
    // refilling them was a fifth of the GUI thread's time for each configuration chosen); seen,
    // they follow each choice at once.
    void anOffScreenNodeListFillsWhenSeen() {
        JobRunner runner(QStringLiteral("model"));
        auto* panel = new WhatIfPanel(&runner);
        QTabWidget tabs;
        tabs.addTab(new QWidget, QStringLiteral("Configurations"));
        tabs.addTab(panel, QStringLiteral("What-if"));
        tabs.resize(1366, 400);
        tabs.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tabs));
        QVERIFY(openLayout(runner, *panel));
        auto* list = panel->findChild<QTreeWidget*>();
        QVERIFY(list && list->topLevelItemCount() == static_cast<int>(m_layout.numConfigurable()));
        const auto listShows = [&](int64_t c) {
            return nodeListShowsLayouts(*list, m_layout, m_layout.layoutConfigs()->config(c));
        };
        panel->setChosenConfig(3);
        QVERIFY(waitEvaluated(*panel));
        QVERIFY(panel->holdsConfig(3));
        QVERIFY(!listShows(3));
        tabs.setCurrentWidget(panel);
        QVERIFY(listShows(3));
        panel->setChosenConfig(4);
        QVERIFY(listShows(4));
        // A dock behind another tab stays visible to Qt: its dock says so.
        panel->setOnScreen(false);
        panel->setChosenConfig(5);
        QVERIFY(panel->holdsConfig(5) && !listShows(5));
        panel->setOnScreen(true);
        QVERIFY(listShows(5));
    }

    // The list rewrites only the rows whose slots changed: after edits, undo, a new start and
    // another file it still shows every row's layouts, and the edited rows in bold with the edit.
    void theNodeListFollowsEditsUndoAndNewStarts() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        startOnConfig5(runner, panel);
        QVERIFY(waitEvaluated(panel));
        auto* list = panel.findChild<QTreeWidget*>();
        const auto shows = [&] {
            return nodeListShowsLayouts(*list, m_layout, panel.currentRow());
        };
        const auto rowOf = [&](int32_t node) {
            for (int i = 0; i < list->topLevelItemCount(); ++i)
                if (list->topLevelItem(i)->data(0, Qt::UserRole).toInt() == node)
                    return list->topLevelItem(i);
            return static_cast<QTreeWidgetItem*>(nullptr);
        };
        QVERIFY(shows());
        std::vector<int32_t> nodes;
        for (int32_t n : m_layout.configurableNodes())
            if (slotTensor(m_layout, n, LayoutSlot::Output).rank() == 4 && nodes.size() < 2 &&
                layoutOf(m_layout, panel.currentRow(), n, LayoutSlot::Output) != reversed(4))
                nodes.push_back(n);
        QCOMPARE(nodes.size(), size_t{2});
        for (int32_t n : nodes) {
            QVERIFY(panel.setLayout(n, LayoutSlot::Output, reversed(4)));
            QVERIFY(waitEvaluated(panel));
            QVERIFY(shows());
            QVERIFY(rowOf(n)->font(0).bold());
            QVERIFY(rowOf(n)->toolTip(0).startsWith(QStringLiteral("what-if edit: output ")));
        }
        panel.undoStack()->undo();
        QVERIFY(waitEvaluated(panel));
        QVERIFY(shows());
        QVERIFY(rowOf(nodes[0])->font(0).bold() && !rowOf(nodes[1])->font(0).bold());
        QVERIFY(rowOf(nodes[1])->toolTip(0).isEmpty());
        panel.startFrom(whatif::StartPoint{whatif::StartPoint::Kind::Row, 7});
        QVERIFY(waitEvaluated(panel) && panel.holdsConfig(7));
        QVERIFY(shows());
        QVERIFY(!rowOf(nodes[0])->font(0).bold());
        // The file opened again: rows built anew, every one written.
        startOnConfig5(runner, panel);
        QVERIFY(waitEvaluated(panel) && panel.holdsConfig(5));
        QVERIFY(shows());
    }

    void nodeListShowsItsColumnsWhole() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.resize(1366, 340);
        // As the explorer does: the file opens with nothing chosen (every layout "default"),
        // then a configuration is chosen.
        panel.setGraph(m_layout, QStringLiteral("r.npz"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("r.npz"), m_layout));
        QVERIFY(waitEvaluated(panel));
        panel.setChosenConfig(5);
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.runs().front().label, QStringLiteral("start: config 5"));
        const int32_t node = nodeWithOutputRank(m_layout, 4);
        QVERIFY(node >= 0);
        const int rank = slotTensor(m_layout, node, LayoutSlot::Output).rank();
        QVERIFY(panel.setLayout(node, LayoutSlot::Output, reversed(rank)));
        QVERIFY(waitEvaluated(panel));
        QTreeWidget* list = nullptr;
        for (QTreeWidget* tree : panel.findChildren<QTreeWidget*>())
            if (tree->headerItem()->text(0) == QStringLiteral("Node")) list = tree;
        QVERIFY(list != nullptr && list->columnCount() == 5);
        QStyleOptionViewItem option;
        option.initFrom(list);
        option.widget = list;
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            for (int c = 2; c < 5; ++c) {
                const QModelIndex index = list->model()->index(i, c);
                const int needed = list->itemDelegate()->sizeHint(option, index).width();
                QVERIFY2(needed <= list->columnWidth(c),
                         qPrintable(QStringLiteral("row %1 column %2: \"%3\" needs %4 px of %5")
                                        .arg(i)
                                        .arg(c)
                                        .arg(index.data().toString())
                                        .arg(needed)
                                        .arg(list->columnWidth(c))));
            }
        auto* split = panel.findChild<QSplitter*>();
        QVERIFY(split != nullptr && split->count() == 3);
        QTRY_VERIFY2(list->horizontalScrollBar()->maximum() == 0,
                     qPrintable(QStringLiteral("columns %1 px in a %2-px list")
                                    .arg(list->header()->length())
                                    .arg(list->viewport()->width())));
        QWidget* editor = split->widget(1);
        QVERIFY2(
            editor->width() >= editor->sizeHint().width(),
            qPrintable(
                QStringLiteral("%1 of %2").arg(editor->width()).arg(editor->sizeHint().width())));
        QVERIFY(split->widget(2)->width() > list->width());  // the runs keep the most
        // Narrower, the runs column gives way: its Suggest page had asked 579 px (its buttons and
        // settings on one row), so the splitter took the list's width instead.
        panel.resize(1100, 340);
        QTRY_COMPARE(split->width(), 1100 - 8);
        QTRY_VERIFY2(list->horizontalScrollBar()->maximum() == 0,
                     qPrintable(QStringLiteral("at 1100 px: columns %1 px in a %2-px list")
                                    .arg(list->header()->length())
                                    .arg(list->viewport()->width())));

        // The user narrows the list; a later resize of the dock keeps it so.
        QSplitterHandle* handle = split->handle(1);
        const QPoint grip = handle->rect().center();
        QTest::mousePress(handle, Qt::LeftButton, {}, grip);
        QTest::mouseMove(handle, grip - QPoint(60, 0));
        QTest::mouseRelease(handle, Qt::LeftButton, {}, grip - QPoint(60, 0));
        const int dragged = list->width();
        QVERIFY2(dragged < list->header()->length(), qPrintable(QString::number(dragged)));
        panel.resize(1300, 340);
        QTRY_COMPARE(split->width(), 1300 - 8);
        QCOMPARE(list->width(), dragged);
    }

    // More lines of report or search summary do not raise the panel's minimum height: they grew
    // the docks, and the tab row moved from under the mouse (16 px at 1366 x 768 when a search's
    // summary took a second line). The report and the runs scroll instead.
    void longerTextDoesNotRaiseThePanelsMinimumHeight() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        panel.resize(1366, 300);  // the tab's height in 45% of a 1366 x 768 window
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        startOnConfig5(runner, panel);
        QVERIFY(waitEvaluated(panel));
        QLabel* report = nullptr;
        for (QLabel* l : panel.findChildren<QLabel*>())
            if (l->text().contains(QStringLiteral("Predicted"))) report = l;
        QVERIFY(report);
        auto* scroll =
            qobject_cast<QScrollArea*>(report->parentWidget()->parentWidget()->parentWidget());
        QVERIFY(scroll);  // content -> viewport -> scroll area
        QTRY_COMPARE(scroll->verticalScrollBar()->maximum(), 0);  // there, all of it in view
        // ...with a node's slots in the editor beside it, on each tab (the Suggest page's list
        // had asked its 192-px hint, and pushed the page's buttons out of view).
        panel.selectNode(nodeWithOutputRank(m_layout, 4));
        for (int page = 0; page < 3; ++page) {
            panel.findChild<QTabWidget*>()->setCurrentIndex(page);
            QTRY_COMPARE(scroll->verticalScrollBar()->maximum(), 0);
        }
        QCoreApplication::processEvents();  // the editor's layout, for its node's slots
        const int before = panel.minimumSizeHint().height();
        report->setText(report->text() +
                        QStringLiteral("<br>a longer report than any so far").repeated(12));
        QCoreApplication::processEvents();
        QVERIFY2(panel.minimumSizeHint().height() <= before,
                 qPrintable(
                     QStringLiteral("%1 -> %2").arg(before).arg(panel.minimumSizeHint().height())));
        QTRY_VERIFY(scroll->verticalScrollBar()->maximum() > 0);  // the whole report a scroll away
        QCOMPARE(scroll->horizontalScrollBar()->maximum(), 0);
    }

    // A chosen bound's value box shows its value whole in a laptop screen's editor column: its
    // "0 (whole)" had read "0 (whole" where the column was narrow.
    void tileValueBoxReadsWhole() {
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 60, "k");
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        panel.show();  // at its first size, then grown: the main window's dock does so
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setGraph(tile, QStringLiteral("k.npz"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("k.npz"), tile));
        QVERIFY(waitEvaluated(panel));
        panel.resize(1366, 340);
        QTreeWidget* bounds = nullptr;
        for (QTreeWidget* tree : panel.findChildren<QTreeWidget*>())
            if (tree->headerItem()->text(0) == QStringLiteral("Tile bound")) bounds = tree;
        QVERIFY(bounds != nullptr);
        // As wide as its columns however often the dock is resized: fitted to the header's length,
        // which includes the last section stretched over the list, it grew by the unused
        // scroll bar's width on every resize.
        const int fitted = bounds->width();
        for (const int width : {1300, 1366, 1300, 1366}) {
            panel.resize(width, 340);
            QTRY_COMPARE(panel.findChild<QSplitter*>()->width(), width - 8);
        }
        QCOMPARE(bounds->width(), fitted);
        QVERIFY2(bounds->width() < panel.width() / 3, qPrintable(QString::number(bounds->width())));
        int whole = -1;  // a bound at 0: the longest value text
        for (int i = 0; i < bounds->topLevelItemCount() && whole < 0; ++i)
            if (bounds->topLevelItem(i)->text(1) == QStringLiteral("0")) whole = i;
        QVERIFY(whole >= 0);
        bounds->setCurrentItem(bounds->topLevelItem(whole));
        QComboBox* box = nullptr;
        for (QComboBox* b : panel.findChildren<QComboBox*>())
            if (b->isVisible() && b->currentText().startsWith(QStringLiteral("0 ("))) box = b;
        QVERIFY(box != nullptr);
        // The user (or the first layout of the dock) narrows the editor's column.
        auto* split = panel.findChild<QSplitter*>();
        QVERIFY(split != nullptr && split->count() == 3);
        split->setSizes({300, 100, 966});
        // As wide as it asks to be: the old box kept the minimum of its first contents, 79 px
        // against the 86 its "0 (whole)" asked for.
        QTRY_VERIFY2(
            box->width() >= box->sizeHint().width() &&
                box->sizeHint().width() >= box->fontMetrics().horizontalAdvance(box->currentText()),
            qPrintable(QStringLiteral("%1 of %2").arg(box->width()).arg(box->sizeHint().width())));
    }

    // An export records the search its file belongs to, and an export opened alone passes it on,
    // so `tpugraphs predict` and the explorer score it with the model that scored it here (they
    // had used the kind's general model).
    void exportRecordsItsCollection() {
        JobRunner runner(QStringLiteral("model"));
        QString error;
        const auto exported = [&](const TpuGraph& g, const QString& file, const QString& out) {
            WhatIfPanel panel(&runner);
            panel.setGraph(g, file);
            panel.setPredictions(predictedFile(runner, file, g));
            const QString path = m_dir.filePath(out);
            const bool ok = waitEvaluated(panel) && panel.exportNpz(path, &error);
            return ok ? loadTpuGraph(path.toStdString()) : TpuGraph();
        };
        const TpuGraph once =
            exported(m_layout, QStringLiteral("/data/npz/layout/nlp/default/train/r.npz"),
                     QStringLiteral("placed.npz"));
        QVERIFY2(!once.isNull(), qPrintable(error));
        QCOMPARE(once.searchCollection(), std::string("layout:nlp:default"));
        const TpuGraph twice = exported(once, m_dir.filePath(QStringLiteral("placed.npz")),
                                        QStringLiteral("twice.npz"));
        QVERIFY2(!twice.isNull(), qPrintable(error));
        QCOMPARE(twice.searchCollection(), std::string("layout:nlp:default"));
        QVERIFY(exported(m_layout, QStringLiteral("r.npz"), QStringLiteral("loose.npz"))
                    .searchCollection()
                    .empty());
    }

    // A sweep follows the configuration. Its bars had been whole configurations from when it
    // ran: after an edit of another bound, clicking one undid that edit, and its "start" line
    // stayed at the prediction from before.
    void aSweepFollowsTheConfiguration() {
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 60, "k");
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        QVERIFY(openTile(runner, panel, tile));
        const auto& names = schema::tileConfigFeatureNames();
        std::vector<int> columns;  // bounds with at least three sizes to choose from
        for (int c = 0; c < static_cast<int>(names.size()); ++c)
            if (isTileBoundPosition(c) && panel.tileSizeChoices(c).size() >= 3)
                columns.push_back(c);
        QVERIFY(columns.size() >= 2);
        const int swept = columns[0], other = columns[1];
        auto* list = panel.findChild<QTreeWidget*>();
        const QList<QTreeWidgetItem*> items = list->findItems(
            QString::fromStdString(names[static_cast<size_t>(swept)]), Qt::MatchExactly);
        QVERIFY(!items.isEmpty());
        list->setCurrentItem(items.front());
        QSignalSpy sweeps(&panel, &WhatIfPanel::swept);
        panel.sweep(0);
        QVERIFY(sweeps.wait(60000));
        const auto currentLine = [&panel]() -> QLineSeries* {
            for (QAbstractSeries* s : panel.sweepChart()->chart()->series())
                if (s->name().startsWith(QStringLiteral("current (")))
                    return qobject_cast<QLineSeries*>(s);
            return nullptr;
        };
        const auto valueAt = [&panel](int column) {
            return QString::number(
                static_cast<int>(panel.currentRow()[static_cast<size_t>(column)]));
        };
        QVERIFY(currentLine());
        QCOMPARE(currentLine()->name(), QStringLiteral("current (%1)").arg(valueAt(swept)));

        // Another bound edited: the knob is swept again from the new configuration.
        const std::vector<int> sizes = panel.tileSizeChoices(other);
        const int otherValue =
            sizes[sizes.front() == static_cast<int>(panel.currentRow()[static_cast<size_t>(other)])
                      ? 1
                      : 0];
        QVERIFY(panel.setTileBound(other, static_cast<float>(otherValue)));
        QVERIFY(waitEvaluated(panel));
        QTRY_COMPARE_WITH_TIMEOUT(sweeps.count(), 2, 60000);
        // The line is the current configuration's bar: its prediction, as the result line says it.
        const auto& points = panel.sweepChart()->points();
        const auto now =
            std::find_if(points.begin(), points.end(),
                         [&](const SweepChart::Point& p) { return p.label == valueAt(swept); });
        QVERIFY(now != points.end());
        QVERIFY(currentLine());
        const auto* y =
            qobject_cast<QValueAxis*>(panel.sweepChart()->chart()->axes(Qt::Vertical).front());
        QVERIFY(y);
        const double unit = y->titleText() == QStringLiteral("ms")   ? 1e6
                            : y->titleText() == QStringLiteral("us") ? 1e3
                                                                     : 1;
        QVERIFY(std::abs(currentLine()->at(0).y() * unit - panel.report().predictedNs) <=
                1e-3 * panel.report().predictedNs);
        QVERIFY(std::abs(now->model - panel.report().predictedNs) <=
                1e-3 * panel.report().predictedNs);

        // A bar clicked sets the swept bound and keeps the other edit.
        const auto other_bar =
            std::find_if(points.begin(), points.end(),
                         [&](const SweepChart::Point& p) { return p.label != valueAt(swept); });
        QVERIFY(other_bar != points.end());
        const QString clicked = other_bar->label;
        emit panel.sweepChart()->candidateClicked(other_bar->candidate);
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(valueAt(swept), clicked);
        QCOMPARE(valueAt(other), QString::number(otherValue));
        QTRY_COMPARE_WITH_TIMEOUT(sweeps.count(), 3, 60000);
        QCOMPARE(currentLine()->name(), QStringLiteral("current (%1)").arg(clicked));
    }

    // A bound is offered sizes up to its dimension (a larger one tiles it whole, as the synthetic
    // TPU clamps it), and none for a dimension its tensor lacks: the list had offered up to 4096
    // for a kernel dimension of 3.
    void tileSizesStopAtTheDimension() {
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 60, "k");
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        panel.setGraph(tile, QStringLiteral("k.npz"));
        QCOMPARE(panel.tileBoundDimension(0), int64_t{0});  // no predictions yet: not known
        const auto predictions = predictedFile(runner, QStringLiteral("k.npz"), tile);
        panel.setPredictions(predictions);
        QVERIFY(waitEvaluated(panel));
        const synth::TpuCostModel::TileTensors t = predictions->predictor->synthTpu().tileTensors();
        const auto& names = schema::tileConfigFeatureNames();
        int limited = 0, absent = 0;
        QString absentName, presentName;
        for (int column = 0; column < static_cast<int>(names.size()); ++column) {
            const std::string& name = names[static_cast<size_t>(column)];
            const size_t dim = name.back() - '0';
            if (name.find("_bounds_") == std::string::npos || name.back() < '0' ||
                name.back() > '5') {
                QCOMPARE(panel.tileBoundDimension(column), int64_t{0});  // a sum or a product
                continue;
            }
            const std::vector<int64_t>& dims = name.rfind("kernel", 0) == 0   ? t.kernel
                                               : name.rfind("output", 0) == 0 ? t.output
                                                                              : t.input;
            const int current = static_cast<int>(panel.currentRow()[static_cast<size_t>(column)]);
            const std::vector<int> sizes = panel.tileSizeChoices(column);
            // 0 (the whole dimension) where there is no size to write instead.
            QCOMPARE(std::find(sizes.begin(), sizes.end(), 0) != sizes.end(),
                     dim >= dims.size() || current == 0);
            QVERIFY(std::find(sizes.begin(), sizes.end(), current) != sizes.end());
            if (dim >= dims.size()) {
                QCOMPARE(panel.tileBoundDimension(column), int64_t{-1});
                QVERIFY(sizes.size() <= 2);
                ++absent;
                absentName = QString::fromStdString(name);
                continue;
            }
            presentName = QString::fromStdString(name);
            QCOMPARE(panel.tileBoundDimension(column), dims[dim]);
            QCOMPARE(sizes.back(), std::max(current, static_cast<int>(dims[dim])));
            if (dims[dim] < 4096) ++limited;
        }
        QVERIFY(limited > 0 && absent > 0);
        // A bound that changes nothing has nothing to sweep: its sweep had charted one value.
        auto* list = panel.findChild<QTreeWidget*>();
        QPushButton* sweepButton = childWithText<QPushButton>(panel, QStringLiteral("⇅"));
        QVERIFY(list && sweepButton);
        const auto choose = [list](const QString& name) {
            const QList<QTreeWidgetItem*> rows = list->findItems(name, Qt::MatchExactly);
            if (!rows.isEmpty()) list->setCurrentItem(rows.front());
            return !rows.isEmpty();
        };
        QVERIFY(choose(absentName));
        QVERIFY(!sweepButton->isEnabled());
        QVERIFY(choose(presentName));
        QVERIFY(sweepButton->isEnabled());
    }
};

QTEST_MAIN(TestWhatIfPanel)
#include "test_whatif_panel.moc"
