// The guided lesson as a class would see it (offscreen): each step done by Show me or by hand in
// the what-if editor, a wrong layout and an undo answered with a hint, Next only when a step is done.
#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

#include "DefaultModels.h"
#include "FilePredictions.h"
#include "JobRunner.h"
#include "LessonPanel.h"
#include "LessonRun.h"
#include "PredictedFile.h"
#include "ScreenFonts.h"
#include "WhatIfPanel.h"
#include "explain/CostExplanation.h"
#include "synth/SyntheticDataset.h"

using namespace tpg;
using whatif::LayoutSlot;

class TestLessonPanel : public QObject {
    Q_OBJECT
    TpuGraph m_resnet;

    // A lesson running on m_resnet; false when it did not start.
    bool start(JobRunner& runner, WhatIfPanel& whatIf, LessonPanel& lesson) {
        return beginLesson(runner, whatIf, lesson, m_resnet, QStringLiteral("r.npz"));
    }

    // As start, in a dock of `size` on the screen.
    bool startShown(JobRunner& runner, WhatIfPanel& whatIf, LessonPanel& lesson, QSize size) {
        if (!start(runner, whatIf, lesson)) return false;
        lesson.resize(size);
        lesson.show();
        return QTest::qWaitForWindowExposed(&lesson);
    }

private slots:
    void initTestCase() {
        m_resnet = synth::makeLayoutGraph(synth::Recipe::ResNet, 3, 400, 60, synth::LayoutSearch::Random, "r");
    }

    // On a big file the lesson starts before the file is scored (the what-if editor's unranked
    // predictor): its steps speak of the synthetic TPU alone, and the learned model's figures
    // join the shown text once the predictions have ranked the editor's runs.
    void theModelsFiguresJoinTheShownTextOnceTheFileIsScored() {
        JobRunner runner(QStringLiteral("whatif"));
        WhatIfPanel whatIf(&runner);
        LessonPanel lesson(&whatIf);
        const QString file = QStringLiteral("r.npz");
        whatIf.setGraph(m_resnet, file);
        lesson.setGraph(m_resnet, file);
        const auto unranked = std::make_shared<whatif::WhatIfPredictor>(
            std::make_shared<const TpuGraph>(m_resnet), nn::defaultModel(Collection::Layout),
            whatif::WhatIfPredictor::Unranked{});
        whatIf.setUnranked({file, QStringLiteral("built-in layout model"), unranked});
        lesson.begin();
        for (int i = 0; i < 1500 && !lesson.running(); ++i) QTest::qWait(20);
        QVERIFY(lesson.running() && settleLesson(lesson, whatIf));
        QTest::mouseClick(lesson.showMeButton(), Qt::LeftButton);
        lesson.selectNode(lesson.scenario()->producer);
        lesson.next();
        QTest::mouseClick(lesson.showMeButton(), Qt::LeftButton);
        QVERIFY(settleLesson(lesson, whatIf));
        QVERIFY(lesson.stepDone());
        lesson.next();
        QCOMPARE(lesson.step(), LessonPanel::Step::WatchCopy);
        auto shown = [&] {
            QString all;
            for (const QLabel* l : lesson.findChildren<QLabel*>()) all += l->text();
            return all;
        };
        QVERIFY(shown().contains(
            QString::fromStdString(explain::nsText(lesson.scenario()->bad.totalNs))));
        QVERIFY(!shown().contains(QStringLiteral("The learned model predicts")));

        const auto predictions =
            rankedPredictions(file, QStringLiteral("built-in layout model"), unranked);
        QSignalSpy reranked(&whatIf, &WhatIfPanel::reranked);
        whatIf.setPredictions(predictions);
        QVERIFY(reranked.wait(60000));
        QVERIFY2(shown().contains(QStringLiteral("The learned model predicts")),
                 qPrintable(shown()));
    }

