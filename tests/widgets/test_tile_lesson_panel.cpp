// The tile lesson as a class would see it (offscreen): each step done by Show me or by hand in
// the what-if editor, Next only when a step is done, the figures the synthetic TPU's.
#include <QPushButton>
#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

#include "JobRunner.h"
#include "LessonRun.h"
#include "TileLessonPanel.h"
#include "WhatIfPanel.h"
#include "explain/CostExplanation.h"
#include "synth/SyntheticDataset.h"
#include "whatif/ConfigEdit.h"

using namespace tpg;
using Step = TileLessonPanel::Step;

namespace {

QString ns(double v) {
    return QString::fromStdString(explain::nsText(v));
}

}  // namespace

class TestTileLessonPanel : public QObject {
    Q_OBJECT
    TpuGraph m_kernel;

    bool start(JobRunner& runner, WhatIfPanel& whatIf, TileLessonPanel& lesson) {
        return beginLesson(runner, whatIf, lesson, m_kernel, QStringLiteral("k.npz"));
    }

private slots:
    void initTestCase() { m_kernel = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 200, "k"); }

    void showMeWalksThroughEveryStep() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel whatIf(&runner);
        TileLessonPanel lesson(&whatIf);
        QSignalSpy activated(&lesson, &TileLessonPanel::nodeActivated);
        QSignalSpy panels(&lesson, &TileLessonPanel::panelWanted);
        QVERIFY(start(runner, whatIf, lesson));
        const lesson::TileLesson s = *lesson.scenario();
        QCOMPARE(whatIf.currentRow(), s.startRow);
        QCOMPARE(lesson.step(), Step::Select);
        QVERIFY2(lesson.bodyText().contains(ns(s.startCost.totalNs)),
                 qPrintable(lesson.bodyText()));
        QVERIFY(!lesson.nextButton()->isEnabled());
        QTest::mouseClick(lesson.showMeButton(), Qt::LeftButton);
        QCOMPARE(activated.last().at(0).toInt(), s.output);
        lesson.selectNode(s.output);  // the graph answers the activation with a selection
        QVERIFY(lesson.stepDone() && lesson.nextButton()->isEnabled());
        QTest::mouseClick(lesson.nextButton(), Qt::LeftButton);

        QCOMPARE(lesson.step(), Step::Narrow);
        QCOMPARE(panels.last().at(0).toString(), QStringLiteral("What-if"));
        QVERIFY(!lesson.stepDone());
        QTest::mouseClick(lesson.showMeButton(), Qt::LeftButton);
        QVERIFY(settleLesson(lesson, whatIf));
        QVERIFY2(lesson.stepDone(), qPrintable(lesson.statusText()));
        QCOMPARE(whatIf.currentRow(), s.narrowRow);
        QVERIFY(lesson.statusText().contains(ns(s.narrowCost.totalNs)));
        lesson.next();

        QCOMPARE(lesson.step(), Step::WatchLanes);
        QCOMPARE(panels.last().at(0).toString(), QStringLiteral("Explain"));
        const QString watch = lesson.bodyText();
        QVERIFY2(watch.contains(QStringLiteral("fills 1 of a register's 128 lanes")) &&
                     watch.contains(ns(s.narrowCost.totalNs)) &&
                     watch.contains(QStringLiteral("The learned model predicts")),
                 qPrintable(watch));
        lesson.next();

        QCOMPARE(lesson.step(), Step::OneTile);
        QVERIFY(!lesson.stepDone());
        QTest::mouseClick(lesson.showMeButton(), Qt::LeftButton);
        QVERIFY(settleLesson(lesson, whatIf));
        QVERIFY2(lesson.stepDone(), qPrintable(lesson.statusText()));
        // One tile from the narrow one: every output bound its dimension, the rest as they were.
        std::vector<float> whole = s.narrowRow;
        for (size_t d = 0; d < s.dims.size(); ++d)
            whatif::applyTileEdit(whole, {s.outputColumns[d], static_cast<float>(s.dims[d])});
        QCOMPARE(whatIf.currentRow(), whole);
        lesson.next();

        QCOMPARE(lesson.step(), Step::Compare);
        const QString compare = lesson.bodyText();
        for (double v : {s.startCost.totalNs, s.narrowCost.totalNs, s.wholeCost.totalNs})
            QVERIFY2(compare.contains(ns(v)), qPrintable(compare));
        QVERIFY(compare.contains(QStringLiteral("The fastest measured configuration")));
        QVERIFY(!lesson.nextButton()->isEnabled());
        QVERIFY(whatIf.undoStack()->count() >= 2);  // every edit undoable
    }

    // The figures are the synthetic TPU's: the ground truth of a synthetic file, and on any other
    // file the first step and the comparison say they are estimates (they had read as the file's),
    // and an extrapolating model's figure no longer defers to them.
    void onAFileTheSyntheticTpuDidNotTimeTheFiguresAreEstimates() {
        for (const double scale : {1.0, 1.1, 0.0}) {
            const QString problem = trustWordingProblem<TileLessonPanel>(m_kernel, scale);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
    }

    // A presenter's remote (Page Down, Page Up) steps through the lesson (remoteProblem).
    void aPresentersRemoteStepsThroughTheLesson() {
        const QString problem = remoteProblem<TileLessonPanel>(m_kernel);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // A step is done however the edit was made: by hand in the what-if editor, and undone again.
    void anEditByHandDoesTheStep() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel whatIf(&runner);
        TileLessonPanel lesson(&whatIf);
        QVERIFY(start(runner, whatIf, lesson));
        const lesson::TileLesson s = *lesson.scenario();
        lesson.selectNode(s.output);
        lesson.next();
        QVERIFY(whatIf.setTileBound(s.laneColumn, 2));
        QVERIFY(settleLesson(lesson, whatIf));
        QVERIFY2(lesson.stepDone(), qPrintable(lesson.statusText()));
        QVERIFY(lesson.statusText().contains(QStringLiteral("Tiles 2 lanes wide")));
        whatIf.undoStack()->undo();
        QVERIFY(settleLesson(lesson, whatIf));
        QVERIFY(!lesson.stepDone());
        QVERIFY(!lesson.nextButton()->isEnabled());
    }

    // On a layout file the lesson asks for a tile file first, then runs once one is open.
    void aLayoutFileAsksForATileFile() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel whatIf(&runner);
        TileLessonPanel lesson(&whatIf);
        QSignalSpy wanted(&lesson, &TileLessonPanel::fileWanted);
        const TpuGraph layout = synth::makeLayoutGraph(synth::Recipe::ResNet, 1, 200, 8,
                                                       synth::LayoutSearch::Random, "r");
        lesson.setGraph(layout, QStringLiteral("r.npz"));
        lesson.begin();
        QCOMPARE(wanted.count(), 1);
        QVERIFY(!lesson.running());
        QVERIFY(start(runner, whatIf, lesson));
        QCOMPARE(lesson.step(), Step::Select);
        // Another file closes the lesson.
        lesson.setGraph(layout, QStringLiteral("r.npz"));
        QVERIFY(!lesson.running());
        QVERIFY(lesson.bodyText().contains(QStringLiteral("closed")));
    }
};

QTEST_MAIN(TestTileLessonPanel)
#include "test_tile_lesson_panel.moc"
