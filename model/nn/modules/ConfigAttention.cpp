#include "ConfigAttention.h"

namespace tpg::nn {

ConfigAttentionImpl::ConfigAttentionImpl(int64_t dim, int64_t heads)
    : norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})))),
      attention(register_module(
          "attention",
          torch::nn::MultiheadAttention(torch::nn::MultiheadAttentionOptions(dim, heads)))) {}

torch::Tensor ConfigAttentionImpl::forward(const torch::Tensor& x) {
    auto q = norm(x).unsqueeze(1);                    // [C, 1, D]: sequence = configs, batch = 1
    auto attended = std::get<0>(attention(q, q, q));  // [C, 1, D]
    return x + attended.squeeze(1);
}

}  // namespace tpg::nn
