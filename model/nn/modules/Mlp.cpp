#include "Mlp.h"

namespace tpg::nn {

MlpImpl::MlpImpl(int64_t in, int64_t hidden, int64_t out)
    : first(register_module("first", Dense(in, hidden))),
      second(register_module("second", Dense(hidden, out))) {}

torch::Tensor MlpImpl::forward(const torch::Tensor& x) {
    return second(torch::relu(first(x)));
}

}  // namespace tpg::nn