    // The figures are the synthetic TPU's: the ground truth of a synthetic file, and on any other
    // file the first step and the comparison say they are estimates (they had read as the file's),
    // and an extrapolating model's figure no longer defers to them.
    void onAFileTheSyntheticTpuDidNotTimeTheFiguresAreEstimates() {
        for (const double scale : {1.0, 1.1, 0.0}) {
            const QString problem = trustWordingProblem<LessonPanel>(m_resnet, scale);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
    }

    void showMeWalksThroughEveryStep() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel whatIf(&runner);
        LessonPanel lesson(&whatIf);
        QSignalSpy activated(&lesson, &LessonPanel::nodeActivated);
        QSignalSpy panels(&lesson, &LessonPanel::panelWanted);
        QVERIFY(start(runner, whatIf, lesson));
        const lesson::LayoutLesson s = *lesson.scenario();
        QCOMPARE(whatIf.currentRow(), s.startRow);
        QCOMPARE(lesson.step(), LessonPanel::Step::Select);
        QVERIFY(lesson.titleText().contains(QStringLiteral("convolution")));
        QVERIFY(!lesson.nextButton()->isEnabled());

        QTest::mouseClick(lesson.showMeButton(), Qt::LeftButton);
        QCOMPARE(activated.last().at(0).toInt(), s.producer);
        lesson.selectNode(s.producer);  // the graph answers the activation with a selection
        QVERIFY(lesson.stepDone());
        QVERIFY(lesson.nextButton()->isEnabled());
        QTest::mouseClick(lesson.nextButton(), Qt::LeftButton);

        QCOMPARE(lesson.step(), LessonPanel::Step::ChangeOutput);
        QCOMPARE(panels.last().at(0).toString(), QStringLiteral("What-if"));
        QVERIFY(lesson.bodyText().contains(QString::fromStdString(explain::layoutText(s.badLayout))));
        // The count of nodes that follow the layout reads as English ("node(s)" had shown as is).
        const auto n = static_cast<int>(s.propagatedTo.size());
        const QString follow =
            (n == 1 ? QStringLiteral("1 node") : QStringLiteral("%1 nodes").arg(n)) +
            QStringLiteral(" after #%1 will follow it").arg(s.producer);
        QVERIFY2(lesson.bodyText().contains(follow), qPrintable(lesson.bodyText()));
        QTest::mouseClick(lesson.showMeButton(), Qt::LeftButton);
        QVERIFY(settleLesson(lesson, whatIf));
        QVERIFY2(lesson.stepDone(), qPrintable(lesson.statusText()));
        QCOMPARE(whatif::layoutOf(m_resnet, whatIf.currentRow(), s.producer, LayoutSlot::Output), s.badLayout);
        lesson.next();

        QCOMPARE(lesson.step(), LessonPanel::Step::WatchCopy);
        QCOMPARE(panels.last().at(0).toString(), QStringLiteral("Explain"));
        const QString watch = lesson.bodyText();
        QVERIFY2(watch.contains(QString::fromStdString(explain::nsText(s.copy.copyNs))), qPrintable(watch));
        QVERIFY(watch.contains(QString::fromStdString(explain::nsText(s.bad.totalNs))));
        QVERIFY(watch.contains(QStringLiteral("The learned model predicts")));
        // The comparison is said of the changed program, not of a "B".
        QVERIFY2(
            watch.contains(QStringLiteral("It is ")) && !watch.contains(QStringLiteral("B is ")),
            qPrintable(watch));
        if (s.bad.copies.size() == s.start.copies.size() + 1)
            QVERIFY2(watch.contains(QStringLiteral("1 more copy ")), qPrintable(watch));
        lesson.next();

        QCOMPARE(lesson.step(), LessonPanel::Step::FixConsumer);
        QVERIFY(!lesson.stepDone());
        QTest::mouseClick(lesson.showMeButton(), Qt::LeftButton);
        QVERIFY(settleLesson(lesson, whatIf));
        QVERIFY2(lesson.stepDone(), qPrintable(lesson.statusText()));
        QCOMPARE(whatif::layoutOf(m_resnet, whatIf.currentRow(), s.consumer(), s.consumerSlot), s.fixLayout());
        QVERIFY(lesson.statusText().contains(QString::fromStdString(explain::nsText(s.fixed.totalNs))));
        lesson.next();

        QCOMPARE(lesson.step(), LessonPanel::Step::Compare);
        const QString table = lesson.bodyText();
        for (const auto* b : {&s.start, &s.bad, &s.fixed})
            QVERIFY2(table.contains(QString::fromStdString(explain::nsText(b->totalNs))), qPrintable(table));
        QVERIFY(table.contains(QStringLiteral("Fixing the consumer won back")));
        QVERIFY(!lesson.nextButton()->isEnabled());
        QCOMPARE(whatIf.undoStack()->count(), 2);  // both edits undoable

        // Back to "Watch the copy" with the fix in place: the text says how to see the copy again
        // (it said "Back to make one", though the change of step 2 was still there), and Undo does.
        lesson.back();
        lesson.back();
        QCOMPARE(lesson.step(), LessonPanel::Step::WatchCopy);
        QVERIFY2(lesson.bodyText().contains(QStringLiteral("Undo")) &&
                     !lesson.bodyText().contains(QStringLiteral("to make one")),
                 qPrintable(lesson.bodyText()));
        whatIf.undoStack()->undo();
        QTRY_VERIFY2_WITH_TIMEOUT(
            lesson.bodyText().contains(QString::fromStdString(explain::nsText(s.copy.copyNs))),
            qPrintable(lesson.bodyText()), 30000);
    }

