#include "RankingLosses.h"

namespace tpg::nn {

torch::Tensor PairwiseHingeLossImpl::forward(const torch::Tensor& predicted,
                                             const torch::Tensor& runtime) {
    auto slower = runtime.unsqueeze(0) > runtime.unsqueeze(1);   // [C, C]: [i][j] = t_j > t_i
    auto gap = predicted.unsqueeze(0) - predicted.unsqueeze(1);  // [C, C]: p_j - p_i
    auto hinge = torch::relu(margin - gap) * slower.to(predicted.dtype());
    return hinge.sum() / slower.sum().clamp_min(1).to(predicted.dtype());
}

torch::Tensor PairwiseLogisticLossImpl::forward(const torch::Tensor& predicted,
                                                const torch::Tensor& runtime) {
    auto slower = (runtime.unsqueeze(0) > runtime.unsqueeze(1)).to(predicted.dtype());  // [C, C]
    auto gap = predicted.unsqueeze(0) - predicted.unsqueeze(1);                           // [C, C]
    auto loss = torch::softplus(-gap / temperature) * slower;
    return loss.sum() / slower.sum().clamp_min(1);
}

torch::Tensor ListMleLossImpl::forward(const torch::Tensor& predicted,
                                       const torch::Tensor& runtime) {
    auto order = std::get<1>(runtime.sort(0));         // fastest first
    auto utility = -predicted.index_select(0, order);  // [C]
    // log sum_{k >= i} exp(u_k), i.e. a reversed cumulative logsumexp.
    auto tailLogSum = torch::logcumsumexp(utility.flip(0), 0).flip(0);
    return (tailLogSum - utility).mean();
}

torch::Tensor LogRuntimeMseLossImpl::forward(const torch::Tensor& predicted,
                                             const torch::Tensor& runtime) {
    auto target = runtime.log();
    return torch::mse_loss(predicted - predicted.mean(), target - target.mean());
}

RankingLoss makeRankingLoss(LossKind kind, double margin, double temperature, double listMleWeight) {
    switch (kind) {
        case LossKind::ListMle:
            return [loss = ListMleLoss()](auto& p, auto& r) mutable { return loss(p, r); };
        case LossKind::LogRuntimeMse:
            return [loss = LogRuntimeMseLoss()](auto& p, auto& r) mutable { return loss(p, r); };
        case LossKind::PairwiseLogistic:
            return [loss = PairwiseLogisticLoss(temperature)](auto& p, auto& r) mutable { return loss(p, r); };
        default: break;
    }
    PairwiseHingeLoss hinge(margin);
    if (listMleWeight <= 0) return [hinge](auto& p, auto& r) mutable { return hinge(p, r); };
    return [hinge, listMle = ListMleLoss(), listMleWeight](auto& p, auto& r) mutable {
        return hinge(p, r) + listMleWeight * listMle(p, r);
    };
}

RankingLoss rankingLossOf(const ModelInfo& info) {
    LossKind kind = LossKind::PairwiseHinge;
    if (!parseLoss(info.loss, kind) || kind == LossKind::Auto) kind = LossKind::PairwiseHinge;
    return makeRankingLoss(kind, info.margin, info.temperature, info.listMleWeight);
}

}  // namespace tpg::nn
