#include "OnlineFineTuner.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "CostModelImpl.h"
#include "modules/RankingLosses.h"

namespace tpg::nn {

namespace {
// Large enough that a few steps on a few dozen measured rows move the ranking near the search's
// incumbent (3e-4 and 1e-3 barely did: measured on the sample's layout graphs).
constexpr double kLearningRate = 3e-3;
}  // namespace

struct OnlineFineTuner::Optimiser {
    explicit Optimiser(CostModel::Impl& net)
        : parameters(net.module().parameters()), adam(parameters, torch::optim::AdamOptions(kLearningRate)),
          loss(rankingLossOf(net.info)) {}  // what training asked for
    std::vector<torch::Tensor> parameters;
    torch::optim::Adam adam;
    RankingLoss loss;
};

OnlineFineTuner::OnlineFineTuner(const CostModel& base)
    : m_model(CostModel::fromBytes(base.toBytes(), base.label() + " (fine-tuned)")),
      m_optimiser(std::make_unique<Optimiser>(m_model.impl())) {}

OnlineFineTuner::~OnlineFineTuner() = default;

double OnlineFineTuner::train(const TpuGraph& g, const float* rows, const std::vector<double>& runtimes, int steps) {
    const auto count = static_cast<int64_t>(runtimes.size());
    const auto [lo, hi] = std::minmax_element(runtimes.begin(), runtimes.end());
    if (count < 2 || *lo == *hi) return std::numeric_limits<double>::quiet_NaN();
    m_model.requireCompatible(g);
    CostModel::Impl& net = m_model.impl();
    std::lock_guard<std::mutex> lock(net.mutex);
    std::vector<float> target(runtimes.begin(), runtimes.end());
    const torch::Tensor runtime = torch::from_blob(target.data(), {count}, torch::kFloat).clone();
    auto [prepared, tensors] = net.cached(g);
    const ConfigBatch batch = net.batchForRows(*prepared, rows, count);
    net.module().train();
    double last = 0;
    for (int s = 0; s < steps; ++s) {
        m_optimiser->adam.zero_grad();
        torch::Tensor value = m_optimiser->loss(net.forward(*tensors, batch), runtime);
        value.backward();
        torch::nn::utils::clip_grad_norm_(m_optimiser->parameters, 1.0);
        m_optimiser->adam.step();
        last = value.item<double>();
    }
    net.module().eval();
    net.editedState.reset();  // the incremental state was computed with the old weights
    return last;
}

}  // namespace tpg::nn
