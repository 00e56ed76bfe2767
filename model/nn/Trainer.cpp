#include "Trainer.h"

#include <chrono>
#include <filesystem>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <tuple>

#include "DataParallelTraining.h"
#include "TrainingLog.h"
#include "TrainingRun.h"
#include "io/Error.h"

namespace tpg::nn {

namespace {

using Clock = std::chrono::steady_clock;

// The validation of the epoch a model file keeps; empty when it cannot be read (the run's own
// messages then say why).
ValidationSummary keptValidation(const std::string& modelPath) {
    try {
        return readModelInfo(modelPath).validation;
    } catch (const FormatError&) {
        return {};
    }
}

void checkSettings(const TrainSettings& st) {
    if (st.outPath.empty()) throw FormatError("train: no output model path given");
    if (st.configsPerStep < 2) throw FormatError("train: configs per step must be at least 2");
    if (st.epochs < 0) throw FormatError("train: epochs must be 0 (no limit) or more");
    if (!(st.minutes >= 0 && std::isfinite(st.minutes)))
        throw FormatError("train: minutes must be a finite number, 0 (no budget) or more");
    if (st.validConfigsPerGraph < 0)
        throw FormatError("train: valid configs per graph must be 0 (all) or more");
    if (st.model.hidden > limits::kMaxHidden)
        throw FormatError("train: a network at most " + std::to_string(limits::kMaxHidden) +
                          " wide, got " + std::to_string(st.model.hidden));
    if (st.model.layers > limits::kMaxLayers)
        throw FormatError("train: a network at most " + std::to_string(limits::kMaxLayers) +
                          " layers deep, got " + std::to_string(st.model.layers));
    if (st.patience < 0) throw FormatError("train: patience must be 0 (auto) or more epochs");
    if (st.epochs == 0 && st.minutes == 0)
        throw FormatError("train: give a time budget (minutes) or an epoch limit");
    if (!std::isfinite(st.weightDecay) || st.weightDecay < 0)
        throw FormatError("train: weight decay must be a finite number, 0 or more");
    if (!(st.dropout >= 0 && st.dropout < 1)) throw FormatError("train: dropout must lie in [0, 1)");
    if (!std::isfinite(st.listMleWeight) || st.listMleWeight < 0)
        throw FormatError("train: the ListMLE weight must be a finite number, 0 or more");
    if (st.listMleWeight > 0 && st.loss != LossKind::PairwiseHinge && st.loss != LossKind::Auto)
        throw FormatError(std::string("train: the ListMLE weight adds ListMLE to the pairwise hinge; the loss is ") +
                          lossName(st.loss) + ", not hinge");
    if (!(st.temperature > 0 && std::isfinite(st.temperature)))
        throw FormatError("train: the logistic loss's temperature must be a finite number above 0");
    if (!(st.learningRate > 0 && std::isfinite(st.learningRate)))
        throw FormatError("train: the learning rate must be a finite number above 0");
    if (!(st.margin >= 0 && std::isfinite(st.margin)))
        throw FormatError("train: the hinge's margin must be a finite number, 0 or more");
    if (st.threads < 0) throw FormatError("train: threads must be 0 (all cores) or more");
    if (st.graphsPerStep < 0)
        throw FormatError("train: graphs per step must be 0 (the kind's default) or more");
    if (st.maxTrainGraphs < 0)
        throw FormatError("train: the train graph limit must be 0 (all) or more");
    if (!(st.weightAverage >= 0 && st.weightAverage < 1))
        throw FormatError("train: the weight average's decay must lie in [0, 1)");
    if (st.checkpointSeconds < 0) throw FormatError("train: checkpoint seconds must be 0 (every step) or more");
    if (st.heldOutConfigFraction < 0 || st.heldOutConfigFraction >= 1)
        throw FormatError("train: the held-out config fraction must lie in [0, 1)");
}

// The run's clock: wall time (including runs this one resumes), the budget, throughput, ETA.
class RunClock {
public:
    RunClock(const TrainSettings& st, double resumedSeconds)
        : m_budget(st.minutes * 60.0), m_epochs(st.epochs), m_resumed(resumedSeconds) {}

