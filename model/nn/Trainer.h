#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "CancelToken.h"
#include "LearningRateSchedule.h"
#include "ModelInfo.h"
#include "NnLimits.h"
#include "io/Error.h"

namespace tpg::nn {

class DataParallelGroup;

struct TrainSettings {
    std::string dataDir;
    std::string collection;  // "layout:xla:random", "tile:xla", ... (as DatasetFile::collection)
    // One file instead of a dataset folder: trains on its measured configurations minus
    // heldOutConfigFraction of them, which validate ("this file only").
    std::string trainFile;
    std::string outPath;  // best model (atomic writes); training state goes to outPath + ".state"
    int epochs = 0;       // 0 = no limit: the time budget and early stopping end the run
    double minutes = 10;  // wall-clock budget including validation (the primary rule); 0 = none
    uint64_t seed = 1;
    int threads = 0;  // torch intra-op threads; 0 = torch's default
    ModelSettings model = ModelSettings::shapedByKind();
    LossKind loss = LossKind::Auto;  // resolveLoss: layout logistic, tile hinge
    double margin = kDefaultMargin;
    double temperature = kDefaultTemperature;
    // The pairwise hinge plus this many times ListMLE (the two losses together); 0 = the hinge alone.
    double listMleWeight = 0;
    double learningRate = 2e-3;
    LearningRateSchedule schedule = LearningRateSchedule::Cosine;
    double weightDecay = 1e-5;
    // Layout: the share of node-encoding values zeroed at random in each training step (the
    // config-free pass, so every config of a step sees the same mask); 0 = none.
    double dropout = 0;
    // The decay per optimiser step of an exponential moving average of the weights, which then
    // validates and is saved (0.999: an average over about the last 1,000 steps); 0 = none, the
    // trained weights themselves.
    double weightAverage = 0;
    int configsPerStep =
        64;  // sampled distinct configs per graph per step (the 64-128 that works best)
    int graphsPerStep = 0;  // graphs per optimiser step; 0 = 1 for layout, 8 for tile
    // Epochs without validation gain before stopping; 0 = auto (effectivePatience): none while
    // the learning rate decays over the run, whose last, low-rate part brings the gains.
    int patience = 0;
    size_t cacheBytes = limits::kDefaultCacheBytes;  // LRU budget for prepared graphs
    int64_t validConfigsPerGraph = limits::kDefaultValidConfigsPerGraph;
    double heldOutConfigFraction = 0;  // > 0: reserve this share of each train graph's configs
    int64_t maxTrainGraphs = 0;        // 0 = all
    bool resume = false;               // continue from outPath + ".state" when it exists
    // Training state is also saved mid-epoch this often, so a killed run loses at most this much.
    double checkpointSeconds = limits::kDefaultCheckpointSeconds;
    std::string logPath;  // metrics as JSON lines (TrainingLog.h); "" = none
    // Size-matched steps (EpochPlan.h): graphs of similar size share a step. Auto = on in
    // data-parallel runs, where a step waits for the slowest worker.
    enum class Matching { Auto, Off, On };
    Matching sizeMatchedSteps = Matching::Auto;
    // Training products (Dense) in bfloat16 (BFloat16ProductsScope, modules/Dense.h): Auto = where
    // the CPU multiplies bfloat16 in hardware; BFloat16 on another CPU is refused (FormatError).
    // Float by default: bfloat16 is markedly faster only while the other core idles (README,
    // model quality) and leaves the result depending on the CPU.
    enum class Products { Auto, Float32, BFloat16 };
    Products products = Products::Float32;
    // Layout steps above this much per-config work run in chunks (cancellable between them).
    int64_t chunkNodeConfigs = limits::kTrainChunkNodeConfigs;
    // The validation figure that picks the epoch kept: Score = the collection's score (Kendall for
    // layout, the competition's tile score for tile), Kendall = Kendall for both.
    enum class Selection { Score, Kendall };
    Selection selectBy = Selection::Score;
};

// The epochs without validation gain that end a run early: the setting, or for 0 (auto) none
// under a schedule that decays over the run (cosine, stable-decay: stopping on a plateau while the
// rate is still high forgoes the decay's gain) and limits::kConstantRatePatience under a constant rate.
int effectivePatience(const TrainSettings& settings);

// "auto" / "float" / "bfloat16", as the CLI's --products and the training log spell them.
const char* productsName(TrainSettings::Products p);
bool parseProducts(const std::string& s, TrainSettings::Products& out);
// "score" / "kendall", as the CLI's --select-by and the training log spell them.
const char* selectionName(TrainSettings::Selection s);
bool parseSelection(const std::string& s, TrainSettings::Selection& out);
// The figure of a validation (its score and Kendall) that `s` selects epochs by.
double selectedFigure(double score, double kendall, TrainSettings::Selection s);
// Whether an epoch validating at `v` replaces the kept one, whose score and Kendall are given
// (-infinity before one scored): its figure by `s` rose by more than limits::kValidationGain, or
// the score tied and its Kendall rose (a tile score at its ceiling, top-5 slowdown 0, as on one
// file's held-out configurations, goes to the better Kendall, not to the earlier epoch).
bool isValidationGain(const ValidationSummary& v, double keptScore, double keptKendall,
                      TrainSettings::Selection s);
// Whether Products::Auto trains in bfloat16 here (the CPU multiplies bfloat16 in hardware).
bool bfloat16TrainingAvailable();

struct TrainProgress {
    enum class Phase { Preparing, Training, Validating, EpochDone, Checkpointed, Finished };
    Phase phase = Phase::Preparing;
    int epoch = 0;   // 1-based
    int epochs = 0;  // the limit; 0 = none
    int64_t step = 0, steps = 0;  // within the epoch
    int64_t globalStep = 0;       // optimiser steps since the run began (resumed runs included)
    double loss = 0;              // running mean of the epoch's training loss
    double stepLoss = 0;          // Training: this step's loss (NaN when the step was skipped)
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
    int64_t steps = 0;  // optimiser steps of the whole run (resumed runs included)
    std::vector<std::string> warnings;
    // Data-parallel runs: workers, time in the gradient all-reduce and how often it ran, and how
    // many times the replicas' weights were compared bit for bit (at every epoch end) and agreed.
    int workers = 1;
    double allReduceSeconds = 0;
    int64_t allReduces = 0;
    // Of it, the time once the last worker had arrived (DataParallelTraining::settledSeconds),
    // over allReduceSettledSteps steps; the rest is waiting for the slowest worker.
    double allReduceSettledSeconds = 0;
    int64_t allReduceSettledSteps = 0;
    int replicaChecks = 0;
};

using TrainCallback = std::function<void(const TrainProgress&)>;

// Pause / Resume from any thread: the trainer waits between steps while paused (the time budget
// does not run meanwhile) and still notices a cancel.
class PauseGate {
public:
    void pause();
    void resume();
    bool paused() const;
    // Blocks while paused; returns the seconds waited.
    double waitWhilePaused(const CancelToken* cancel);

private:
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_paused = false;
};

// Trains a layout or tile cost model on `settings.dataDir`'s train split (or settings.trainFile),
// validating on its valid split (or, without one, on held-out configs) every epoch and keeping the
// best model at settings.outPath. An epoch sees every train graph's configurations about once (see
// planEpoch in TrainingRun.h); the time budget is the primary stopping rule, with early
// stopping on a validation plateau and an optional epoch limit. Runs on the calling thread
// (a GUI calls it from a worker); polls `cancel` and `pause` every step. A cancelled run saves
// its state, so `resume` continues it. Throws FormatError for bad input.
//
// With `group`, this process is one replica of a data-parallel run (DataParallelGroup.h): each
// optimiser step takes one graph batch per worker (the same epoch plan on every rank), all-reduces
// the gradients, and every rank applies the same update; validation is sharded; only rank 0
// writes the model, checkpoint and log, and calls `callback`. Throws DistributedError when a
// collective fails.
//
// A train split where no graph's configurations differ in runtime throws NothingToLearn after the
// first epoch; in a data-parallel run every rank throws it at the same point (the count is
// all-reduced), so rank 0 alone needs to say it.
class NothingToLearn : public FormatError {
public:
    using FormatError::FormatError;
};

TrainResult trainCostModel(const TrainSettings& settings, const TrainCallback& callback = {},
                           const CancelToken* cancel = nullptr, PauseGate* pause = nullptr,
                           DataParallelGroup* group = nullptr);

}  // namespace tpg::nn
