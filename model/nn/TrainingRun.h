#pragma once

// Internal to tpgnn (includes torch): the phases of a training run, so a driver (the CLI's
// trainCostModel loop, the GUI's training panel, a data-parallel worker) can call and hook into
// each: data and statistics, the epoch plan, the step (gradients, then their application),
// validation, and the checkpoint with resume.
#include <cstdint>
#include <functional>
#include <limits>
#include <list>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "CostModelImpl.h"
#include "EpochPlan.h"
#include "Evaluation.h"
#include "Trainer.h"
#include "graph/DatasetIndex.h"
#include "modules/RankingLosses.h"

namespace tpg::nn {

// Phase 1: what a run trains and validates on.
struct TrainingData {
    std::vector<DatasetFile> train, valid;
    std::vector<int64_t> trainConfigCounts;  // configurations in each train file (its header)
    std::vector<int64_t> trainStepCosts;     // what a step on each train file costs, roughly
    // No valid split but configs held out of every train graph: validate on those, honestly.
    bool validateOnHeldOutConfigs = false;
    ModelInfo info;  // kind, widths, normalisation statistics, settings
    std::vector<std::string> warnings;
};
// Reading every train file's header and the statistics graphs takes a while on the real dataset:
// a cancel between files ends it with PreparationCancelled.
struct PreparationCancelled {};
TrainingData loadTrainingData(const TrainSettings& settings,
                              const std::function<void(const std::string&)>& say,
                              const CancelToken* cancel = nullptr);

// Forward and backward of a layout model over configs `ids` of one graph in chunks of `chunk`
// configs, checking `cancel` between chunks. Each chunk's graph is kept; the loss over all scores
// gives each score's gradient, which then flows back chunk by chunk and finally through the
// config-free pass once: the gradient of one pass, for Stop to act mid-step on big graphs.
// Returns loss / share, or NaN when cancelled (gradients then partly accumulated).
double layoutGradientsInChunks(CostModel::Impl& net, const PreparedGraph& prepared, const GraphTensors& tensors,
                               const std::vector<int64_t>& ids, const RankingLoss& loss,
                               const torch::Tensor& target, double share, int64_t chunk,
                               const CancelToken* cancel);

// Where a run stands; what a checkpoint holds besides weights and optimiser state.
struct RunState {
    int epoch = 0;  // epochs completed
    // The kept epoch's validation score and Kendall (-infinity before one scored).
    double bestScore = -std::numeric_limits<double>::infinity();
    double bestKendall = -std::numeric_limits<double>::infinity();
    int badEpochs = 0;
    double elapsed = 0;
    int64_t globalStep = 0;
    // A checkpoint inside epoch `epoch + 1`: the steps it has done, the sampler's state after
    // them and its loss so far; stepInEpoch = 0 when the checkpoint falls between epochs.
    int64_t stepInEpoch = 0;
    std::string rngState;
    double epochLossSum = 0;
    int64_t epochLossCount = 0;
};

// What a step's forward and backward passes did (summed, so data-parallel ranks add theirs up).
struct StepTally {
    double lossSum = 0;  // the graphs' losses (each graph's gradient is scaled by 1 / share)
    int64_t graphs = 0;  // graphs that gave a gradient
    int64_t configs = 0;
    bool cancelled = false;  // the step was abandoned (gradients cleared)
};

struct PreparedEntry;
class PreparedGraphCache;
struct TrainableConfigs;

class TrainingRun {
public:
    TrainingRun(const TrainSettings& settings, TrainingData data);
    ~TrainingRun();

    const TrainingData& data() const { return m_data; }
    bool bfloat16Products() const { return m_bfloat16Products; }
    CostModel& model() { return m_model; }
    RunState& state() { return m_state; }

    // Phase 5a: continues from settings.outPath + ".state" when asked and it fits this setup.
    // Returns false with `why` when the saved state belongs to another setup.
    bool resume(std::string& why);