    double elapsed() const {
        return m_resumed + std::chrono::duration<double>(Clock::now() - m_start).count() - m_paused;
    }
    // True when another step (and the validation that must follow it) would overrun the budget.
    bool outOfTime() const { return m_budget > 0 && elapsed() + m_lastValidation >= m_budget; }
    // Share of the run done, for the learning-rate schedule: by steps or time, whichever leads.
    double fraction(int64_t globalStep, int64_t stepsPerEpoch) const {
        double f = m_budget > 0 ? elapsed() / m_budget : 0.0;
        if (m_epochs > 0)
            f = std::max(f, static_cast<double>(globalStep) /
                                static_cast<double>(std::max<int64_t>(1, stepsPerEpoch * m_epochs)));
        return std::min(1.0, f);
    }
    void addTraining(double seconds, int64_t configs) {
        m_trainSeconds += seconds;
        m_configs += configs;
        m_steps += 1;
    }
    void setValidationSeconds(double s) { m_lastValidation = s; }
    void addPaused(double seconds) { m_paused += seconds; }
    int64_t configs() const { return m_configs; }
    double configsPerSecond() const { return m_trainSeconds > 0 ? static_cast<double>(m_configs) / m_trainSeconds : 0.0; }
    double eta(int epoch, int64_t step, int64_t stepsPerEpoch) const {
        double eta = -1;
        if (m_budget > 0) eta = std::max(0.0, m_budget - elapsed());
        if (m_epochs > 0 && m_steps > 0) {
            const double perStep = m_trainSeconds / static_cast<double>(m_steps);
            const double left = static_cast<double>((m_epochs - epoch) * stepsPerEpoch + stepsPerEpoch - step) * perStep +
                                static_cast<double>(m_epochs - epoch + 1) * m_lastValidation;
            eta = eta < 0 ? left : std::min(eta, left);
        }
        return eta;
    }

private:
    Clock::time_point m_start = Clock::now();
    double m_budget;
    int m_epochs;
    double m_resumed;
    double m_lastValidation = 0;
    double m_paused = 0;
    double m_trainSeconds = 0;
    int64_t m_configs = 0;
    int64_t m_steps = 0;
};

// Where an epoch starts: step 0 with a fresh sampler, or a mid-epoch checkpoint's step, sampler
// state and loss so far (the steps after a checkpoint are redone exactly as they would have run).
struct EpochCursor {
    int64_t nextStep = 0;
    std::mt19937_64 rng;
    double lossSum = 0;
    int64_t lossCount = 0;
};

// Rank r > 0 of a data-parallel run samples configs from a stream of its own (rank 0's is the
// single-process one, so a checkpoint resumes it whatever the world size).
EpochCursor startEpoch(RunState& state, const TrainSettings& st, int epoch, int rank) {
    EpochCursor c;
    c.rng.seed(st.seed * 1000003ull + static_cast<uint64_t>(epoch) * 7919ull + 1);
    if (state.stepInEpoch > 0) {
        std::istringstream in(state.rngState);
        in >> c.rng;
        c.nextStep = state.stepInEpoch;
        c.lossSum = state.epochLossSum;
        c.lossCount = state.epochLossCount;
    }
    if (rank > 0) c.rng.seed(c.rng() ^ (static_cast<uint64_t>(rank) * 0x9e3779b97f4a7c15ull));
    state.stepInEpoch = 0;
    return c;
}

// Puts the cursor into the run state so the next checkpoint resumes inside this epoch.
void keepCursor(RunState& state, const EpochCursor& c) {
    std::ostringstream out;
    out << c.rng;
    state.stepInEpoch = c.nextStep;
    state.rngState = out.str();
    state.epochLossSum = c.lossSum;
    state.epochLossCount = c.lossCount;
}

std::string describeTraining(const TrainingData& d, const TrainSettings& st) {
    if (!st.trainFile.empty())
        return st.trainFile + " (" + std::to_string(static_cast<int>(std::lround((1 - st.heldOutConfigFraction) * 100))) +
               "% of its configs)";
    std::string s = d.info.collection + ": " + std::to_string(d.train.size()) + " train graphs, ";
    return s + (d.validateOnHeldOutConfigs ? "held-out configs" : std::to_string(d.valid.size()) + " valid graphs");
}

const char* endReason(const TrainResult& r) {
    return r.cancelled ? "cancelled" : r.timedOut ? "time budget reached" : r.earlyStopped ? "stopped early" : "done";
}

}  // namespace

const char* productsName(TrainSettings::Products p) {
    switch (p) {
        case TrainSettings::Products::Float32: return "float";
        case TrainSettings::Products::BFloat16: return "bfloat16";
        default: return "auto";
    }
}

bool parseProducts(const std::string& s, TrainSettings::Products& out) {
    for (auto p : {TrainSettings::Products::Auto, TrainSettings::Products::Float32, TrainSettings::Products::BFloat16})
        if (s == productsName(p)) {
            out = p;
            return true;
        }
    return false;
}

const char* selectionName(TrainSettings::Selection s) {
    return s == TrainSettings::Selection::Kendall ? "kendall" : "score";
}

bool parseSelection(const std::string& s, TrainSettings::Selection& out) {
    for (auto v : {TrainSettings::Selection::Score, TrainSettings::Selection::Kendall})
        if (s == selectionName(v)) {
            out = v;
            return true;
        }
    return false;
}

double selectedFigure(double score, double kendall, TrainSettings::Selection s) {
    return s == TrainSettings::Selection::Kendall ? kendall : score;
}

bool isValidationGain(const ValidationSummary& v, double keptScore, double keptKendall,
                      TrainSettings::Selection s) {
    const double value = selectedFigure(v.score, v.kendall, s),
                 kept = selectedFigure(keptScore, keptKendall, s);
    const bool tieToKendall = std::abs(value - kept) <= limits::kValidationGain &&
                              v.kendall > keptKendall + limits::kValidationGain;
    return value > kept + limits::kValidationGain || tieToKendall;
}

int effectivePatience(const TrainSettings& st) {
    if (st.patience > 0) return st.patience;
    return st.schedule == LearningRateSchedule::Constant ? limits::kConstantRatePatience
                                                         : std::numeric_limits<int>::max();
}

void PauseGate::pause() {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_paused = true;
}

void PauseGate::resume() {
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_paused = false;
    }
    m_changed.notify_all();
}

