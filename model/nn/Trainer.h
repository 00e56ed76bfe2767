#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "CancelToken.h"
#include "ModelInfo.h"
#include "NnLimits.h"

namespace tpg::nn {

struct TrainSettings {
    std::string dataDir;
    std::string collection;  // "layout:xla:random", "tile:xla", ... (as DatasetFile::collection)
    std::string outPath;  // best model (atomic writes); training state goes to outPath + ".state"
    int epochs = 0;       // 0 = no limit: the time budget and early stopping end the run
    double minutes = 10;  // wall-clock budget including validation (the primary rule); 0 = none
    uint64_t seed = 1;
    int threads = 0;  // torch intra-op threads; 0 = torch's default
    ModelSettings model;
    LossKind loss = LossKind::PairwiseHinge;
    double margin = 0.1;
    double learningRate = 2e-3;
    double weightDecay = 1e-5;
    int configsPerStep =
        64;  // sampled distinct configs per graph per step (the 64-128 that works best)
    int graphsPerStep = 0;  // graphs per optimiser step; 0 = 1 for layout, 8 for tile
    int patience = 6;       // epochs without validation gain before stopping (a plateau)
    size_t cacheBytes = limits::kDefaultCacheBytes;  // LRU budget for prepared graphs
    int64_t validConfigsPerGraph = limits::kDefaultValidConfigsPerGraph;
    double heldOutConfigFraction = 0;  // > 0: reserve this share of each train graph's configs
    int64_t maxTrainGraphs = 0;        // 0 = all
    bool resume = false;               // continue from outPath + ".state" when it exists
};

struct TrainProgress {
    enum class Phase { Preparing, Training, Validating, EpochDone, Finished };
    Phase phase = Phase::Preparing;
    int epoch = 0;   // 1-based
    int epochs = 0;  // the limit; 0 = none
    int64_t step = 0, steps = 0;  // within the epoch
    double loss = 0;              // running mean of the epoch's training loss
    double learningRate = 0;
    double elapsedSeconds = 0;
    int64_t configsSeen = 0;        // configurations trained on by this run (with repeats)
    double configsPerSecond = 0;    // training throughput, validation excluded
    double etaSeconds = -1;         // until the budget or the epoch limit ends the run; -1 unknown
    ValidationSummary validation;  // EpochDone: this epoch's validation
    bool improved = false;         // EpochDone: a new best model was saved
    std::string message;
};

struct TrainResult {
    bool cancelled = false, timedOut = false, earlyStopped = false;
    int epochsRun = 0;
    bool saved = false;
    ValidationSummary best;
    double seconds = 0;
    std::vector<std::string> warnings;
};

using TrainCallback = std::function<void(const TrainProgress&)>;

// Trains a layout or tile cost model on `settings.dataDir`'s train split, validating on its valid
// split (or, without one, on held-out configs) every epoch and keeping the best model at
// settings.outPath. An epoch sees every train graph's configurations about once (see
// planEpoch in TrainingRun.h); the time budget is the primary stopping rule, with early
// stopping on a validation plateau and an optional epoch limit. Runs on the calling thread
// (a GUI calls it from a worker); polls `cancel` every step. Throws FormatError for bad input.
TrainResult trainCostModel(const TrainSettings& settings, const TrainCallback& callback = {},
                           const CancelToken* cancel = nullptr);

}  // namespace tpg::nn
