// "Suggest faster configurations" as a user drives it (offscreen): search from the what-if
// editor's configuration, read the progress, load a suggestion (one undoable edit), compare it,
// stop a long search and keep what it found; a new file drops a running search.
#include <QApplication>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTreeWidget>
#include <QUndoStack>
#include <QtTest>
#include <chrono>

#include "DefaultModels.h"
#include "FilePredictions.h"
#include "JobRunner.h"
#include "PredictedFile.h"
#include "RuntimeText.h"
#include "SuggestionPanel.h"
#include "WhatIfPanel.h"
#include "synth/SyntheticDataset.h"

using namespace tpg;

namespace {

bool waitEvaluated(WhatIfPanel& panel) {
    QSignalSpy spy(&panel, &WhatIfPanel::evaluated);
    return panel.busy() ? spy.wait(60000) : true;
}

}  // namespace

class TestSuggestionPanel : public QObject {
    Q_OBJECT
    TpuGraph m_layout;

    // `graph` open in `panel` (as r.npz), its predictions ready, the editor evaluated.
    static bool openPredicted(WhatIfPanel& panel, JobRunner& runner, const TpuGraph& graph) {
        panel.setGraph(graph, QStringLiteral("r.npz"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("r.npz"), graph));
        return waitEvaluated(panel);
    }

    // The generated program open in `panel`, its predictions ready, the editor at `start`.
    bool openAt(WhatIfPanel& panel, JobRunner& runner, const char* start) {
        if (!openPredicted(panel, runner, m_layout)) return false;
        panel.startFrom(whatif::StartPoint::parse(start));
        return waitEvaluated(panel);
    }

    // A search from the editor's configuration with a budget far beyond the test's.
    static SuggestionPanel* startLongSearch(WhatIfPanel& panel) {
        SuggestionPanel* s = panel.suggestions();
        s->setBudgetSeconds(600);
        s->suggest();
        return s;
    }

    // The generated program open in `panel` on an unranked predictor (the file not yet scored),
    // the editor started.
    std::shared_ptr<whatif::WhatIfPredictor> openUnranked(WhatIfPanel& panel) {
        panel.setGraph(m_layout, QStringLiteral("r.npz"));
        auto unranked = std::make_shared<whatif::WhatIfPredictor>(
            std::make_shared<const TpuGraph>(m_layout), nn::defaultModel(Collection::Layout),
            whatif::WhatIfPredictor::Unranked{});
        panel.setUnranked(
            {QStringLiteral("r.npz"), QStringLiteral("built-in layout model"), unranked});
        return waitEvaluated(panel) ? unranked : nullptr;
    }

    // The same scoring's predictions of the file (one synthetic TPU with `unranked`).
    static std::shared_ptr<FilePredictions> scored(
        const std::shared_ptr<whatif::WhatIfPredictor>& unranked) {
        return rankedPredictions(QStringLiteral("r.npz"), QStringLiteral("built-in layout model"),
                                 unranked);
    }

private slots:
    void initTestCase() {
        m_layout = synth::makeLayoutGraph(synth::Recipe::ResNet, 9, 400, 150, synth::LayoutSearch::Random, "r");
    }

    void suggestionsBeatTheCurrentConfigurationAndLoadUndoably() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        QVERIFY(openAt(panel, runner, "best"));
        SuggestionPanel* s = panel.suggestions();
        QVERIFY(s->suggestButton()->isEnabled());
        s->setBudgetSeconds(4);
        QSignalSpy done(s, &SuggestionPanel::finished);
        QTest::mouseClick(s->suggestButton(), Qt::LeftButton);
        QVERIFY(s->running());
        QVERIFY(!s->suggestButton()->isEnabled());
        QVERIFY(done.wait(60000));
        QVERIFY(!s->results().empty());
        const double current = panel.report().synthNs;
        QVERIFY2(s->results().front().report.synthNs < current, qPrintable(s->statusText()));
        QVERIFY2(s->statusText().contains(
                     QStringLiteral("than the configuration the search started from")),
                 qPrintable(s->statusText()));
        QCOMPARE(s->resultList()->topLevelItemCount(), static_cast<int>(s->results().size()));
        QVERIFY(s->resultList()->topLevelItem(0)->text(2).startsWith(QLatin1Char('-')));  // vs current