bool PauseGate::paused() const {
    const std::lock_guard<std::mutex> lock(m_mutex);
    return m_paused;
}

double PauseGate::waitWhilePaused(const CancelToken* cancel) {
    const auto start = Clock::now();
    std::unique_lock<std::mutex> lock(m_mutex);
    // Wakes every 50 ms to notice a cancel (CancelToken has no condition variable to wait on).
    while (m_paused && !(cancel && cancel->cancelled()))
        m_changed.wait_for(lock, std::chrono::milliseconds(50));
    return std::chrono::duration<double>(Clock::now() - start).count();
}

namespace {

// The training loop: epochs of steps, each epoch validated and recorded, checkpoints between.
// It reports through `progress`, writes the JSON-lines log and keeps the state resumable.
class TrainingLoop {
public:
    TrainingLoop(const TrainSettings& st, const TrainCallback& callback, const CancelToken* cancel, PauseGate* pause,
                 DataParallelGroup* group)
        : m_st(st), m_callback(callback), m_cancel(cancel), m_pause(pause) {
        m_progress.epochs = st.epochs;
        if (group) m_dp = std::make_unique<DataParallelTraining>(*group);
    }

    TrainResult run() {
        if (m_st.threads > 0) torch::set_num_threads(m_st.threads);
        torch::manual_seed(m_st.seed);
        TrainingData data;
        try {
            data = loadTrainingData(m_st, [&](const std::string& m) { report(TrainProgress::Phase::Preparing, m); },
                                    m_cancel);
        } catch (const PreparationCancelled&) {
            m_result.cancelled = true;
            report(TrainProgress::Phase::Finished, "cancelled");
            return m_result;
        }
        m_result.warnings = data.warnings;
        const std::string trainedOn = describeTraining(data, m_st);
        m_run = std::make_unique<TrainingRun>(m_st, std::move(data));
        if (m_run->bfloat16Products()) report(TrainProgress::Phase::Preparing, "training products in bfloat16");
        if (m_st.loss == LossKind::Auto)  // the model info holds the loss auto resolved to
            report(TrainProgress::Phase::Preparing, "loss: " + m_run->data().info.loss + " (auto)");
        std::string why;
        const bool resumed = m_run->resume(why);
        if (m_dp) m_dp->startAlike(*m_run);
        RunState& state = m_run->state();
        if (resumed)
            report(TrainProgress::Phase::Preparing, "resuming after " + std::to_string(state.globalStep) + " steps (epoch " +
                                                        std::to_string(state.epoch + 1) + ")");
        else if (!why.empty())
            m_result.warnings.push_back(why);
        if (!m_st.logPath.empty() && leader())
            m_log = std::make_unique<TrainingLogWriter>(m_st.logPath, m_st, m_run->data().info.kind, trainedOn,
                                                        resumed ? state.globalStep : -1);
        m_clock = std::make_unique<RunClock>(m_st, state.elapsed);
        m_lastCheckpoint = Clock::now();
        const int perStep = graphsPerStep(m_st, m_run->data().info.kind);
        for (int epoch = state.epoch + 1; m_st.epochs == 0 || epoch <= m_st.epochs; ++epoch)
            if (!runEpoch(epoch, perStep)) break;
        return finish();
    }

private:
    bool cancelled() const { return m_cancel && m_cancel->cancelled(); }
    // Rank 0 of a data-parallel run (or the only process) writes and reports.
    bool leader() const { return !m_dp || m_dp->rank() == 0; }
    int workers() const { return m_dp ? m_dp->workers() : 1; }

