#pragma once

#include <torch/torch.h>

namespace tpg::nn {

// A fully connected layer (y = x W^T + b, initialised like torch::nn::Linear) computed as a 1x1
// convolution: Debian's libtorch links the reference BLAS, whose sgemm is ~10x slower than the
// oneDNN kernels convolutions use on CPU (measured: [20000, 192] x [192, 64] forward 245 ms vs
// 20 ms). Batches of oneDNN's size take its inner product, faster still; bfloat16 training
// products (BFloat16ProductsScope) take the convolution. Gradients flow as for Linear.
// x [..., in] -> [..., out]
struct DenseImpl : torch::nn::Module {
    DenseImpl(int64_t in, int64_t out);
    torch::Tensor forward(const torch::Tensor& x);
    // The part of forward from input columns [first, first + width) alone (plus the bias when
    // withBias): forward([a, b]) == forwardColumns(a, 0, true) + forwardColumns(b, a's width,
    // false), without materialising the concatenation. x [..., width] -> [..., out]
    torch::Tensor forwardColumns(const torch::Tensor& x, int64_t first, bool withBias);

    int64_t in, out;
    torch::Tensor weight;  // [out, in]
    torch::Tensor bias;    // [out]
};
TORCH_MODULE(Dense);

// True when this CPU multiplies bfloat16 in hardware (AVX512-BF16): elsewhere oneDNN emulates it,
// slower than float.
bool bfloat16ProductsSupported();

// While one is alive on a thread, that thread's training products (grad mode, oneDNN-sized
// batches) round inputs and weights to bfloat16 (8 bits of mantissa); oneDNN sums in float and
// rounds each result to bfloat16 once; the bias is added in float. About 1.8x faster than float
// 1x1 convolutions on the products that dominate a training step (alone on the machine; float
// training has taken the faster inner product since, not compared); gradients reach the float
// weights as before. Scoring (no grad mode) always multiplies in float.
class BFloat16ProductsScope {
public:
    explicit BFloat16ProductsScope(bool enable);
    ~BFloat16ProductsScope();
    BFloat16ProductsScope(const BFloat16ProductsScope&) = delete;
    BFloat16ProductsScope& operator=(const BFloat16ProductsScope&) = delete;
    static bool active();

private:
    bool m_previous;
};

}  // namespace tpg::nn
