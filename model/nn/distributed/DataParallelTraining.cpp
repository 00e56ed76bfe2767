#include "DataParallelTraining.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tpg::nn {

namespace {

uint64_t fnv1a(const void* data, size_t size, uint64_t h = 1469598103934665603ull) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
    return h;
}

uint64_t weightsHash(const std::vector<torch::Tensor>& parameters) {
    uint64_t h = fnv1a(nullptr, 0);
    for (const auto& p : parameters) {
        const torch::Tensor t = p.detach().contiguous();
        h = fnv1a(t.data_ptr(), static_cast<size_t>(t.numel() * t.element_size()), h);
    }
    return h;
}

// What must match for replicas to train one model: widths, statistics, settings; not the data
// folder's path, which may differ between machines.
uint64_t setupHash(ModelInfo info) {
    info.dataDescription.clear();
    const std::string json = modelInfoToJson(info);
    return fnv1a(json.data(), json.size());
}

}  // namespace

void DataParallelTraining::startAlike(TrainingRun& run) {
    const std::string who = "rank " + std::to_string(rank());
    if (!m_group.sameOnAllRanks(setupHash(run.data().info), "the setup check"))
        throw DistributedError(who + ": the workers read different data or options (feature widths, statistics "
                                     "or network settings differ): every worker needs the same dataset and "
                                     "arguments");
    ModelFileContents state;
    if (rank() == 0) state = run.stateContents();
    m_group.broadcast(state.json, "the start-state broadcast");
    m_group.broadcast(state.weights, "the start-state broadcast");
    std::string why;
    if (rank() != 0 && !run.loadStateContents(state, "rank 0's start state", why))
        throw DistributedError(who + ": " + why);
}

DataParallelTraining::StepShare DataParallelTraining::share(const EpochPlan& plan, int64_t first) const {
    StepShare s;
    const auto steps = static_cast<int64_t>(plan.steps.size());
    for (int64_t i = first; i < std::min(steps, first + workers()); ++i)
        s.graphs += static_cast<double>(plan.steps[static_cast<size_t>(i)].size());
    if (first + rank() < steps) s.files = plan.steps[static_cast<size_t>(first + rank())];
    return s;
}

std::pair<bool, double> DataParallelTraining::agree(bool stop, double learningRate) {
    double v[2] = {stop ? 1.0 : 0.0, rank() == 0 ? learningRate : 0.0};
    m_group.allReduceSum(v, 2, "the step agreement");
    return {v[0] > 0, v[1]};
}

bool DataParallelTraining::allReduceGradients(TrainingRun& run, StepTally& tally, bool stopAfter,
                                              double& learningRate) {
    const auto begin = std::chrono::steady_clock::now();
    std::vector<torch::Tensor>& params = run.parameters();
    // Layout: every gradient, then per parameter how many ranks have one (a parameter without a
    // gradient anywhere must stay without: Adam skips it), then the tally, then each rank's time
    // in the last all-reduce (in its own slot).
    std::vector<torch::Tensor> parts;
    std::vector<float> defined;
    for (const auto& p : params) {
        const bool has = p.grad().defined();
        parts.push_back(has ? p.grad().reshape({-1}) : torch::zeros({p.numel()}));
        defined.push_back(has ? 1.0f : 0.0f);
    }
    // Rank 0's rate as a float pair (high + rest) so the sum gives it back to double precision.
    const auto rateHigh = static_cast<float>(rank() == 0 ? learningRate : 0.0);
    const auto rateRest = static_cast<float>(rank() == 0 ? learningRate - static_cast<double>(rateHigh) : 0.0);
    defined.insert(defined.end(), {static_cast<float>(tally.lossSum), static_cast<float>(tally.graphs),
                                   static_cast<float>(tally.configs), stopAfter ? 1.0f : 0.0f, rateHigh, rateRest});
    const size_t timings = defined.size();
    defined.resize(timings + static_cast<size_t>(workers()), 0.0f);
    defined[timings + static_cast<size_t>(rank())] = static_cast<float>(m_lastAllReduceSeconds);
    parts.push_back(torch::from_blob(defined.data(), {static_cast<int64_t>(defined.size())}, torch::kFloat));
    torch::Tensor flat = torch::cat(parts).contiguous();
    m_group.allReduceSum(flat.data_ptr<float>(), flat.numel(), "the gradient all-reduce");
    torch::NoGradGuard noGrad;
    int64_t offset = 0;
    const float* flags = flat.data_ptr<float>() + (flat.numel() - static_cast<int64_t>(defined.size()));
    for (size_t i = 0; i < params.size(); ++i) {
        torch::Tensor& p = params[i];
        const torch::Tensor sum = flat.slice(0, offset, offset + p.numel()).view_as(p);
        offset += p.numel();
        if (flags[i] == 0) continue;
        if (p.grad().defined())
            p.mutable_grad().copy_(sum);
        else
            p.mutable_grad() = sum.clone();
    }
    const float* t = flags + params.size();
    tally.lossSum = t[0];
    tally.graphs = std::llround(t[1]);
    tally.configs = std::llround(t[2]);
    learningRate = static_cast<double>(t[4]) + static_cast<double>(t[5]);
    const float* lastTimes = flags + timings;
    if (m_allReduces > 0) m_settledSeconds += *std::min_element(lastTimes, lastTimes + workers());
    m_lastAllReduceSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    m_allReduceSeconds += m_lastAllReduceSeconds;
    ++m_allReduces;
    return t[3] > 0;
}

ValidationSummary DataParallelTraining::reduceValidation(const MetricSums& local, Collection kind) {
    std::vector<double> v = local.flat();
    m_group.allReduceSum(v.data(), static_cast<int64_t>(v.size()), "the validation all-reduce");
    return MetricSums::fromFlat(v).summary(kind);
}

void DataParallelTraining::checkReplicasIdentical(const TrainingRun& run, int epoch) {
    if (!m_group.sameOnAllRanks(weightsHash(run.parameters()), "the replica check"))
        throw DistributedError("rank " + std::to_string(rank()) + ": after epoch " + std::to_string(epoch) +
                               " the replicas' weights differ: the data-parallel step lost determinism");
    ++m_replicaChecks;
}

}  // namespace tpg::nn