        // Load: one undoable edit; the editor's configuration is the suggestion's.
        const int steps = panel.undoStack()->count();
        const std::vector<float> before = panel.currentRow();
        s->resultList()->setCurrentItem(s->resultList()->topLevelItem(0));
        QPushButton* loadButton = nullptr;
        for (QPushButton* b : s->findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Load into editor")) loadButton = b;
        QVERIFY(loadButton && loadButton->isEnabled());
        QTest::mouseClick(loadButton, Qt::LeftButton);
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.undoStack()->count(), steps + 1);
        QCOMPARE(panel.currentRow(), s->results().front().row);
        QCOMPARE(panel.report().synthNs, s->results().front().report.synthNs);
        panel.undoStack()->undo();
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.currentRow(), before);

        // Compare: the panel asks for the current configuration against the selected suggestion.
        QSignalSpy compare(&panel, &WhatIfPanel::compareRequested);
        QPushButton* compareButton = nullptr;
        for (QPushButton* b : s->findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Compare with current")) compareButton = b;
        QVERIFY(compareButton && compareButton->isEnabled());
        QTest::mouseClick(compareButton, Qt::LeftButton);
        QCOMPARE(compare.count(), 1);
        QCOMPARE(compare.first().at(0).value<std::vector<float>>(), s->results().front().row);
    }

    // Searched from the compiler default, the summary also weighs the search's best against the
    // file's fastest measured configuration (on a synthetic file, the same clock); from that
    // configuration itself the sentence before already says it.
    void theSummaryWeighsTheBestAgainstTheFastestMeasured() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        QVERIFY(openAt(panel, runner, "default"));
        SuggestionPanel* s = panel.suggestions();
        s->setBudgetSeconds(3);
        QSignalSpy done(s, &SuggestionPanel::finished);
        s->suggest();
        QVERIFY(done.wait(60000));
        QVERIFY(!s->results().empty());
        const double best = s->results().front().report.synthNs;
        const double fastest =
            *std::min_element(m_layout.runtimes().begin(), m_layout.runtimes().end());
        const QString sentence =
            best < fastest
                ? QStringLiteral(
                      " That is %1% faster than the file's fastest measured configuration (")
                      .arg(100.0 * (1.0 - best / fastest), 0, 'f', 1)
                : QStringLiteral(" The file's fastest measured configuration (%1) is %2% faster")
                      .arg(nsText(fastest, QString()))
                      .arg(100.0 * (best / fastest - 1.0), 0, 'f', 1);
        QVERIFY2(s->statusText().contains(sentence), qPrintable(s->statusText()));

        QVERIFY(openAt(panel, runner, "best"));
        QCOMPARE(std::llround(panel.report().synthNs), std::llround(fastest));
        s->suggest();
        QVERIFY(done.wait(60000));
        QVERIFY2(!s->statusText().contains(QStringLiteral("fastest measured")),
                 qPrintable(s->statusText()));
    }

    void stopEndsALongSearchWithinASecondAndKeepsItsResults() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        QVERIFY(openAt(panel, runner, "default"));
        SuggestionPanel* s = startLongSearch(panel);
        QSignalSpy done(s, &SuggestionPanel::finished);  // results arrive through the event loop, after this
        QTest::qWait(1500);
        QVERIFY(s->statusText().startsWith(QStringLiteral("Round")));
        const auto stopAt = std::chrono::steady_clock::now();
        QTest::mouseClick(s->stopButton(), Qt::LeftButton);
        QVERIFY(done.wait(5000));
        const double lag = std::chrono::duration<double>(std::chrono::steady_clock::now() - stopAt).count();
        QVERIFY2(lag < 1.0, qPrintable(QString::number(lag)));
        QVERIFY(!s->running());
        QVERIFY(!s->results().empty());
        QVERIFY2(s->statusText().startsWith(QStringLiteral("Stopped after")), qPrintable(s->statusText()));
    }

    // The figure a search starts from is the synthetic TPU's: an estimate on a file it did not
    // time, and the running search says so (the summary at its end already did).
    void theSearchSaysWhoseFigureItStartsFrom() {
        for (const double scale : {1.0, 1.1}) {
            JobRunner runner(QStringLiteral("model"));
            WhatIfPanel panel(&runner);
            TpuGraphData d = m_layout.data();
            for (double& r : d.runtimes) r *= scale;
            QVERIFY(openPredicted(panel, runner, TpuGraph(std::move(d))));
            SuggestionPanel* s = startLongSearch(panel);
            QSignalSpy done(s, &SuggestionPanel::finished);
            QVERIFY2(s->statusText().endsWith(
                         scale == 1.0 ? QStringLiteral("by the synthetic TPU)…")
                                      : QStringLiteral("by the synthetic TPU's estimate)…")),
                     qPrintable(s->statusText()));
            QTest::mouseClick(s->stopButton(), Qt::LeftButton);
            QVERIFY(done.wait(5000));
        }
    }

    // A long search lists the fastest measured as it finds them (the model's columns wait for the
    // end); a row the user selected stays selected as the list changes, and loads before the end.
    void aRunningSearchListsItsFastestSoFar() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        QVERIFY(openAt(panel, runner, "default"));
        SuggestionPanel* s = startLongSearch(panel);
        QSignalSpy done(s, &SuggestionPanel::finished);
        QTreeWidget* list = s->resultList();
        QTRY_VERIFY_WITH_TIMEOUT(list->topLevelItemCount() >= 2, 10000);
        QVERIFY(s->running());
        QVERIFY(list->currentItem() == nullptr);  // nothing chosen for the user while it runs
        QCOMPARE(list->topLevelItem(0)->text(3), QStringLiteral("…"));  // predicted: at the end
        QCOMPARE(list->topLevelItem(0)->text(5), QStringLiteral("yes"));
        for (size_t i = 1; i < s->results().size(); ++i)
            QVERIFY(s->results()[i - 1].report.synthNs <= s->results()[i].report.synthNs);
        auto listed = [s](const std::vector<float>& row) {
            for (const auto& t : s->results())
                if (t.row == row) return true;
            return false;
        };
        auto selectedRow = [s, list] {
            const QTreeWidgetItem* item = list->currentItem();
            return item ? s->results()[static_cast<size_t>(item->data(0, Qt::UserRole).toInt())].row
                        : std::vector<float>{};
        };
        // The fastest so far, selected, stays selected as faster ones push it down the list...
        list->setCurrentItem(list->topLevelItem(0));
        const std::vector<float> first = s->results().front().row;
        QTRY_VERIFY_WITH_TIMEOUT(s->results().front().row != first, 30000);
        QVERIFY(listed(first) ? selectedRow() == first : list->currentItem() == nullptr);
        // ...and one pushed off the list leaves nothing selected to load.
        list->setCurrentItem(list->topLevelItem(list->topLevelItemCount() - 1));
        const std::vector<float> slowest = selectedRow();
        QTRY_VERIFY_WITH_TIMEOUT(!listed(slowest), 30000);
        QVERIFY(list->currentItem() == nullptr);
        QVERIFY(!s->findChild<QPushButton*>(QStringLiteral("loadSuggestion"))->isEnabled());
        list->setCurrentItem(list->topLevelItem(0));
        const std::vector<float> best = s->results().front().row;
        QTest::mouseClick(s->findChild<QPushButton*>(QStringLiteral("loadSuggestion")),
                          Qt::LeftButton);
        QVERIFY(waitEvaluated(panel));
        QCOMPARE(panel.currentRow(), best);
        QTest::mouseClick(s->stopButton(), Qt::LeftButton);
        QVERIFY(done.wait(5000));
        QVERIFY(list->topLevelItemCount() > 0);
        QVERIFY(
            list->topLevelItem(0)->text(4).contains(QStringLiteral(" of ")));  // the model's rank
    }

    // Before the file is scored (minutes on a 45,000-node file) the search runs on the editor's
    // unranked predictor: its suggestions carry the model's score until the file's scores rank
    // them in place. A search still running when they come goes on, and is ranked when it ends.
    void searchesBeforeTheFileIsScoredAndRanksAfter() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        SuggestionPanel* s = panel.suggestions();
        const auto unranked = openUnranked(panel);
        QVERIFY(s->suggestButton()->isEnabled());
        QVERIFY2(s->statusText().contains(QStringLiteral("come once they are scored")),
                 qPrintable(s->statusText()));
        s->setBudgetSeconds(2);
        QSignalSpy done(s, &SuggestionPanel::finished);
        QTest::mouseClick(s->suggestButton(), Qt::LeftButton);
        QVERIFY(done.wait(60000));
        QVERIFY(!s->results().empty());
        QVERIFY2(s->statusText().contains(
                     QStringLiteral("than the configuration the search started from")) &&
                     s->statusText().contains(QStringLiteral("come once they are scored")),
                 qPrintable(s->statusText()));
        QTreeWidget* list = s->resultList();
        for (int i = 0; i < list->topLevelItemCount(); ++i) {
            QCOMPARE(s->results()[static_cast<size_t>(i)].report.rank, int64_t{0});
            QVERIFY(list->topLevelItem(i)->text(3).startsWith(QStringLiteral("score ")));
            QCOMPARE(list->topLevelItem(i)->text(4), QStringLiteral("…"));
        }
        const std::vector<tune::TunedConfig> found = s->results();
        const auto predictions = scored(unranked);
        panel.setPredictions(predictions);
        QTRY_VERIFY_WITH_TIMEOUT(s->results().front().report.rank > 0, 30000);
        QCOMPARE(s->results().size(), found.size());
        for (size_t i = 0; i < found.size(); ++i) {
            const tune::TunedConfig& t = s->results()[i];
            QCOMPARE(t.row, found[i].row);
            const whatif::WhatIfReport expected = predictions->predictor->evaluate(t.row);
            QCOMPARE(t.report.rank, expected.rank);
            QCOMPARE(t.report.predictedNs, expected.predictedNs);
            QVERIFY(
                list->topLevelItem(static_cast<int>(i))->text(4).contains(QStringLiteral(" of ")));
        }
        QVERIFY2(!s->statusText().contains(QStringLiteral("come once")),
                 qPrintable(s->statusText()));

        const auto again = openUnranked(panel);
        startLongSearch(panel);
        QSignalSpy ended(s, &SuggestionPanel::finished);
        QTRY_VERIFY_WITH_TIMEOUT(s->statusText().startsWith(QStringLiteral("Round")), 10000);
        panel.setPredictions(scored(again));
        QTest::qWait(300);
        QVERIFY(s->running());  // not restarted: the scores are the same model's
        QTest::mouseClick(s->stopButton(), Qt::LeftButton);
        QVERIFY(ended.wait(5000));
        QTRY_VERIFY_WITH_TIMEOUT(!s->results().empty() && s->results().front().report.rank > 0,
                                 30000);
        QVERIFY(list->topLevelItem(0)->text(4).contains(QStringLiteral(" of ")));
    }

    // A search that has scored everything it can reach ends and says so: on a tile kernel it had
    // spun to its budget through millions of rounds that found nothing new.
    void aSearchThatRunsOutOfConfigurationsSaysSo() {
        // A fused softmax whose bounds span about 225 configurations.
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::SoftmaxKernel, 7, 20, "k");
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        QVERIFY(openPredicted(panel, runner, tile));
        QSignalSpy done(panel.suggestions(), &SuggestionPanel::finished);
        SuggestionPanel* s = startLongSearch(panel);
        QVERIFY(done.wait(300000));
        QVERIFY2(s->statusText().startsWith(QStringLiteral("Searched for")) &&
                     s->statusText().contains(QStringLiteral("so it ended before its budget")),
                 qPrintable(s->statusText()));
    }

    // On a short, narrow screen the summary scrolls with the column instead of losing lines: at
    // 1024 x 768 its first and last lines were cut off, the list squeezed below it.
    void theSummaryIsNeverClipped() {
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::SoftmaxKernel, 7, 20, "k");
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        panel.resize(700, 300);
        panel.show();
        QVERIFY(openPredicted(panel, runner, tile));
        panel.showSuggestions();
        QSignalSpy done(panel.suggestions(), &SuggestionPanel::finished);
        SuggestionPanel* s = startLongSearch(panel);
        QVERIFY(done.wait(300000));
        QLabel* status = nullptr;
        for (QLabel* l : s->findChildren<QLabel*>())
            if (l->text() == s->statusText()) status = l;
        QVERIFY(status != nullptr);
        QTest::qWait(100);  // the layout settles
        const int wanted = status->heightForWidth(status->width());
        QVERIFY2(status->height() >= wanted,
                 qPrintable(QStringLiteral("the summary has %1 px of the %2 it needs at %3 px wide")
                                .arg(status->height())
                                .arg(wanted)
                                .arg(status->width())));
        QVERIFY(s->resultList()->height() >= s->resultList()->minimumHeight());
    }

    // From the keyboard: Space on Suggest leaves the focus on Stop, and the search's end on its
    // results. A disabled button had passed it to the Budget box, its value selected, so the next
    // key typed changed the budget.
    void theKeyboardFocusFollowsTheSearch() {
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::SoftmaxKernel, 7, 20, "k");
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        panel.show();
        QApplication::setActiveWindow(&panel);
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        QVERIFY(openPredicted(panel, runner, tile));
        panel.showSuggestions();
        SuggestionPanel* s = panel.suggestions();
        s->setBudgetSeconds(600);
        s->suggestButton()->setFocus();
        QSignalSpy done(s, &SuggestionPanel::finished);
        QTest::keyClick(s->suggestButton(), Qt::Key_Space);
        QVERIFY(s->running());
        QCOMPARE(QApplication::focusWidget()->metaObject()->className(), "QPushButton");
        QCOMPARE(static_cast<QPushButton*>(QApplication::focusWidget())->text(),
                 QStringLiteral("Stop"));
        QVERIFY(done.wait(300000));
        QVERIFY(!s->results().empty());
        QCOMPARE(QApplication::focusWidget(), s->resultList());
    }

    // Counts are grouped as everywhere else in the explorer: a 30 s search read "20,171
    // candidates scored, 1743 measured".
    void progressCountsAreGrouped() {
        tune::TuneProgress p;
        p.round = 1204;
        p.candidatesScored = 20171;
        p.measured = 1743;
        p.bestMeasuredNs = 2317260;
        QCOMPARE(SuggestionPanel::progressText(p, 2358486),
                 QStringLiteral(
                     "Round 1,204 · 20,171 candidates scored by the model · 1,743 measured · best "
                     "measured 2,317,260 ns (-1.7% vs current)"));
    }

    void anotherFileDropsARunningSearch() {
        JobRunner runner(QStringLiteral("model"));
        WhatIfPanel panel(&runner);
        QVERIFY(openAt(panel, runner, "default"));
        SuggestionPanel* s = startLongSearch(panel);
        QSignalSpy done(s, &SuggestionPanel::finished);  // results arrive through the event loop, after this
        QTest::qWait(300);
        panel.setGraph(TpuGraph(), QString());
        QVERIFY(!s->running());
        QVERIFY(!s->suggestButton()->isEnabled());
        QTest::qWait(1500);
        QCOMPARE(done.count(), 0);  // the old file's results never arrive
        QVERIFY(s->results().empty());
    }
};

QTEST_MAIN(TestSuggestionPanel)
#include "test_suggestion_panel.moc"
