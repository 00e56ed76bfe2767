// The Training dock as a user drives it (offscreen): a run on a dataset shows loss, OPA and Kendall
// as it goes without stalling the event loop, pauses, stops within a second, is listed again by a
// new panel (overlay, resume), and a "this file only" run is compared with the general model.
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineSeries>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QWheelEvent>
#include <QtTest>

#include "ChildWithText.h"
#include "DefaultModels.h"
#include "FileDialogAnswer.h"
#include "NnLimits.h"
#include "ResidentMemory.h"
#include "StallWatch.h"
#include "TensorMemory.h"
#include "TestSettings.h"
#include "TrainingCharts.h"
#include "TrainingJob.h"
#include "TrainingPanel.h"
#include "graph/GraphFile.h"
#include "synth/SyntheticDataset.h"

using namespace tpg;

namespace {

// Small and quick: the tests watch a run, they do not need a good model.
nn::TrainSettings quickForm() {
    nn::TrainSettings s;
    s.model.layers = 2;
    s.minutes = 5;
    s.epochs = 0;
    s.threads = 1;
    s.patience = 100000;
    s.model.hidden = 32;
    s.configsPerStep = 48;
    return s;
}

}  // namespace

class TestTrainingPanel : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString data() const { return m_dir.filePath(QStringLiteral("data")); }
    QString runs() const { return m_dir.filePath(QStringLiteral("runs")); }

    static bool waitCollections(TrainingPanel& panel) {
        return QTest::qWaitFor([&] { return panel.collectionChoices().contains(QStringLiteral("layout:xla:random")); },
                               30000);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        useEmptyTestSettings(QStringLiteral("test_widgets_training"));
        synth::SynthOptions o;
        o.outDir = data().toStdString();
        o.seed = 11;
        o.tileGraphs = 6;
        o.layoutGraphs = 3;
        o.configs = 300;
        o.minNodes = 100;
        o.maxNodes = 300;
        o.collections = {"layout:xla:random", "tile:xla"};
        QVERIFY(!synth::generateDataset(o).empty());
    }

    void runShowsLiveMetricsAndStopsWithinASecond() {
        TrainingPanel panel;
        panel.resize(1200, 500);
        panel.show();
        panel.setRunsFolder(runs());
        panel.setDatasetFolder(data());
        QVERIFY(waitCollections(panel));
        QVERIFY(panel.chooseCollection(QStringLiteral("layout:xla:random")));
        panel.setFormSettings(quickForm());
        QVERIFY(panel.startButton()->isEnabled());
        QVERIFY(!panel.useBestButton()->isEnabled());

        StallWatch watch(10);
        QElapsedTimer sinceStart;
        sinceStart.start();
        panel.startButton()->click();
        QVERIFY(panel.isRunning());
        QVERIFY(!panel.startButton()->isEnabled());
        TrainingCharts* charts = panel.charts();
        QTRY_VERIFY_WITH_TIMEOUT(charts->liveEpochCount() >= 2, 120000);
        QElapsedTimer sinceTwoEpochs;
        sinceTwoEpochs.start();
        QVERIFY(charts->liveStepCount() > 0);
        QVERIFY(charts->liveRawLoss()->count() > 0);
        QVERIFY(charts->liveSmoothedLoss()->count() > 0);
        int validationPoints = 0;
        for (QXYSeries* s : charts->liveValidationSeries()) validationPoints += s->count();
        QVERIFY(validationPoints >= 4);  // OPA and Kendall, two epochs each
        QVERIFY(panel.useBestButton()->isEnabled());  // the first epoch saved a best model
        QVERIFY(QFileInfo::exists(panel.bestModelPath()));
        QTest::qWait(3000);  // seconds of live updates for the stall watch
        QVERIFY(panel.isRunning());
        // The bar is the run's share of its 5-minute budget, not the epoch's (it read 75% at 0:45
        // of 10:00, beside "ETA 9:15").
        const QProgressBar* bar = panel.findChild<QProgressBar*>();
        const double done = static_cast<double>(bar->value()) / bar->maximum();
        QVERIFY2(done <= (sinceStart.elapsed() / 1000.0 + 1) / 300,
                 qPrintable(QString::number(done)));
        // ...and it moves: epochs shorter than the updates' interval post only their ends, and the
        // bar once stayed at the first step's 0.1% (0 in a CI run).
        QVERIFY2(done >= (sinceTwoEpochs.elapsed() / 1000.0 - 1.5) / 300,
                 qPrintable(QString::number(done)));

        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        QElapsedTimer stopClock;
        stopClock.start();
        panel.stopButton()->click();
        QVERIFY(finished.wait(5000));
        const qint64 stopMs = stopClock.elapsed();
        watch.stop();
        qInfo("stop took %lld ms; %s", stopMs, qPrintable(watch.report()));
        QVERIFY2(stopMs < 1000, qPrintable(QStringLiteral("Stop took %1 ms").arg(stopMs)));
        QVERIFY2(watch.responsive(), qPrintable(watch.report()));
        QVERIFY(!panel.isRunning());
        QVERIFY(panel.statusText().contains(QStringLiteral("stopped")));
        const QString folder = panel.liveRunFolder();
        for (const QString& f : {RunFiles::model(folder), RunFiles::state(folder), RunFiles::log(folder)})
            QVERIFY2(QFileInfo::exists(f), qPrintable(f));
        const nn::TrainingHistory h = nn::readTrainingLog(RunFiles::log(folder).toStdString());
        QCOMPARE(h.endReason, std::string("cancelled"));
        QCOMPARE(static_cast<size_t>(charts->liveStepCount()), h.steps.size());  // every logged step was plotted
    }

    void pauseHoldsTheRun() {
        TrainingPanel panel;
        panel.setRunsFolder(runs());
        panel.setDatasetFolder(data());
        QVERIFY(waitCollections(panel));
        QVERIFY(panel.chooseCollection(QStringLiteral("tile:xla")));
        panel.setFormSettings(quickForm());
        panel.start();
        QTRY_VERIFY_WITH_TIMEOUT(panel.charts()->liveStepCount() > 0, 60000);
        panel.togglePause();
        QVERIFY(panel.isPaused());
        QCOMPARE(panel.pauseButton()->text(), QStringLiteral("Resume"));
        QTest::qWait(800);  // the step in flight lands
        const size_t held = panel.charts()->liveStepCount();
        QTest::qWait(600);
        QCOMPARE(panel.charts()->liveStepCount(), held);
        panel.togglePause();
        QTRY_VERIFY_WITH_TIMEOUT(panel.charts()->liveStepCount() > held, 30000);
        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        panel.stop();
        QVERIFY(finished.wait(5000));
    }

    // A run's freed memory goes back to the OS when it ends (the heap had kept it for passes that
    // no longer come). The freed blocks here stand for a run's buffers.
    void aRunHandsItsFreedMemoryBack() {
        nn::keepFreedTensorMemory();  // as the explorer starts
        TrainingPanel panel;
        panel.setRunsFolder(
            m_dir.filePath(QStringLiteral("memory-runs")));  // not among the listed runs
        panel.setDatasetFolder(data());
        QVERIFY(waitCollections(panel));
        QVERIFY(panel.chooseCollection(QStringLiteral("tile:xla")));
        nn::TrainSettings s = quickForm();
        s.epochs = 1;
        panel.setFormSettings(s);
        if (kSanitizerAllocator)
            QSKIP("AddressSanitizer's allocator: no heap keeping freed memory");
        const double before = residentMiB();
        allocateTouchAndFree(256);
        QVERIFY2(residentMiB() - before > 200, "the heap kept nothing: nothing to test");
        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        panel.start();
        QVERIFY(finished.wait(120000));
        QTRY_VERIFY2_WITH_TIMEOUT(
            residentMiB() - before < 120,
            qPrintable(QStringLiteral("%1 MiB more resident").arg(residentMiB() - before)), 10000);
    }

    // A new panel (an app restart) lists the runs, overlays one, and resumes a stopped one where it
    // stopped.
    void runsAreListedOverlaidAndResumed() {
        TrainingPanel panel;
        QSignalSpy listed(&panel, &TrainingPanel::runsListed);
        panel.setRunsFolder(runs());
        QVERIFY(listed.wait(30000));
        QCOMPARE(static_cast<int>(panel.savedRuns().size()), 2);  // the two runs above
        int layoutRow = -1;
        for (int i = 0; i < panel.runList()->count(); ++i)
            if (panel.runList()->item(i)->text().contains(QStringLiteral("layout-xla-random"))) layoutRow = i;
        QVERIFY(layoutRow >= 0);
        QListWidgetItem* item = panel.runList()->item(layoutRow);
        QVERIFY2(item->text().contains(QStringLiteral("Kendall")) && item->text().contains(QStringLiteral("cancelled")),
                 qPrintable(item->text()));
        item->setCheckState(Qt::Checked);
        QCOMPARE(panel.charts()->overlayIds().size(), qsizetype{1});
        item->setCheckState(Qt::Unchecked);
        QVERIFY(panel.charts()->overlayIds().isEmpty());

        const SavedRun& run = panel.savedRuns()[static_cast<size_t>(layoutRow)];
        QVERIFY(run.resumable);
        const int64_t stoppedAt = run.history.steps.back().step;
        panel.runList()->setCurrentRow(layoutRow);
        QVERIFY(panel.useBestButton()->isEnabled());
        // Saved under the run's name, the suffix added to a bare name (it offered no name and
        // wrote "saved").
        QPushButton* saveAs = childWithText<QPushButton>(panel, QStringLiteral("Save model as…"));
        QVERIFY(saveAs && saveAs->isEnabled());
        FileDialogSeen seen;
        answerNextFileDialog(m_dir.filePath(QStringLiteral("saved")), &seen);
        saveAs->click();
        QCOMPARE(seen.offeredName, QFileInfo(run.folder).fileName() + QStringLiteral(".tpgm"));
        QCOMPARE(QFileInfo(m_dir.filePath(QStringLiteral("saved.tpgm"))).size(),
                 QFileInfo(RunFiles::model(run.folder)).size());
        // Saved over itself (the dialog asks to replace it, and is told yes), the model stays: the
        // copy removed its target, the run's only model, before copying from it.
        const qint64 modelBytes = QFileInfo(RunFiles::model(run.folder)).size();
        answerNextFileDialog(RunFiles::model(run.folder));
        auto* replace = new QTimer(&panel);
        connect(replace, &QTimer::timeout, replace, [replace] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                replace->stop();
                box->button(QMessageBox::Yes)->click();
            }
        });
        replace->start(20);
        saveAs->click();
        QCOMPARE(QFileInfo(RunFiles::model(run.folder)).size(), modelBytes);
        QVERIFY2(panel.statusText().contains(QStringLiteral("already")),
                 qPrintable(panel.statusText()));
        // A save that fails (the run's model gone since the list was read) keeps the file it would
        // have replaced: that file had been removed before the copy was tried.
        const QString saved = m_dir.filePath(QStringLiteral("saved.tpgm"));
        const qint64 savedBytes = QFileInfo(saved).size();
        const QString model = RunFiles::model(run.folder);
        QVERIFY(QFile::rename(model, model + QStringLiteral(".away")));
        answerNextFileDialog(saved);
        replace->start(20);
        saveAs->click();
        replace->stop();
        QVERIFY(QFile::rename(model + QStringLiteral(".away"), model));
        QCOMPARE(QFileInfo(saved).size(), savedBytes);
        QVERIFY2(panel.statusText().startsWith(QStringLiteral("Could not")),
                 qPrintable(panel.statusText()));
        QVERIFY(panel.resumeRun(layoutRow));
        QTRY_VERIFY_WITH_TIMEOUT(panel.charts()->liveStepCount() > run.history.steps.size() + 2, 60000);
        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        panel.stop();
        QVERIFY(finished.wait(5000));
        const nn::TrainingHistory h = nn::readTrainingLog(RunFiles::log(run.folder).toStdString());
        std::vector<int64_t> steps;
        for (const auto& r : h.steps) steps.push_back(r.step);
        QVERIFY(steps.size() > run.history.steps.size());
        for (size_t i = 0; i < steps.size(); ++i) QCOMPARE(steps[i], static_cast<int64_t>(i + 1));  // no gap, no repeat
        QVERIFY(steps.back() > stoppedAt);
    }

    // Scrolling the form with the wheel must not change the setting that passes under the mouse.
    void wheelOverTheFormScrollsInsteadOfEditing() {
        TrainingPanel panel;
        panel.resize(1000, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QComboBox* loss = nullptr;
        for (QComboBox* c : panel.findChildren<QComboBox*>())
            if (c->currentText().startsWith(QStringLiteral("auto (pairwise logistic"))) loss = c;
        QVERIFY(loss);
        QSpinBox* hidden = nullptr;
        for (QSpinBox* sb : panel.findChildren<QSpinBox*>())
            if (sb->maximum() == 512) hidden = sb;
        QVERIFY(hidden);
        // Width and depth start at "auto": the kind's measured best (48 x 2 layout, 64 x 3 tile).
        QCOMPARE(hidden->value(), 0);
        QVERIFY(hidden->text().startsWith(QStringLiteral("auto")));
        QCOMPARE(panel.formSettings().model.hidden, 0);
        QCOMPARE(panel.formSettings().model.layers, 0);
        hidden->setValue(64);  // above the minimum, where a wheel step down would show
        for (QWidget* w : {static_cast<QWidget*>(loss), static_cast<QWidget*>(hidden)}) {
            const QPoint at = w->rect().center();
            QWheelEvent wheel(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                              Qt::NoScrollPhase, false);
            QApplication::sendEvent(w, &wheel);
        }
        QVERIFY(loss->currentText().startsWith(QStringLiteral("auto")));
        QCOMPARE(hidden->value(), 64);
        // The loss starts at "auto", as the CLI's: each kind's measured best.
        QCOMPARE(panel.formSettings().loss, nn::LossKind::Auto);
        nn::TrainSettings chosen = quickForm();
        for (nn::LossKind k : {nn::LossKind::PairwiseLogistic, nn::LossKind::PairwiseHinge, nn::LossKind::Auto}) {
            chosen.loss = k;
            panel.setFormSettings(chosen);
            QCOMPARE(panel.formSettings().loss, k);
        }
    }

    // The form column is never narrower than its fields: at the main window's default size its
    // buttons were cut off behind a horizontal scroll bar, the vertical bar's width short.
    void theFormFitsItsColumnWithoutSidewaysScrolling() {
        for (const QSize size : {QSize(1300, 420), QSize(900, 300), QSize(700, 600)}) {
            TrainingPanel panel;
            panel.resize(size);
            panel.show();
            QVERIFY(QTest::qWaitForWindowExposed(&panel));
            QScrollArea* form = panel.findChild<QScrollArea*>();
            QVERIFY(form);
            QVERIFY(form->verticalScrollBar()->isVisible() || size.height() >= 600);
            QVERIFY2(
                !form->horizontalScrollBar()->isVisible(),
                qPrintable(QStringLiteral("at %1 x %2 the form column is %3 px, its fields need %4")
                               .arg(size.width())
                               .arg(size.height())
                               .arg(form->viewport()->width())
                               .arg(form->widget()->minimumSizeHint().width())));
            // The long choices shrink with the column rather than widening it; their full text
            // stays in the list.
            for (QComboBox* c : form->widget()->findChildren<QComboBox*>())
                QVERIFY2(c->minimumSizeHint().width() <= 260, qPrintable(c->currentText()));
        }
    }

    // The collection choice reads whole in the form's column at the window's width: its graphs
    // are counted on the line below, not in the choice ("layout:xla:default (2 train, 1" was cut).
    void theCollectionReadsWholeWithItsGraphsBelow() {
        TrainingPanel panel;
        panel.resize(360, 700);  // the Training dock's form column beside the charts at 1366 px
        panel.setRunsFolder(runs());
        panel.setDatasetFolder(data());
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(waitCollections(panel));
        QVERIFY(panel.chooseCollection(QStringLiteral("tile:xla")));
        QComboBox* choice = nullptr;
        for (QComboBox* c : panel.findChildren<QComboBox*>())
            if (c->currentData().toString() == QStringLiteral("tile:xla")) choice = c;
        QVERIFY(choice);
        QCOMPARE(choice->currentText(), QStringLiteral("tile:xla"));
        QTRY_VERIFY(choice->width() >=
                    choice->fontMetrics().horizontalAdvance(choice->currentText()));
        const auto lineBelow = [&panel] {
            for (QLabel* l : panel.findChildren<QLabel*>())
                if (l->text().contains(QStringLiteral(" graphs in ")))
                    return l->text().remove(QChar(0x200B));  // the break points draw nothing
            return QString();
        };
        const auto files = [this](const QString& collection, const QString& split) {
            return QDir(data() + QStringLiteral("/npz/") + collection + QLatin1Char('/') + split)
                .entryList({QStringLiteral("*.npz")})
                .size();
        };
        const auto expected = [&](const QString& collection) {
            return QStringLiteral("%1 train and %2 valid graphs in %3")
                .arg(files(collection, QStringLiteral("train")))
                .arg(files(collection, QStringLiteral("valid")))
                .arg(data());
        };
        QVERIFY(files(QStringLiteral("tile/xla"), QStringLiteral("train")) > 0);
        QCOMPARE(lineBelow(), expected(QStringLiteral("tile/xla")));
        QVERIFY(panel.chooseCollection(QStringLiteral("layout:xla:random")));
        QCOMPARE(choice->currentText(), QStringLiteral("layout:xla:random"));
        QCOMPARE(lineBelow(), expected(QStringLiteral("layout/xla/random")));
    }

    // Patience starts at "auto" (no early stop while the learning rate decays), as the CLI's.
    // The validation chart's legend names the figures of the collection chosen, before Start.
    void theLegendFollowsTheChosenCollection() {
        TrainingPanel panel;
        panel.setRunsFolder(runs());
        panel.setDatasetFolder(data());
        QVERIFY(waitCollections(panel));
        auto names = [&] {
            QStringList out;
            for (QXYSeries* s : panel.charts()->liveValidationSeries()) out << s->name();
            return out;
        };
        // "auto" and "score" say what they are for that kind alone: both kinds' in one line were
        // cut in the form's column ("auto (layout: pairwise logistic, tile").
        const auto autoTexts = [&panel] {
            QStringList out;
            for (QSpinBox* sb : panel.findChildren<QSpinBox*>())
                if (sb->specialValueText().startsWith(QStringLiteral("auto (")))
                    out << sb->specialValueText();
            for (QComboBox* c : panel.findChildren<QComboBox*>())
                if (c->itemText(0).startsWith(QStringLiteral("auto (")) ||
                    c->itemText(0).startsWith(QStringLiteral("score (")))
                    out << c->itemText(0);
            return out;
        };
        QVERIFY(panel.chooseCollection(QStringLiteral("tile:xla")));
        QCOMPARE(names(),
                 QStringList({QStringLiteral("top-1 slowdown"), QStringLiteral("top-5 slowdown"),
                              QStringLiteral("score"), QStringLiteral("Kendall")}));
        QVERIFY2(autoTexts().contains(QStringLiteral("auto (64)")) &&
                     autoTexts().contains(QStringLiteral("auto (3)")) &&
                     autoTexts().contains(QStringLiteral("auto (pairwise hinge)")) &&
                     autoTexts().contains(QStringLiteral("score (the competition's)")),
                 qPrintable(autoTexts().join(QStringLiteral(" | "))));
        QVERIFY(panel.chooseCollection(QStringLiteral("layout:xla:random")));
        QCOMPARE(names(), QStringList({QStringLiteral("OPA"), QStringLiteral("Kendall")}));
        QVERIFY2(autoTexts().contains(QStringLiteral("auto (48)")) &&
                     autoTexts().contains(QStringLiteral("auto (2)")) &&
                     autoTexts().contains(QStringLiteral("auto (pairwise logistic)")) &&
                     autoTexts().contains(QStringLiteral("score (Kendall)")),
                 qPrintable(autoTexts().join(QStringLiteral(" | "))));
    }

    void patienceStartsAtAuto() {
        TrainingPanel panel;
        QSpinBox* patience = nullptr;
        for (QSpinBox* sb : panel.findChildren<QSpinBox*>())
            if (sb->specialValueText() == QStringLiteral("auto")) patience = sb;
        QVERIFY(patience);
        QCOMPARE(patience->value(), 0);
        QCOMPARE(patience->text(), QStringLiteral("auto"));
        QCOMPARE(panel.formSettings().patience, 0);
        patience->setValue(4);
        QCOMPARE(panel.formSettings().patience, 4);
    }

    // The figure that keeps the best epoch: the CLI's default, chosen in a combo, and back from a
    // run's settings (a resumed run shows what it selects by).
    void keepTheBestByFollowsTheSettings() {
        TrainingPanel panel;
        QComboBox* selectBy = nullptr;
        for (QComboBox* c : panel.findChildren<QComboBox*>())
            if (c->findData(QStringLiteral("kendall")) >= 0) selectBy = c;
        QVERIFY(selectBy);
        QVERIFY(panel.formSettings().selectBy == nn::TrainSettings{}.selectBy);
        selectBy->setCurrentIndex(selectBy->findData(QStringLiteral("score")));
        QVERIFY(panel.formSettings().selectBy == nn::TrainSettings::Selection::Score);
        nn::TrainSettings s = quickForm();
        s.selectBy = nn::TrainSettings::Selection::Kendall;
        panel.setFormSettings(s);
        QCOMPARE(selectBy->currentData().toString(), QStringLiteral("kendall"));
        QVERIFY(panel.formSettings().selectBy == nn::TrainSettings::Selection::Kendall);
    }

    // A folder of loose files has no collection to train on: the panel says so and the choice is
    // greyed out (it had shown the folder's path beside an empty choice that took no click).
    void aFolderWithoutATrainSplitSaysSo() {
        const QString dir = m_dir.filePath(QStringLiteral("loose"));
        QDir().mkpath(dir);
        const QString tile = QDir(data() + QStringLiteral("/npz/tile/xla/train"))
                                 .entryList({QStringLiteral("*.npz")})
                                 .value(0);
        QVERIFY(!tile.isEmpty());
        QVERIFY(QFile::copy(data() + QStringLiteral("/npz/tile/xla/train/") + tile,
                            dir + QStringLiteral("/k.npz")));
        TrainingPanel panel;
        panel.setRunsFolder(runs());
        panel.setDatasetFolder(dir);
        const auto said = [&panel] {
            for (QLabel* l : panel.findChildren<QLabel*>())
                if (l->text().startsWith(QStringLiteral("No train split in "))) return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(said(), 30000);
        QRadioButton* dataset = nullptr;
        for (QRadioButton* r : panel.findChildren<QRadioButton*>())
            if (r->text().startsWith(QStringLiteral("Dataset collection"))) dataset = r;
        QVERIFY(dataset);
        QVERIFY(!dataset->isEnabled());
        QVERIFY(!panel.startButton()->isEnabled());

        // A folder with a train split again: the choice comes back.
        panel.setDatasetFolder(data());
        QVERIFY(waitCollections(panel));
        QTRY_VERIFY(dataset->isEnabled());
        QVERIFY(!said());
    }

    // A collection without a valid split validates on configurations held out of its train
    // graphs, and the line below the choice says so before Start: it had validated on the very
    // configurations it trained on, under a chart titled "held out".
    void aCollectionWithoutAValidSplitHoldsConfigurationsOut() {
        const QString tree = m_dir.filePath(QStringLiteral("trainonly"));
        const QString from = data() + QStringLiteral("/npz/tile/xla/train/");
        const QString to = tree + QStringLiteral("/npz/tile/xla/train/");
        QVERIFY(QDir().mkpath(to));
        const QStringList kernels = QDir(from).entryList({QStringLiteral("*.npz")});
        QVERIFY(!kernels.isEmpty());
        for (const QString& k : kernels) QVERIFY(QFile::copy(from + k, to + k));
        TrainingPanel panel;
        panel.setRunsFolder(runs());
        panel.setDatasetFolder(tree);
        QTRY_VERIFY_WITH_TIMEOUT(panel.collectionChoices().contains(QStringLiteral("tile:xla")),
                                 30000);
        QVERIFY(panel.chooseCollection(QStringLiteral("tile:xla")));
        const QString said =
            QStringLiteral(
                "%1 train graphs in %2, no valid split: each validates on 20% of its "
                "configurations, held out of training")
                .arg(kernels.size())
                .arg(tree);
        const auto shown = [&panel, &said] {
            for (QLabel* l : panel.findChildren<QLabel*>())
                if (l->text().remove(QChar(0x200B)) == said) return true;
            return false;
        };
        QVERIFY(shown());
        QCOMPARE(panel.formSettings().heldOutConfigFraction,
                 nn::limits::kSingleFileHeldOutFraction);

        // With a valid split the run validates on it and trains on every configuration.
        panel.setDatasetFolder(data());
        QVERIFY(waitCollections(panel));
        QVERIFY(panel.chooseCollection(QStringLiteral("layout:xla:random")));
        QVERIFY(!QDir(data() + QStringLiteral("/npz/layout/xla/random/valid"))
                     .entryList({QStringLiteral("*.npz")})
                     .isEmpty());
        QCOMPARE(panel.formSettings().heldOutConfigFraction, 0.0);
        QVERIFY(!shown());
    }

    // A broken train file: one message naming it, and the panel is ready for the next run.
    void badDataFailsWithOneMessage() {
        const QString dir = m_dir.filePath(QStringLiteral("bad"));
        QDir().mkpath(dir + QStringLiteral("/npz/tile/xla/train"));
        QFile bad(dir + QStringLiteral("/npz/tile/xla/train/broken.npz"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("not a zip");
        bad.close();
        TrainingPanel panel;
        panel.setRunsFolder(m_dir.filePath(QStringLiteral("bad-runs")));
        panel.setDatasetFolder(dir);
        QTRY_VERIFY_WITH_TIMEOUT(panel.collectionChoices().contains(QStringLiteral("tile:xla")), 30000);
        QVERIFY(panel.chooseCollection(QStringLiteral("tile:xla")));
        panel.setFormSettings(quickForm());
        QSignalSpy failed(&panel, &TrainingPanel::runFailed);
        panel.start();
        QVERIFY(failed.wait(30000));
        const QString message = failed.first().at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("broken.npz")), qPrintable(message));
        QVERIFY(!panel.isRunning());
        QVERIFY(panel.startButton()->isEnabled());
    }

    // The run controls stay in view as they are clicked: a focused button that is disabled hands
    // its focus down the form, and the scroll area followed it (at 1366 x 768 a click on Start
    // scrolled Pause and Stop out of sight).
    void theRunButtonsStayInViewWhenClicked() {
        TrainingPanel panel;
        panel.resize(1366, 300);
        panel.show();
        panel.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&panel));
        panel.setRunsFolder(runs());
        panel.setDatasetFolder(data());
        QVERIFY(waitCollections(panel));
        QVERIFY(panel.chooseCollection(QStringLiteral("tile:xla")));
        panel.setFormSettings(quickForm());
        QScrollBar* scroll = panel.findChild<QScrollArea*>()->verticalScrollBar();
        QCOMPARE(scroll->value(), 0);
        // The form's first field after the buttons lies out of view, where the focus went.
        const QScrollArea* form = panel.findChild<QScrollArea*>();
        for (QSpinBox* field : panel.findChildren<QSpinBox*>())
            if (field->maximum() == 512)
                QVERIFY(field->mapTo(form->viewport(), QPoint(0, 0)).y() >
                        form->viewport()->height());

        QTest::mouseClick(panel.startButton(), Qt::LeftButton);
        QVERIFY(panel.isRunning());
        QCOMPARE(scroll->value(), 0);
        QVERIFY(panel.stopButton()->hasFocus());
        QTRY_VERIFY_WITH_TIMEOUT(panel.charts()->liveStepCount() > 0, 60000);
        QTest::mouseClick(panel.pauseButton(), Qt::LeftButton);
        QVERIFY(panel.isPaused());
        QTest::mouseClick(panel.stopButton(), Qt::LeftButton);  // stopping: Stop greys out at once
        QCOMPARE(scroll->value(), 0);
        QVERIFY(panel.pauseButton()->hasFocus());
        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        QSignalSpy listed(&panel, &TrainingPanel::runsListed);
        QVERIFY(finished.wait(30000));
        QCOMPARE(scroll->value(), 0);  // the run's end greys out Pause
        QVERIFY(panel.startButton()->hasFocus());

        // Resume, at the form's foot, greys out as the run starts: the view stays there too.
        QVERIFY(listed.wait(30000));
        const QString stopped = panel.liveRunFolder();
        for (int i = 0; i < panel.runList()->count(); ++i)
            if (panel.savedRuns()[static_cast<size_t>(i)].folder == stopped)
                panel.runList()->setCurrentRow(i);
        QPushButton* resume =
            childWithText<QPushButton>(panel, QStringLiteral("Resume selected run"));
        QVERIFY(resume && resume->isEnabled());
        scroll->setValue(scroll->maximum());
        QTest::mouseClick(resume, Qt::LeftButton);
        QVERIFY(panel.isRunning());
        QCOMPARE(scroll->value(), scroll->maximum());
        QVERIFY(panel.stopButton()->hasFocus());
        panel.stop();
        QVERIFY(finished.wait(30000));
    }

    // The app sets the open file and the dataset folder, whose collections come from a background
    // scan: a file set first had "this file only" chosen for good, so the data a run took
    // depended on which came first. A choice made for want of a collection gives way to one; a
    // user's stays.
    void theDatasetIsChosenOnceItsCollectionsAreListed() {
        const QString file = data() + QStringLiteral("/npz/layout/xla/random/train");
        const QString path =
            QDir(file).entryInfoList({QStringLiteral("*.npz")}).value(0).absoluteFilePath();
        QVERIFY(!path.isEmpty());
        const TpuGraph graph = loadTpuGraph(path.toStdString());
        {
            TrainingPanel panel;
            panel.setRunsFolder(runs());
            panel.setCurrentFile(path, graph);
            QVERIFY(panel.thisFileOnly());  // nothing else to train on yet
            panel.setDatasetFolder(data());
            QVERIFY(waitCollections(panel));
            QVERIFY(!panel.thisFileOnly());
            QCOMPARE(panel.formSettings().collection,
                     std::string("layout:xla:random"));  // the file's own
        }
        TrainingPanel panel;
        panel.setRunsFolder(runs());
        panel.setCurrentFile(path, graph);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QRadioButton* fileOnly = nullptr;
        for (QRadioButton* b : panel.findChildren<QRadioButton*>())
            if (b->text() == QStringLiteral("This file only")) fileOnly = b;
        QVERIFY(fileOnly);
        // The user's choice, though it was chosen already; on the indicator (the button is the
        // column's width, its centre beyond the text).
        QTest::mouseClick(fileOnly, Qt::LeftButton, {}, QPoint(8, fileOnly->height() / 2));
        QVERIFY(panel.thisFileOnly());
        panel.setDatasetFolder(data());
        QVERIFY(waitCollections(panel));
        QVERIFY(panel.thisFileOnly());
    }

    // A real nlp file's name is one long word to Qt ("small_bert_bert_en_uncased_L-10_..."):
    // word-wrapped whole, it set the dock's minimum width, and the window's, past 1,024 px.
    void aLongFileNameWrapsInsteadOfWideningThePanel() {
        const QString source = QDir(data() + QStringLiteral("/npz/layout/xla/random/train"))
                                   .entryInfoList({QStringLiteral("*.npz")})
                                   .value(0)
                                   .absoluteFilePath();
        QVERIFY(!source.isEmpty());
        QTemporaryDir dir;
        const QString path = dir.filePath(
            QStringLiteral("small_bert_bert_en_uncased_L-10_H-128_A-2_batch_size_32_train.npz"));
        QVERIFY(QFile::copy(source, path));
        TrainingPanel panel;
        panel.setRunsFolder(runs());
        panel.resize(700, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const int before = panel.minimumSizeHint().width();
        panel.setCurrentFile(path, loadTpuGraph(path.toStdString()));
        auto* label = panel.findChild<QLabel*>(QStringLiteral("thisFileLabel"));
        QVERIFY(label);
        const QString name = QFileInfo(path).fileName();
        QVERIFY(label->text().remove(QChar(0x200B)).startsWith(name));
        // Its longest unbreakable piece, not the whole name, sets its width.
        QVERIFY2(
            label->minimumSizeHint().width() < label->fontMetrics().horizontalAdvance(name) / 2,
            qPrintable(QString::number(label->minimumSizeHint().width())));
        QTest::qWait(50);
        QVERIFY2(panel.minimumSizeHint().width() <= before,
                 qPrintable(QStringLiteral("%1 px, %2 before")
                                .arg(panel.minimumSizeHint().width())
                                .arg(before)));
    }

    // Stopped while the general model is measured on the held-out configs (half a minute on a
    // 45,000-node file, where Stop had waited for all of them): the job ends there, cancelled,
    // with no general figure posted and no run begun.
    void stoppingWhileTheGeneralModelIsMeasuredEndsTheJob() {
        const QString file = data() + QStringLiteral("/npz/layout/xla/random/train");
        const QString path =
            QDir(file).entryInfoList({QStringLiteral("*.npz")}).value(0).absoluteFilePath();
        QVERIFY(!path.isEmpty());
        nn::TrainSettings s = quickForm();
        s.trainFile = path.toStdString();
        s.outPath = (runs() + QStringLiteral("/stopped/model.tpgm")).toStdString();
        auto cancel = std::make_shared<nn::CancelToken>();
        cancel->cancel();  // Stop pressed as the measuring began
        JobRunner runner(QStringLiteral("training"));
        QSignalSpy partial(&runner, &JobRunner::partial);
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.submit(QString(), trainingJob(s, cancel, std::make_shared<nn::PauseGate>(),
                                             nn::defaultModel(Collection::Layout), TpuGraph()));
        QVERIFY(finished.wait(60000));
        const auto result = finished.first().at(1).value<nn::TrainResult>();
        QVERIFY(result.cancelled);
        QCOMPARE(result.steps, int64_t{0});
        for (const QList<QVariant>& update : partial)
            QVERIFY(!update.at(1).value<TrainingUpdate>().hasGeneral);
        QVERIFY(!QFileInfo::exists(runs() + QStringLiteral("/stopped")));
    }

    void thisFileOnlyIsComparedWithTheGeneralModel() {
        const QString file = data() + QStringLiteral("/npz/layout/xla/random/train");
        const QString path = QDir(file).entryInfoList({QStringLiteral("*.npz")}).value(0).absoluteFilePath();
        QVERIFY(!path.isEmpty());
        TrainingPanel panel;
        panel.setRunsFolder(runs());
        panel.setGeneralModelProvider([](Collection kind) { return nn::defaultModel(kind); });
        panel.setCurrentFile(path, loadTpuGraph(path.toStdString()));
        QVERIFY(panel.thisFileOnly());  // no dataset open: the file is the choice
        nn::TrainSettings s = quickForm();
        s.epochs = 2;
        s.minutes = 0;
        panel.setFormSettings(s);
        QSignalSpy finished(&panel, &TrainingPanel::runFinished);
        panel.start();
        QVERIFY(finished.wait(120000));
        const QString text = panel.comparisonText();
        QVERIFY2(text.contains(QStringLiteral("this-file model <b>")) && text.contains(QStringLiteral("general model <b>")),
                 qPrintable(text));
        // About 20% of 300 configs, chosen by a hash of the config (as training holds them out).
        const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("\\((\\d+) configs\\)")).match(text);
        QVERIFY2(m.hasMatch() && m.captured(1).toInt() >= 40 && m.captured(1).toInt() <= 80, qPrintable(text));
        const nn::TrainingHistory h = nn::readTrainingLog(RunFiles::log(panel.liveRunFolder()).toStdString());
        QCOMPARE(h.settings.trainFile, path.toStdString());
        QCOMPARE(h.epochs.size(), size_t{2});
        const QProgressBar* bar = panel.findChild<QProgressBar*>();
        QCOMPARE(bar->value(), bar->maximum());  // the epoch limit ended it: done
    }
};

QTEST_MAIN(TestTrainingPanel)
#include "test_training_panel.moc"
