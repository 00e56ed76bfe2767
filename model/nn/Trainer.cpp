#include "Trainer.h"

#include <chrono>
#include <filesystem>
#include <cmath>
#include <random>

#include "TrainingRun.h"
#include "io/Error.h"

namespace tpg::nn {

namespace {

using Clock = std::chrono::steady_clock;

void checkSettings(const TrainSettings& st) {
    if (st.outPath.empty()) throw FormatError("train: no output model path given");
    if (st.configsPerStep < 2) throw FormatError("train: configs per step must be at least 2");
    if (st.epochs < 0) throw FormatError("train: epochs must be 0 (no limit) or more");
    if (st.minutes < 0) throw FormatError("train: minutes must be 0 (no budget) or more");
    if (st.epochs == 0 && st.minutes == 0)
        throw FormatError("train: give a time budget (minutes) or an epoch limit");
}

// The run's clock: wall time (including runs this one resumes), the budget, throughput, ETA.
class RunClock {
public:
    RunClock(const TrainSettings& st, double resumedSeconds)
        : m_budget(st.minutes * 60.0), m_epochs(st.epochs), m_resumed(resumedSeconds) {}

    double elapsed() const {
        return m_resumed + std::chrono::duration<double>(Clock::now() - m_start).count();
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
    double m_trainSeconds = 0;
    int64_t m_configs = 0;
    int64_t m_steps = 0;
};

double cosineLearningRate(double base, double fraction) {
    return base * (0.05 + 0.95 * 0.5 * (1.0 + std::cos(M_PI * fraction)));  // down to 5%
}

}  // namespace

TrainResult trainCostModel(const TrainSettings& st, const TrainCallback& callback,
                           const CancelToken* cancel) {
    checkSettings(st);
    TrainResult result;
    TrainProgress progress;
    progress.epochs = st.epochs;
    auto report = [&](TrainProgress::Phase phase, const std::string& message = {}) {
        progress.phase = phase;
        progress.message = message;
        if (callback) callback(progress);
    };
    auto cancelled = [&] { return cancel && cancel->cancelled(); };
    if (st.threads > 0) torch::set_num_threads(st.threads);
    torch::manual_seed(st.seed);

    TrainingData data = loadTrainingData(st, [&](const std::string& m) { report(TrainProgress::Phase::Preparing, m); });
    result.warnings = data.warnings;
    TrainingRun run(st, std::move(data));
    std::string why;
    if (run.resume(why))
        report(TrainProgress::Phase::Preparing, "resuming after epoch " + std::to_string(run.state().epoch));
    else if (!why.empty())
        result.warnings.push_back(why);
    RunState& state = run.state();
    RunClock clock(st, state.elapsed);
    const int perStep = graphsPerStep(st, run.data().info.kind);

    for (int epoch = state.epoch + 1; st.epochs == 0 || epoch <= st.epochs; ++epoch) {
        if (cancelled()) break;
        if (clock.outOfTime()) {
            result.timedOut = true;
            break;
        }
        const EpochPlan plan = planEpoch(run.data().trainConfigCounts, st, perStep, epoch);
        const auto stepsPerEpoch = static_cast<int64_t>(plan.steps.size());
        std::mt19937_64 rng(st.seed * 1000003ull + static_cast<uint64_t>(epoch) * 7919ull + 1);
        progress.epoch = epoch;
        progress.steps = stepsPerEpoch;
        double lossSum = 0;
        int64_t lossCount = 0;
        bool outOfTime = false;
        int64_t stepsDone = 0;
        for (int64_t step = 0; step < stepsPerEpoch && !cancelled(); ++step) {
            if ((outOfTime = clock.outOfTime())) break;
            const auto stepStart = Clock::now();
            const double lr = cosineLearningRate(st.learningRate, clock.fraction(state.globalStep, stepsPerEpoch));
            int64_t configs = 0;
            const double loss = run.accumulateGradients(plan.steps[static_cast<size_t>(step)], rng, configs);
            if (!std::isnan(loss)) {
                run.applyGradients(lr);
                lossSum += loss;
                ++lossCount;
            }
            clock.addTraining(std::chrono::duration<double>(Clock::now() - stepStart).count(), configs);
            progress.step = step + 1;
            progress.loss = lossCount ? lossSum / static_cast<double>(lossCount) : 0.0;
            progress.learningRate = lr;
            progress.elapsedSeconds = clock.elapsed();
            progress.configsSeen = clock.configs();
            progress.configsPerSecond = clock.configsPerSecond();
            progress.etaSeconds = clock.eta(epoch, step + 1, stepsPerEpoch);
            report(TrainProgress::Phase::Training);
            stepsDone = step + 1;
        }
        if (cancelled()) break;
        if (outOfTime) result.timedOut = true;
        if (stepsDone == 0 && outOfTime) break;  // nothing new to validate

        const auto validationStart = Clock::now();
        const ValidationSummary v = run.validate(
            [&](int64_t done, int64_t total) {
                progress.step = done;
                progress.steps = total;
                progress.elapsedSeconds = clock.elapsed();
                report(TrainProgress::Phase::Validating);
            },
            cancel);
        clock.setValidationSeconds(std::chrono::duration<double>(Clock::now() - validationStart).count());
        if (cancelled()) break;
        result.epochsRun = epoch;
        progress.improved = run.recordEpoch(epoch, v, clock.elapsed());
        if (progress.improved) {
            result.saved = true;
            result.best = v;
        }
        progress.validation = v;
        progress.elapsedSeconds = clock.elapsed();
        report(TrainProgress::Phase::EpochDone);
        if (state.badEpochs >= st.patience) {
            result.earlyStopped = true;
            break;
        }
        if (outOfTime) break;
    }
    result.cancelled = cancelled();
    result.seconds = clock.elapsed();
    if (!result.saved && state.epoch > 0 && std::filesystem::exists(st.outPath))
        result.saved = true;  // resumed run
    report(TrainProgress::Phase::Finished, result.cancelled      ? "cancelled"
                                           : result.timedOut     ? "time budget reached"
                                           : result.earlyStopped ? "stopped early"
                                                                 : "done");
    return result;
}

}  // namespace tpg::nn
