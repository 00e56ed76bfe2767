#include "Dense.h"

#include <cmath>

namespace tpg::nn {

namespace {
// oneDNN takes the convolution from this batch size on (smaller batches use the native path).
constexpr int64_t kOneDnnMinRows = 16;
}  // namespace

DenseImpl::DenseImpl(int64_t inFeatures, int64_t outFeatures) : in(inFeatures), out(outFeatures) {
    weight = register_parameter("weight", torch::empty({out, in}));
    bias = register_parameter("bias", torch::empty({out}));
    torch::NoGradGuard noGrad;
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));  // Linear's default init
    weight.uniform_(-bound, bound);
    bias.uniform_(-bound, bound);
}

torch::Tensor DenseImpl::forward(const torch::Tensor& x) {
    auto shape = x.sizes().vec();
    const int64_t rows = x.numel() / in;
    torch::Tensor y;
    if (rows < kOneDnnMinRows)
        y = torch::addmm(bias, x.reshape({rows, in}), weight.t());
    else
        y = torch::conv2d(x.reshape({rows, in, 1, 1}), weight.view({out, in, 1, 1}), bias)
                .view({rows, out});
    shape.back() = out;
    return y.view(shape);
}

}  // namespace tpg::nn
