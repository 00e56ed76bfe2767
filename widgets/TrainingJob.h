#pragma once

// The worker side of the Training dock: a training run as a JobRunner job that reports in
// batches, and the listing of the runs kept on disk. Nothing here touches a widget.
#include <QMetaType>
#include <QString>
#include <memory>
#include <vector>

#include "CostModel.h"
#include "Evaluation.h"
#include "JobRunner.h"
#include "Trainer.h"
#include "TrainingLog.h"

namespace tpg {

// What the job posts to the GUI: the newest progress and the steps since the last post (a run
// can take hundreds of steps a second; the GUI redraws a few times a second).
struct TrainingUpdate {
    nn::TrainProgress progress;
    std::vector<nn::StepRecord> steps;
    bool epochDone = false;  // progress.validation holds a finished epoch
    // "This file only": the general model on the held-out configs (set once, before training).
    bool hasGeneral = false;
    nn::GraphMetrics general;
};

// The files a run folder holds (one folder per run under the runs folder).
struct RunFiles {
    static QString model(const QString& folder) { return folder + QStringLiteral("/model.tpgm"); }
    static QString state(const QString& folder) { return model(folder) + QStringLiteral(".state"); }
    static QString log(const QString& folder) { return folder + QStringLiteral("/metrics.jsonl"); }
};

struct SavedRun {
    QString folder;
    QString name;  // the folder's name: its start time and what it trained on
    nn::TrainingHistory history;
    QString error;  // why its log could not be read
    bool hasModel = false, resumable = false;
};

// Every run under `runsFolder`, oldest first (run on a worker: logs can be long).
std::vector<SavedRun> listSavedRuns(const QString& runsFolder);

// A job that trains with `settings`, honouring `cancel` and `pause` (set from the GUI), and posts
// TrainingUpdate partials; returns the nn::TrainResult. With `general` (not null) and a
// one-file run, first measures that model on the run's held-out configs (of `openFile` when it is
// that file, already in memory).
JobRunner::Work trainingJob(const nn::TrainSettings& settings, const std::shared_ptr<nn::CancelToken>& cancel,
                            const std::shared_ptr<nn::PauseGate>& pause, const nn::CostModel& general,
                            const TpuGraph& openFile);

}  // namespace tpg

Q_DECLARE_METATYPE(tpg::TrainingUpdate)
Q_DECLARE_METATYPE(tpg::nn::TrainResult)
Q_DECLARE_METATYPE(std::vector<tpg::SavedRun>)
