#pragma once

#include <torch/torch.h>

#include <functional>

#include "ModelInfo.h"

// Losses over the configs of ONE graph. `predicted` holds scores where lower = faster,
// `runtime` the measured (tile: normalised) runtimes, both [C].
namespace tpg::nn {

// Mean over pairs (i, j) with runtime_i < runtime_j of max(0, margin - (pred_j - pred_i)).
// Ties in runtime contribute nothing. -> scalar
struct PairwiseHingeLossImpl : torch::nn::Module {
    explicit PairwiseHingeLossImpl(double margin = 0.1) : margin(margin) {}
    torch::Tensor forward(const torch::Tensor& predicted, const torch::Tensor& runtime);
    double margin;
};
TORCH_MODULE(PairwiseHingeLoss);

// RankNet (Burges et al. 2005): mean over pairs (i, j) with runtime_i < runtime_j of
// log(1 + exp(-(pred_j - pred_i) / temperature)): a smooth pairwise loss whose push on a pair fades
// with its score gap, at a scale set by the temperature, and never stops (the hinge's stops at its
// margin and is the same for every pair inside it). -> scalar
struct PairwiseLogisticLossImpl : torch::nn::Module {
    explicit PairwiseLogisticLossImpl(double temperature = 0.1) : temperature(temperature) {}
    torch::Tensor forward(const torch::Tensor& predicted, const torch::Tensor& runtime);
    double temperature;
};
TORCH_MODULE(PairwiseLogisticLoss);

// ListMLE (Xia et al. 2008): negative log-likelihood of the true order (fastest first) under a
// Plackett-Luce model with utility -predicted. -> scalar (per config)
struct ListMleLossImpl : torch::nn::Module {
    torch::Tensor forward(const torch::Tensor& predicted, const torch::Tensor& runtime);
};
TORCH_MODULE(ListMleLoss);

// MSE between the centred prediction and the centred log runtime (the graph's offset is
// irrelevant to ranking). -> scalar
struct LogRuntimeMseLossImpl : torch::nn::Module {
    torch::Tensor forward(const torch::Tensor& predicted, const torch::Tensor& runtime);
};
TORCH_MODULE(LogRuntimeMseLoss);

// A ranking loss: scores [C], runtimes [C] -> scalar.
using RankingLoss = std::function<torch::Tensor(const torch::Tensor&, const torch::Tensor&)>;

// The loss `kind` (resolved, not Auto) with its parameters, as training and fine-tuning use it; the
// hinge with a ListMLE weight W is the hinge plus W x ListMLE.
RankingLoss makeRankingLoss(LossKind kind, double margin, double temperature, double listMleWeight);
// The loss a model's info records, resolved with its parameters: what a run trains and `tune`
// fine-tunes with (a name this build does not know: the pairwise hinge).
RankingLoss rankingLossOf(const ModelInfo& info);

}  // namespace tpg::nn
