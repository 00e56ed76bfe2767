#include "TrainingJob.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QObject>

#include "CountText.h"
#include "TensorMemory.h"
#include "graph/DatasetIndex.h"
#include "graph/GraphFile.h"

namespace tpg {

namespace {

// The GUI hears from a run at most this often (ms): enough for live plots, and the event loop
// never queues more updates than it can draw.
constexpr qint64 kUpdateIntervalMs = 200;
// The training thread's nice value: below the GUI (0), above idle work.
constexpr int kTrainingNice = 10;

// Collects step records and posts them with the newest progress every kUpdateIntervalMs, and at
// once for anything but a training step.
class UpdateBatcher {
public:
    explicit UpdateBatcher(JobControl& control) : m_control(control) { m_sinceLast.start(); }

    void add(const nn::TrainProgress& p) {
        using Phase = nn::TrainProgress::Phase;
        m_update.progress = p;
        if (p.phase == Phase::Training && !std::isnan(p.stepLoss))
            m_update.steps.push_back({p.globalStep, p.epoch, p.stepLoss, p.learningRate, p.elapsedSeconds, p.configsPerSecond});
        m_update.epochDone = p.phase == Phase::EpochDone;
        const bool routine = p.phase == Phase::Training || p.phase == Phase::Validating || p.phase == Phase::Checkpointed;
        if (!routine || m_sinceLast.elapsed() >= kUpdateIntervalMs) flush();
    }

    void flush() {
        m_control.post(QVariant::fromValue(m_update));
        m_update.steps.clear();
        m_update.epochDone = false;
        m_sinceLast.restart();
    }

private:
    JobControl& m_control;
    TrainingUpdate m_update;
    QElapsedTimer m_sinceLast;
};

// Training keeps every core it is given busy for minutes: at a lower priority (Linux nice is per
// thread, and torch's worker threads inherit it) the window and the predictions never queue
// behind it.
void lowerThisThreadsPriority() {
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kTrainingNice);
}

// `open` is the file as the window already holds it (not read again), when it is the one trained
// on. The general model on the configurations the run will validate on: on a 45,000-node file its
// 2,000 take half a minute, so it says how far it is and stops when the run is stopped.
nn::GraphMetrics measureGeneralModel(const nn::TrainSettings& s, const nn::CostModel& general,
                                     const TpuGraph& open, nn::CancelToken* cancel,
                                     JobControl& control) {
    const TpuGraph g = !open.isNull() && open.path() == s.trainFile ? open : loadTpuGraph(s.trainFile);
    general.requireCompatible(g);
    const nn::EvaluationOptions options{s.validConfigsPerGraph, s.seed, s.heldOutConfigFraction};
    QElapsedTimer sinceLast;
    sinceLast.start();
    auto progress = [&](int64_t done, int64_t total) {
        if (control.cancelled()) cancel->cancel();  // the runner shutting down
        if (sinceLast.elapsed() < kUpdateIntervalMs) return;
        sinceLast.restart();
        TrainingUpdate update;
        update.progress.message =
            QObject::tr("measuring the general model on the held-out configs: %1 of %2")
                .arg(countText(done), countText(total))
                .toStdString();
        control.post(QVariant::fromValue(update));
    };
    return nn::evaluateModel(general, g, describeFile(s.trainFile).competitionId(), options, cancel,
                             progress);
}

}  // namespace

std::vector<SavedRun> listSavedRuns(const QString& runsFolder) {
    std::vector<SavedRun> runs;
    const QFileInfoList dirs = QDir(runsFolder).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo& dir : dirs) {
        const QString folder = dir.absoluteFilePath();
        if (!QFileInfo::exists(RunFiles::log(folder))) continue;
        SavedRun run;
        run.folder = folder;
        run.name = dir.fileName();
        try {
            run.history = nn::readTrainingLog(RunFiles::log(folder).toStdString());
        } catch (const std::exception& e) {
            run.error = QString::fromStdString(e.what());
        }
        run.hasModel = QFileInfo::exists(RunFiles::model(folder));
        // Stopped by the user or killed (no end record): its state continues it.
        run.resumable = run.error.isEmpty() && QFileInfo::exists(RunFiles::state(folder)) &&
                        (!run.history.finished || run.history.endReason == "cancelled");
        runs.push_back(std::move(run));
    }
    return runs;
}

JobRunner::Work trainingJob(const nn::TrainSettings& settings, const std::shared_ptr<nn::CancelToken>& cancel,
                            const std::shared_ptr<nn::PauseGate>& pause, const nn::CostModel& general,
                            const TpuGraph& openFile) {
    return [settings, cancel, pause, general, openFile](JobControl& control) {
        lowerThisThreadsPriority();
        // The run's graphs and buffers, freed as it ends (however it ends), go back to the OS: the
        // heap keeps freed memory for the next pass, and there is none once the run is over.
        struct ReleaseWhenDone {
            ReleaseWhenDone() = default;
            ReleaseWhenDone(const ReleaseWhenDone&) = delete;
            ReleaseWhenDone& operator=(const ReleaseWhenDone&) = delete;
            ~ReleaseWhenDone() { nn::releaseFreedMemory(); }
        } release;
        UpdateBatcher batcher(control);
        if (!settings.trainFile.empty() && !general.isNull()) {
            TrainingUpdate first;
            first.progress.message = "measuring the general model on the held-out configs";
            control.post(QVariant::fromValue(first));
            first.hasGeneral = true;
            first.general = measureGeneralModel(settings, general, openFile, cancel.get(), control);
            if (cancel->cancelled()) {  // stopped while measuring: no run began
                nn::TrainResult stopped;
                stopped.cancelled = true;
                return QVariant::fromValue(stopped);
            }
            control.post(QVariant::fromValue(first));
        }
        const nn::TrainResult result = nn::trainCostModel(
            settings,
            [&](const nn::TrainProgress& p) {
                if (control.cancelled()) cancel->cancel();  // the runner shutting down
                batcher.add(p);
            },
            cancel.get(), pause.get());
        return QVariant::fromValue(result);
    };
}

}  // namespace tpg