    // Phase 3: a step's forward and backward passes over `files` (gradients accumulate, each
    // graph's scaled by 1 / share: the step's graph count, over every rank in data-parallel runs).
    // A data-parallel driver all-reduces the gradients between this and applyGradients().
    // With `cancel` set mid-step, the step is abandoned (gradients cleared, tally.cancelled set) so
    // a resumed run redoes it whole.
    StepTally accumulateGradients(const std::vector<size_t>& files, std::mt19937_64& rng, double share,
                                  const CancelToken* cancel);
    void applyGradients(double learningRate);
    // Exchanges the trained weights with their running average (TrainSettings::weightAverage;
    // nothing without one or before the first step): validation and the saved model use the
    // average, and a second call puts the trained weights back, bit for bit.
    void swapAveragedWeights();

    // Phase 4: ranking quality on the valid graphs (or held-out configs) of this shard (every
    // shards-th graph from `shard`). `onGraph` reports progress; stops early when cancelled.
    MetricSums validate(const std::function<void(int64_t done, int64_t total)>& onGraph, const CancelToken* cancel,
                        int shard = 0, int shards = 1);

    // Phase 5b: after an epoch's validation: keeps the best model at outPath (when `save`; in a
    // data-parallel run only rank 0 writes). Returns true when `v` improved on the best so far.
    bool recordEpoch(int epoch, const ValidationSummary& v, double elapsed, bool save = true);
    // Phase 5c: writes state() (weights, optimiser, where the run stands) to outPath + ".state",
    // atomically, so a kill at any moment leaves the previous checkpoint or this one.
    void checkpoint(double elapsed);
    // The checkpoint's contents in memory (rank 0 broadcasts them to start every replica alike),
    // and loading them; false with `why` when they belong to another setup.
    ModelFileContents stateContents();
    bool loadStateContents(const ModelFileContents& contents, const std::string& label, std::string& why);
    torch::optim::Adam& optimizer() { return *m_optimizer; }
    std::vector<torch::Tensor>& parameters() { return m_parameters; }
    const std::vector<torch::Tensor>& parameters() const { return m_parameters; }

private:
    const TrainableConfigs& trainable(const DatasetFile& file, const PreparedEntry& entry);
    void updateAverage();
    // The configs validation scores on valid graph `validIndex`, chosen once (held-out configs
    // need the graph's distinct rows: a decode of every row, seconds on 100k-config files).
    const std::vector<int64_t>& validationConfigs(size_t validIndex, const TpuGraph& g,
                                                  const EvaluationOptions& options);
    // Validation's program ties for valid graph `validIndex`, with its keys computed once.
    void shareScoresWithinPrograms(size_t validIndex, const TpuGraph& g, const std::vector<int64_t>& ids,
                                   std::vector<double>& scores);
    // One graph's loss and gradients for `ids` (NaN when cancelled part-way).
    double graphGradients(const PreparedEntry& entry, const std::vector<int64_t>& ids,
                          const torch::Tensor& target, double share, const CancelToken* cancel);

    const TrainSettings& m_settings;
    TrainingData m_data;
    bool m_bfloat16Products;  // TrainSettings::products as resolved for this CPU
    CostModel m_model;
    std::unique_ptr<torch::optim::Adam> m_optimizer;
    std::vector<torch::Tensor> m_parameters;
    std::unique_ptr<PreparedGraphCache> m_cache;
    // Per valid graph, the program keys of the configs validation scores (the same every epoch).
    std::vector<std::vector<uint64_t>> m_validProgramKeys;
    std::vector<std::unique_ptr<std::vector<int64_t>>> m_validIds;  // per valid graph, once chosen
    std::unordered_map<std::string, std::unique_ptr<TrainableConfigs>> m_trainable;
    int64_t m_trainConfigs = 0;  // distinct configs trained on, for the model's metadata
    RunState m_state;
    RankingLoss m_loss;
    std::vector<torch::Tensor> m_average;  // the weights' running average; empty when none
};

// The averaged weights in the model for a scope (see TrainingRun::swapAveragedWeights).
class AveragedWeightsInModel {
public:
    explicit AveragedWeightsInModel(TrainingRun& run) : m_run(run) { m_run.swapAveragedWeights(); }
    ~AveragedWeightsInModel() { m_run.swapAveragedWeights(); }
    AveragedWeightsInModel(const AveragedWeightsInModel&) = delete;
    AveragedWeightsInModel& operator=(const AveragedWeightsInModel&) = delete;

private:
    TrainingRun& m_run;
};

}  // namespace tpg::nn
