#include "SageConv.h"

namespace tpg::nn {

SageConvImpl::SageConvImpl(int64_t hidden)
    : update(register_module("update", Dense(3 * hidden, hidden))),
      norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden})))) {}

torch::Tensor SageConvImpl::forward(const torch::Tensor& x, const GraphEdges& edges) {
    // [N, (C,) H]: mean of each consumer's producers, and of each producer's consumers.
    std::vector<int64_t> degreeShape(static_cast<size_t>(x.dim()), 1);
    degreeShape[0] = x.size(0);
    auto fromProducers =
        torch::zeros_like(x).index_add_(0, edges.consumer, x.index_select(0, edges.producer)) *
        edges.invProducerCount.view(degreeShape);
    auto fromConsumers =
        torch::zeros_like(x).index_add_(0, edges.producer, x.index_select(0, edges.consumer)) *
        edges.invConsumerCount.view(degreeShape);
    return x + torch::relu(norm(update(torch::cat({x, fromProducers, fromConsumers}, -1))));
}

}  // namespace tpg::nn