    // This process's view of the learning rate (a data-parallel step takes rank 0's).
    double localLearningRate(int64_t stepsPerEpoch) const {
        return scheduledLearningRate(m_st.schedule, m_st.learningRate,
                                     m_clock->fraction(m_run->state().globalStep, stepsPerEpoch));
    }

    // Whether to stop before the next step and the learning rate to take it with: every replica
    // decides alike (one rank out of time or cancelled stops them all).
    bool stopBeforeStep(int64_t stepsPerEpoch, bool& outOfTime, double& learningRate) {
        outOfTime = m_clock->outOfTime();
        learningRate = localLearningRate(stepsPerEpoch);
        bool stop = cancelled() || outOfTime;
        if (m_dp) std::tie(stop, learningRate) = m_dp->agree(stop, learningRate);
        if (stop && !cancelled()) outOfTime = true;
        return stop;
    }

    StepMatching stepMatching() const {
        using M = TrainSettings::Matching;
        const bool on = m_st.sizeMatchedSteps == M::On || (m_st.sizeMatchedSteps == M::Auto && workers() > 1);
        return on ? StepMatching{workers(), m_run->data().trainStepCosts} : StepMatching{};
    }

    void report(TrainProgress::Phase phase, const std::string& message = {}) {
        m_progress.phase = phase;
        m_progress.message = message;
        if (m_callback && leader()) m_callback(m_progress);
    }

    void checkpoint() {
        if (m_log) m_log->flush();  // the log must hold every step the state has
        m_run->checkpoint(m_clock->elapsed());
        m_lastCheckpoint = Clock::now();
        report(TrainProgress::Phase::Checkpointed);
    }

    bool checkpointDue() const {
        return std::chrono::duration<double>(Clock::now() - m_lastCheckpoint).count() >= m_st.checkpointSeconds;
    }

