#include "Dense.h"

#include <algorithm>
#include <cmath>

namespace tpg::nn {

namespace {
// oneDNN takes the convolution from this batch size on (smaller batches use the native path).
constexpr int64_t kOneDnnMinRows = 16;

thread_local bool t_bfloat16Products = false;

// Training's products while a BFloat16ProductsScope is alive; scoring always multiplies in float.
bool bfloat16Product() { return t_bfloat16Products && torch::GradMode::is_enabled(); }

torch::Tensor convolutionProduct(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
    const int64_t rows = x.size(0), in = x.size(1), out = w.size(0);
    if (!bfloat16Product())
        return torch::conv2d(x.reshape({rows, in, 1, 1}), w.reshape({out, in, 1, 1}), b).view({rows, out});
    // The bias is added in float: rounding it would shift every score of a graph alike.
    auto y = torch::conv2d(x.to(torch::kBFloat16).reshape({rows, in, 1, 1}),
                           w.to(torch::kBFloat16).reshape({out, in, 1, 1}))
                 .view({rows, out})
                 .to(torch::kFloat);
    return b.defined() ? y + b : y;
}

// oneDNN makes a kernel per shape and caches them (1,024): a miss costs ~0.2 ms, more than
// the product of a few thousand rows. Row counts that vary from call to call (a default
// search's distinct rows, an edit's receptive field) are padded up to one of 8-16 sizes per
// octave (at most 1/8 more rows), below this size, where the padding copy is cheaper than a new
// kernel.
constexpr int64_t kPaddedRowsMaxFloats = int64_t{1} << 20;

int64_t paddedRows(int64_t rows) {
    int bits = 0;
    while ((rows >> bits) > 0) ++bits;
    const int64_t step = int64_t{1} << std::max(0, bits - 4);
    return (rows + step - 1) / step * step;
}

torch::Tensor oneDnnProduct(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
    if (!bfloat16Product() && at::hasMKLDNN())
        // oneDNN's inner product beats the 1x1 convolution: scoring [13000, 192] x [192, 64] 3.9 vs
        // 7.2 ms; forward and backward [13000, 144] x [144, 48] 9.9 vs 13.2 ms, [4000, 144] 2.2 vs
        // 4.0 ms (one thread, conversions included). Autograd differentiates it through
        // to_mkldnn / to_dense; values and gradients equal the convolution's to float rounding.
        return torch::mkldnn_linear(x.contiguous().to_mkldnn(), w.contiguous(), b).to_dense();
    return convolutionProduct(x, w, b);
}

// x [rows, in] W^T + b (b may be undefined) -> [rows, out]
torch::Tensor product(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
    const int64_t rows = x.size(0);
    if (rows < kOneDnnMinRows) return b.defined() ? torch::addmm(b, x, w.t()) : torch::mm(x, w.t());
    const int64_t padded = rows * x.size(1) <= kPaddedRowsMaxFloats ? paddedRows(rows) : rows;
    if (padded == rows) return oneDnnProduct(x, w, b);
    return oneDnnProduct(torch::constant_pad_nd(x, {0, 0, 0, padded - rows}), w, b).narrow(0, 0, rows);
}
}  // namespace

bool bfloat16ProductsSupported() {
    __builtin_cpu_init();
    // Every CPU with AMX-BF16 also has AVX512-BF16.
    return at::hasMKLDNN() && __builtin_cpu_supports("avx512bf16") != 0;
}

BFloat16ProductsScope::BFloat16ProductsScope(bool enable) : m_previous(t_bfloat16Products) {
    t_bfloat16Products = enable;
}

BFloat16ProductsScope::~BFloat16ProductsScope() { t_bfloat16Products = m_previous; }

bool BFloat16ProductsScope::active() { return t_bfloat16Products; }

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
    shape.back() = out;
    return product(x.reshape({rows, in}), weight, bias).view(shape);
}

torch::Tensor DenseImpl::forwardColumns(const torch::Tensor& x, int64_t first, bool withBias) {
    const int64_t width = x.size(-1);
    TORCH_CHECK(first >= 0 && first + width <= in, "Dense: columns out of range");
    auto shape = x.sizes().vec();
    const int64_t rows = x.numel() / width;
    shape.back() = out;
    return product(x.reshape({rows, width}), weight.narrow(1, first, width),
                   withBias ? bias : torch::Tensor())
        .view(shape);
}

}  // namespace tpg::nn
