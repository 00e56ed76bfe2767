#include "NeighbourMean.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "NnLimits.h"

namespace tpg::nn {

namespace {

// Groups the entries e (row rowOf[e], column columnOf[e]) with a counting sort, which keeps their
// order within a row (so sums run in the index_add_ order); entry e's weight is
// weightOfColumn[columnOf[e]] when that is given.
CompressedRows compressRows(const torch::Tensor& rowOf, const torch::Tensor& columnOf, int64_t rows,
                            int64_t columns, const torch::Tensor& weightOfColumn) {
    const auto row = rowOf.contiguous(), column = columnOf.contiguous();
    const int64_t n = row.numel();
    const int64_t* r = row.data_ptr<int64_t>();
    const int64_t* c = column.data_ptr<int64_t>();
    CompressedRows out;
    out.rowStart = torch::zeros({rows + 1}, torch::kLong);
    out.column = torch::empty({n}, torch::kLong);
    int64_t* start = out.rowStart.data_ptr<int64_t>();
    for (int64_t e = 0; e < n; ++e) {
        TORCH_CHECK(r[e] >= 0 && r[e] < rows, "neighbour mean: row ", r[e], " outside [0, ", rows,
                    ")");
        TORCH_CHECK(c[e] >= 0 && c[e] < columns, "neighbour mean: column ", c[e], " outside [0, ",
                    columns, ")");
        ++start[r[e] + 1];
    }
    std::partial_sum(start, start + rows + 1, start);
    std::vector<int64_t> next(start, start + rows);
    int64_t* col = out.column.data_ptr<int64_t>();
    const float* w = weightOfColumn.defined() ? weightOfColumn.data_ptr<float>() : nullptr;
    float* weight = nullptr;
    if (w) {
        out.weight = torch::empty({n}, torch::kFloat);
        weight = out.weight.data_ptr<float>();
    }
    for (int64_t e = 0; e < n; ++e) {
        const int64_t at = next[static_cast<size_t>(r[e])]++;
        col[at] = c[e];
        if (weight) weight[at] = w[c[e]];
    }
    return out;
}

// GCC on x86-64 compiles `multiply` for the wide vector units too (ATen's own kernels are; SSE2
// alone was up to 1.5x slower), without fused multiply-adds, so each product rounds as ATen's.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TPG_WIDE_VECTOR_CLONES \
    __attribute__((target_clones("avx512f", "avx2", "default"), optimize("fp-contract=off")))
#else
#define TPG_WIDE_VECTOR_CLONES
#endif

// out[r] = rowScale[r] * sum_e weight[e] * x[column[e]], each row `width` floats wide.
TPG_WIDE_VECTOR_CLONES void multiply(const CompressedRows& m, const float* x, float* out, int64_t width) {
    const int64_t* start = m.rowStart.data_ptr<int64_t>();
    const int64_t* column = m.column.data_ptr<int64_t>();
    const float* weight = m.weight.defined() ? m.weight.data_ptr<float>() : nullptr;
    const float* scale = m.rowScale.defined() ? m.rowScale.data_ptr<float>() : nullptr;
    const int64_t grain = std::max<int64_t>(1, limits::kMeanFloatsPerThread / std::max<int64_t>(1, width));
    at::parallel_for(0, m.rows(), grain, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
            float* __restrict o = out + r * width;
            std::fill(o, o + width, 0.0f);
            for (int64_t e = start[r]; e < start[r + 1]; ++e) {
                const float* __restrict in = x + column[e] * width;
                if (weight) {
                    const float w = weight[e];
                    for (int64_t j = 0; j < width; ++j) o[j] += w * in[j];
                } else {
                    for (int64_t j = 0; j < width; ++j) o[j] += in[j];
                }
            }
            if (scale) {
                const float s = scale[r];
                for (int64_t j = 0; j < width; ++j) o[j] *= s;
            }
        }
    });
}

// m x: x [columns, ...] -> [m.rows(), ...].
torch::Tensor multiplyRows(const CompressedRows& m, const torch::Tensor& x) {
    const auto in = x.contiguous();
    std::vector<int64_t> shape = in.sizes().vec();
    shape[0] = m.rows();
    auto out = torch::empty(shape, in.options());
    int64_t width = 1;
    for (size_t d = 1; d < shape.size(); ++d) width *= shape[d];
    multiply(m, in.data_ptr<float>(), out.data_ptr<float>(), width);
    return out;
}

class NeighbourMeanFunction : public torch::autograd::Function<NeighbourMeanFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                                 const NeighbourMean& m) {
        ctx->saved_data["start"] = m.scatter.rowStart;
        ctx->saved_data["column"] = m.scatter.column;
        ctx->saved_data["weight"] = m.scatter.weight;
        return multiplyRows(m.gather, x);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grad) {
        if (!grad[0].defined()) return {torch::Tensor(), torch::Tensor()};
        CompressedRows scatter;
        scatter.rowStart = ctx->saved_data["start"].toTensor();
        scatter.column = ctx->saved_data["column"].toTensor();
        scatter.weight = ctx->saved_data["weight"].toTensor();
        return {multiplyRows(scatter, grad[0]), torch::Tensor()};
    }
};

}  // namespace

NeighbourMean makeNeighbourMean(const torch::Tensor& target, const torch::Tensor& source,
                                const torch::Tensor& invCount, int64_t sourceRows,
                                bool withGradient) {
    TORCH_CHECK(target.numel() == source.numel(), "neighbour mean: ", target.numel(),
                " targets but ", source.numel(), " sources");
    const int64_t rows = invCount.size(0);
    NeighbourMean m;
    m.gather = compressRows(target, source, rows, sourceRows, torch::Tensor());
    m.gather.rowScale = invCount.reshape({rows}).to(torch::kFloat).contiguous();
    m.sourceRows = sourceRows;
    // Row t's gradient reaches each of its sources scaled by t's 1 / count.
    if (withGradient) m.scatter = compressRows(source, target, sourceRows, rows, m.gather.rowScale);
    return m;
}

torch::Tensor neighbourMean(const torch::Tensor& x, const NeighbourMean& m) {
    TORCH_CHECK(x.scalar_type() == torch::kFloat && x.dim() >= 1 && x.size(0) == m.sourceRows,
                "neighbour mean: x must be float with one row per source (", m.sourceRows,
                "), not ", x.sizes());
    if (!x.requires_grad() || !torch::GradMode::is_enabled()) return multiplyRows(m.gather, x);
    TORCH_CHECK(m.scatter.rowStart.defined(), "neighbour mean: prepared without its gradient");
    return NeighbourMeanFunction::apply(x, m);
}

}  // namespace tpg::nn