    // One epoch; false when the run ends with it. A step takes one plan step per worker.
    bool runEpoch(int epoch, int perStep) {
        RunState& state = m_run->state();
        bool outOfTime = false;
        double learningRate = 0;
        if (stopBeforeStep(1, outOfTime, learningRate)) {
            m_result.timedOut = outOfTime;
            return false;
        }
        const EpochPlan plan = planEpoch(m_run->data().trainConfigCounts, m_st, perStep, epoch, stepMatching());
        const auto planSteps = static_cast<int64_t>(plan.steps.size());
        const int64_t steps = (planSteps + workers() - 1) / workers();
        EpochCursor cursor = startEpoch(state, m_st, epoch, m_dp ? m_dp->rank() : 0);
        m_progress.epoch = epoch;
        m_progress.steps = steps;
        const int64_t firstStep = cursor.nextStep;
        bool stopAgreed = false;  // data-parallel: decided in the last step's all-reduce
        while (cursor.nextStep < planSteps) {
            if (m_pause) m_clock->addPaused(m_pause->waitWhilePaused(m_cancel));
            if (m_dp ? stopAgreed : stopBeforeStep(steps, outOfTime, learningRate)) {
                outOfTime = outOfTime || !cancelled();
                break;
            }
            if (m_dp) learningRate = localLearningRate(steps);
            stopAgreed = trainStep(plan, cursor, epoch, steps, learningRate);
            if (leader() && checkpointDue()) {
                keepCursor(state, cursor);
                checkpoint();
            }
        }
        if (cancelled()) {
            keepCursor(state, cursor);
            if (leader()) checkpoint();
            return false;
        }
        if (outOfTime) m_result.timedOut = true;
        if (outOfTime && cursor.nextStep == firstStep) return false;  // nothing new to validate
        // A whole epoch without one graph whose configurations differ in runtime: every later one
        // would be the same, and the run had spent its budget so (a train split of zeros). The
        // count is the all-reduced one on every data-parallel rank, so all ranks stop here alike.
        if (!outOfTime && firstStep == 0 && cursor.lossCount == 0)
            throw NothingToLearn(
                "train: no training graph has configurations that differ in runtime, "
                "nothing to learn (runtimes all zero, as in a test split?)");
        if (!validateEpoch(epoch, cursor)) return false;
        return state.badEpochs < effectivePatience(m_st) ? !outOfTime : (m_result.earlyStopped = true, false);
    }

    // This rank's graphs of the step at the cursor, and the step's graph count over all ranks.
    std::pair<std::vector<size_t>, double> stepShare(const EpochPlan& plan, int64_t first) const {
        if (!m_dp) {
            const auto& files = plan.steps[static_cast<size_t>(first)];
            return {files, static_cast<double>(files.size())};
        }
        DataParallelTraining::StepShare s = m_dp->share(plan, first);
        return {std::move(s.files), s.graphs};
    }

    // True when a data-parallel rank asked to stop after this step (the budget ran out, or Stop).
    bool trainStep(const EpochPlan& plan, EpochCursor& cursor, int epoch, int64_t steps, double lr) {
        const auto stepStart = Clock::now();
        RunState& state = m_run->state();
        const std::mt19937_64 rngBefore = cursor.rng;
        const auto [files, share] = stepShare(plan, cursor.nextStep);
        // A replica cannot leave a step half done (the others wait in its all-reduce): data-parallel
        // steps end whole and the cancel acts before the next one.
        StepTally tally = m_run->accumulateGradients(files, cursor.rng, share, m_dp ? nullptr : m_cancel);
        if (tally.cancelled) {  // stopped mid-step: the checkpoint resumes before this step
            cursor.rng = rngBefore;
            return false;
        }
        const bool stop = m_dp && m_dp->allReduceGradients(*m_run, tally, cancelled() || m_clock->outOfTime(), lr);
        const double loss = tally.graphs > 0 ? tally.lossSum / static_cast<double>(tally.graphs)
                                             : std::numeric_limits<double>::quiet_NaN();
        if (tally.graphs > 0) {
            m_run->applyGradients(lr);
            cursor.lossSum += loss;
            ++cursor.lossCount;
        }
        m_clock->addTraining(std::chrono::duration<double>(Clock::now() - stepStart).count(), tally.configs);
        cursor.nextStep = std::min<int64_t>(static_cast<int64_t>(plan.steps.size()), cursor.nextStep + workers());
        TrainProgress& p = m_progress;
        p.step = (cursor.nextStep + workers() - 1) / workers();
        p.globalStep = state.globalStep;
        p.stepLoss = loss;
        p.loss = cursor.lossCount ? cursor.lossSum / static_cast<double>(cursor.lossCount) : 0.0;
        p.learningRate = lr;
        p.elapsedSeconds = m_clock->elapsed();
        p.configsSeen = m_clock->configs();
        p.configsPerSecond = m_clock->configsPerSecond();
        p.etaSeconds = m_clock->eta(epoch, p.step, steps);
        report(TrainProgress::Phase::Training);
        if (m_log && !std::isnan(loss))
            m_log->step({state.globalStep, epoch, loss, lr, p.elapsedSeconds, p.configsPerSecond});
        return stop;
    }

