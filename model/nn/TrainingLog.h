#pragma once

// A training run's metrics as JSON lines: one object per start, optimiser step, epoch and end.
// The trainer writes it (the CLI's --log FILE.jsonl and the explorer's run folders alike), so a
// run plotted in the app and one plotted elsewhere show the same numbers. Torch-free.
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "ModelInfo.h"
#include "Trainer.h"

namespace tpg::nn {

struct StepRecord {
    int64_t step = 0;  // optimiser steps since the run began, this one included (1-based)
    int epoch = 0;     // 1-based
    double loss = 0;   // this step's training loss
    double learningRate = 0;
    double elapsedSeconds = 0;  // run time, paused time excluded, earlier sessions included
    double configsPerSecond = 0;
};

struct EpochRecord {
    int epoch = 0;
    int64_t step = 0;  // optimiser steps at the epoch's end
    double loss = 0;   // mean training loss over the epoch
    ValidationSummary validation;
    bool improved = false;  // a new best model was saved at this epoch
    double elapsedSeconds = 0;
};

struct TrainingHistory {
    TrainSettings settings;  // as the last start record gives them
    Collection kind = Collection::Layout;
    std::string trainedOn;   // what the data was: "layout:xla:random train (4 graphs)", a file
    std::vector<StepRecord> steps;
    std::vector<EpochRecord> epochs;
    bool finished = false;  // an end record closes the log (not stopped by a crash or kill)
    std::string endReason;  // "done", "cancelled", "time budget reached", "stopped early"
    int skippedLines = 0;   // unreadable lines (a line torn by kill -9)

    // Index into `epochs` of the best model (the last improved epoch); -1 when none.
    int bestEpochIndex() const {
        for (int i = static_cast<int>(epochs.size()) - 1; i >= 0; --i)
            if (epochs[static_cast<size_t>(i)].improved) return i;
        return -1;
    }
};

// Reads a log written by TrainingLogWriter. Throws FormatError when it cannot be opened or holds
// no start record; unreadable lines are skipped and counted.
TrainingHistory readTrainingLog(const std::string& path);

std::string trainSettingsToJson(const TrainSettings& settings);
// Throws FormatError("FILE: key ...") naming the missing or ill-typed key.
TrainSettings trainSettingsFromJson(const std::string& json, const std::string& file);

class TrainingLogWriter {
public:
    // A fresh log at `path` (keepUpToStep < 0), or a resumed run's: its records after
    // `keepUpToStep` optimiser steps are dropped (the run redoes those steps; the file is replaced
    // atomically) and the run appends.
    TrainingLogWriter(const std::string& path, const TrainSettings& settings, Collection kind,
                      const std::string& trainedOn, int64_t keepUpToStep);
    void step(const StepRecord& r);
    void epoch(const EpochRecord& r);
    void end(const std::string& reason, int64_t steps, double elapsedSeconds);
    // Called before every checkpoint, so the log never lags behind the state it resumes from.
    void flush();

private:
    void writeLine(const std::string& line);
    std::string m_path;
    std::ofstream m_out;
};

}  // namespace tpg::nn