    // From the keyboard: Next and Back, disabled by their own press, leave the focus on Show me,
    // not on the next control (the step's scrolling text, where Space did nothing).
    void theKeyboardFocusStaysOnTheLessonsButtons() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel whatIf(&runner);
        LessonPanel lesson(&whatIf);
        QVERIFY(startShown(runner, whatIf, lesson, {420, 500}));
        QApplication::setActiveWindow(&lesson);
        QVERIFY(QTest::qWaitForWindowActive(&lesson));
        lesson.selectNode(lesson.scenario()->producer);  // step 1 done
        QVERIFY(lesson.nextButton()->isEnabled());
        lesson.nextButton()->setFocus();
        QTest::keyClick(lesson.nextButton(), Qt::Key_Space);
        QCOMPARE(lesson.step(), LessonPanel::Step::ChangeOutput);
        QVERIFY(!lesson.nextButton()->isEnabled());
        QCOMPARE(QApplication::focusWidget(), lesson.showMeButton());
        lesson.backButton()->setFocus();
        QTest::keyClick(lesson.backButton(), Qt::Key_Space);
        QCOMPARE(lesson.step(), LessonPanel::Step::Select);
        QCOMPARE(QApplication::focusWidget(), lesson.showMeButton());
    }

    // A presenter's remote (Page Down, Page Up) steps through the lesson (remoteProblem).
    void aPresentersRemoteStepsThroughTheLesson() {
        const QString problem = remoteProblem<LessonPanel>(m_resnet);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void editsByHandCountAndTheComparisonShowsThem() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel whatIf(&runner);
        LessonPanel lesson(&whatIf);
        QVERIFY(start(runner, whatIf, lesson));
        const lesson::LayoutLesson s = *lesson.scenario();
        const synth::TpuCostModel tpu(m_resnet);
        lesson.selectNode(s.producer);
        lesson.next();
        // Another layout than the lesson's: whether it is done is whether the synthetic TPU copies.
        std::vector<int> other = s.startLayout;
        do {
            std::next_permutation(other.begin(), other.end());
        } while (other == s.badLayout || other == s.startLayout);
        QVERIFY(whatIf.setLayout(s.producer, LayoutSlot::Output, other));
        QVERIFY(settleLesson(lesson, whatIf));
        const synth::CostBreakdown changed = tpu.explainLayout(whatIf.currentRow().data());
        const synth::EdgeCost* copy = lesson::copyBetween(changed, s.copy.producer, s.consumer());
        QCOMPARE(lesson.stepDone(), copy != nullptr);
        if (!copy) {
            QVERIFY2(lesson.statusText().contains(QStringLiteral("adds no copy")), qPrintable(lesson.statusText()));
            QSKIP("every other layout of this producer propagates without a copy");
        }
        lesson.next();
        lesson.next();
        QCOMPARE(lesson.step(), LessonPanel::Step::FixConsumer);
        QVERIFY2(lesson.bodyText().contains(QString::fromStdString(explain::layoutText(copy->fromLayout))),
                 qPrintable(lesson.bodyText()));
        // Undoing the change removes the copy too, but that is not the lesson's fix.
        whatIf.undoStack()->undo();
        QVERIFY(settleLesson(lesson, whatIf));
        QVERIFY(!lesson.stepDone());
        QVERIFY2(lesson.statusText().contains(QStringLiteral("again")), qPrintable(lesson.statusText()));
        whatIf.undoStack()->redo();
        QVERIFY(whatIf.setLayout(s.consumer(), s.consumerSlot, copy->fromLayout));
        QVERIFY(settleLesson(lesson, whatIf));
        QVERIFY2(lesson.stepDone(), qPrintable(lesson.statusText()));
        const double fixedNs = tpu.layoutRuntime(whatIf.currentRow().data());
        lesson.next();
        const QString table = lesson.bodyText();
        for (double v : {changed.totalNs, fixedNs})
            QVERIFY2(table.contains(QString::fromStdString(explain::nsText(v))), qPrintable(table));
        QVERIFY(table.contains(QString::fromStdString(explain::layoutText(other))));
        lesson.back();
        lesson.back();
        QCOMPARE(lesson.step(), LessonPanel::Step::WatchCopy);
        QVERIFY2(lesson.bodyText().contains(QStringLiteral("no copy")), qPrintable(lesson.bodyText()));
    }

    // In a short dock (a laptop's screen) the step's text scrolls, whole, with the buttons in view
    // below it; before, the labels were squeezed and cut off mid-instruction. A new step reads
    // from its top.
    void aShortDockScrollsTheWholeText() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel whatIf(&runner);
        LessonPanel lesson(&whatIf);
        QVERIFY(startShown(runner, whatIf, lesson, QSize(340, 220)));
        QScrollArea* area = lesson.textArea();
        QTRY_VERIFY(area->verticalScrollBar()->maximum() > 0);
        for (QLabel* label : area->widget()->findChildren<QLabel*>())
            if (label->wordWrap() && !label->text().isEmpty())
                QVERIFY2(label->height() >= label->heightForWidth(label->width()),
                         qPrintable(QStringLiteral("%1 < %2: %3")
                                        .arg(label->height())
                                        .arg(label->heightForWidth(label->width()))
                                        .arg(label->text().left(40))));
        QVERIFY(lesson.nextButton()->isVisible() &&
                lesson.nextButton()->geometry().bottom() <= lesson.height());
        area->verticalScrollBar()->setValue(area->verticalScrollBar()->maximum());
        QTest::mouseClick(lesson.showMeButton(), Qt::LeftButton);
        lesson.selectNode(lesson.scenario()->producer);
        QTest::mouseClick(lesson.nextButton(), Qt::LeftButton);
        QCOMPARE(lesson.step(), LessonPanel::Step::ChangeOutput);
        QCOMPARE(area->verticalScrollBar()->value(), 0);
    }

    // The comparison reads whole in the lesson's dock (340 px: a 1366-px screen's): its six-column
    // table had made the text wider than the dock, so it and the paragraphs after it were cut off
    // at the right, with no way to scroll there.
    void theComparisonFitsANarrowDock() {
        const ScreenFonts screenFonts;
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel whatIf(&runner);
        LessonPanel lesson(&whatIf);
        QVERIFY(startShown(runner, whatIf, lesson, QSize(340, 500)));
        while (lesson.step() != LessonPanel::Step::Compare) {
            if (lesson.step() == LessonPanel::Step::Select) {
                lesson.selectNode(lesson.scenario()->producer);  // the window echoes Show me's pick
            } else if (!lesson.stepDone()) {
                lesson.showMe();
                QVERIFY(settleLesson(lesson, whatIf));
            }
            QVERIFY2(lesson.stepDone(), qPrintable(lesson.statusText()));
            lesson.next();
        }
        const lesson::LayoutLesson s = *lesson.scenario();
        for (const auto* b : {&s.start, &s.bad, &s.fixed})
            QVERIFY2(
                lesson.bodyText().contains(QString::fromStdString(explain::nsText(b->totalNs))),
                qPrintable(lesson.bodyText()));
        // It names the button as it reads ("Start Again" once the lesson runs; it had said
        // "Begin").
        QVERIFY2(lesson.bodyText().contains(QStringLiteral("<b>%1</b> runs the lesson once more")
                                                .arg(lesson.beginButton()->text())),
                 qPrintable(lesson.bodyText().right(200)));
        QScrollArea* area = lesson.textArea();
        // No label needs more than the dock's width: a table that cannot shrink is cut at the
        // right (the scroll area makes the text as wide as the dock, whatever it needs).
        for (QLabel* label : area->widget()->findChildren<QLabel*>())
            QVERIFY2(label->minimumSizeHint().width() <= area->viewport()->width(),
                     qPrintable(QStringLiteral("%1 px needed in %2 px: %3")
                                    .arg(label->minimumSizeHint().width())
                                    .arg(area->viewport()->width())
                                    .arg(label->text().left(60))));
    }

    void tileFileAsksForALayoutFileAndANewFileStopsTheLesson() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel whatIf(&runner);
        LessonPanel lesson(&whatIf);
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 10, "k");
        lesson.setGraph(tile, QStringLiteral("k.npz"));
        QSignalSpy wanted(&lesson, &LessonPanel::fileWanted);
        lesson.begin();
        QCOMPARE(wanted.count(), 1);
        QVERIFY(!lesson.running());
        QVERIFY(start(runner, whatIf, lesson));  // the layout file arrives: the lesson starts on it
        lesson.setGraph(tile, QStringLiteral("k.npz"));
        QVERIFY(!lesson.running());
        QVERIFY(lesson.bodyText().contains(QStringLiteral("file was closed")));
    }
};

QTEST_MAIN(TestLessonPanel)
#include "test_lesson_panel.moc"