    // Validates, keeps the best model, logs and checkpoints the epoch; false when cancelled.
    bool validateEpoch(int epoch, EpochCursor& cursor) {
        RunState& state = m_run->state();
        const auto validationStart = Clock::now();
        ValidationSummary v;
        {
            const AveragedWeightsInModel averaged(*m_run);  // what validates is what is saved
            const MetricSums sums = m_run->validate(
                [&](int64_t done, int64_t total) {
                    m_progress.step = done;
                    m_progress.steps = total;
                    m_progress.elapsedSeconds = m_clock->elapsed();
                    report(TrainProgress::Phase::Validating);
                },
                m_dp ? nullptr : m_cancel, m_dp ? m_dp->rank() : 0, workers());
            const Collection kind = m_run->data().info.kind;
            v = m_dp ? m_dp->reduceValidation(sums, kind) : sums.summary(kind);
            if (!cancelled()) m_progress.improved = m_run->recordEpoch(epoch, v, m_clock->elapsed(), leader());
        }
        m_clock->setValidationSeconds(std::chrono::duration<double>(Clock::now() - validationStart).count());
        if (cancelled()) {
            keepCursor(state, cursor);
            if (leader()) checkpoint();
            return false;
        }
        m_result.epochsRun = epoch;
        state.stepInEpoch = 0;  // the epoch's checkpoint below lies between epochs
        if (m_dp) m_dp->checkReplicasIdentical(*m_run, epoch);
        if (m_progress.improved) {
            m_result.saved = true;
            m_result.best = v;
        }
        m_progress.validation = v;
        m_progress.elapsedSeconds = m_clock->elapsed();
        m_progress.loss = cursor.lossCount ? cursor.lossSum / static_cast<double>(cursor.lossCount) : 0.0;
        if (m_log) m_log->epoch({epoch, state.globalStep, m_progress.loss, v, m_progress.improved, m_progress.elapsedSeconds});
        if (leader()) checkpoint();
        report(TrainProgress::Phase::EpochDone);
        return true;
    }

    TrainResult finish() {
        m_result.cancelled = cancelled();
        m_result.seconds = m_clock->elapsed();
        m_result.steps = m_run->state().globalStep;
        if (!m_result.saved && m_run->state().epoch > 0 && std::filesystem::exists(m_st.outPath)) {
            m_result.saved = true;  // a resumed run whose kept epoch came before the resume
            m_result.best = keptValidation(m_st.outPath);
        }
        if (m_dp) {
            m_dp->barrier();  // rank 0 hosts the store: it leaves last
            m_result.workers = m_dp->workers();
            m_result.allReduceSeconds = m_dp->allReduceSeconds();
            m_result.allReduces = m_dp->allReduces();
            m_result.allReduceSettledSeconds = m_dp->settledSeconds();
            m_result.allReduceSettledSteps = m_dp->settledSteps();
            m_result.replicaChecks = m_dp->replicaChecks();
        }
        if (m_log) m_log->end(endReason(m_result), m_result.steps, m_result.seconds);
        report(TrainProgress::Phase::Finished, endReason(m_result));
        return m_result;
    }

    const TrainSettings& m_st;
    const TrainCallback& m_callback;
    const CancelToken* m_cancel;
    PauseGate* m_pause;
    TrainProgress m_progress;
    TrainResult m_result;
    std::unique_ptr<DataParallelTraining> m_dp;
    std::unique_ptr<TrainingRun> m_run;
    std::unique_ptr<TrainingLogWriter> m_log;
    std::unique_ptr<RunClock> m_clock;
    Clock::time_point m_lastCheckpoint;
};

}  // namespace

TrainResult trainCostModel(const TrainSettings& st, const TrainCallback& callback, const CancelToken* cancel,
                           PauseGate* pause, DataParallelGroup* group) {
    checkSettings(st);
    return TrainingLoop(st, callback, cancel, pause, group).run();
}

}  // namespace tpg::nn
