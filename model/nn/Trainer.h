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
    int epochs = 40;
    double minutes = 0;  // wall-clock budget including validation; 0 = none
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
    int patience = 6;       // epochs without validation gain before stopping
    size_t cacheBytes = limits::kDefaultCacheBytes;  // LRU budget for prepared graphs
    int64_t validConfigsPerGraph = limits::kDefaultValidConfigsPerGraph;
    double heldOutConfigFraction = 0;  // > 0: reserve this share of each train graph's configs
    int64_t maxTrainGraphs = 0;        // 0 = all
    bool resume = false;               // continue from outPath + ".state" when it exists
};

struct TrainProgress {
    enum class Phase { Preparing, Training, Validating, EpochDone, Finished };
    Phase phase = Phase::Preparing;
    int epoch = 0;  // 1-based
    int epochs = 0;
    int64_t step = 0, steps = 0;  // within the epoch
    double loss = 0;              // running mean of the epoch's training loss
    double learningRate = 0;
    double elapsedSeconds = 0;
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
// split every epoch and keeping the best model at settings.outPath. Runs on the calling thread
// (a GUI calls it from a worker); polls `cancel` every step. Throws FormatError for bad input.
TrainResult trainCostModel(const TrainSettings& settings, const TrainCallback& callback = {},
                           const CancelToken* cancel = nullptr);

}  // namespace tpg::nn
