#include "RowMax.h"

#include <cmath>

namespace tpg::nn {

namespace {

class MaxOverRowsFunction : public torch::autograd::Function<MaxOverRowsFunction> {
public:
    static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x) {
        const auto in = x.contiguous();
        const int64_t rows = in.size(0), width = in.numel() / rows;
        auto best = in[0].clone();
        auto row = torch::zeros(best.sizes(), torch::kLong);
        float* b = best.data_ptr<float>();
        int64_t* at = row.data_ptr<int64_t>();
        const float* v = in.data_ptr<float>();
        for (int64_t r = 1; r < rows; ++r) {
            const float* next = v + r * width;
            for (int64_t j = 0; j < width; ++j) {
                if (next[j] > b[j] || (std::isnan(next[j]) && !std::isnan(b[j]))) {
                    b[j] = next[j];
                    at[j] = r;
                }
            }
        }
        ctx->saved_data["row"] = row;
        ctx->saved_data["rows"] = rows;
        return best;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grad) {
        if (!grad[0].defined()) return {torch::Tensor()};
        const auto row = ctx->saved_data["row"].toTensor();
        const int64_t width = row.numel();
        std::vector<int64_t> shape{ctx->saved_data["rows"].toInt()};
        for (int64_t s : row.sizes()) shape.push_back(s);
        auto out = torch::zeros(shape, torch::kFloat);
        const auto g = grad[0].contiguous();
        const float* gp = g.data_ptr<float>();
        const int64_t* at = row.data_ptr<int64_t>();
        float* o = out.data_ptr<float>();
        for (int64_t j = 0; j < width; ++j) o[at[j] * width + j] = gp[j];
        return {out};
    }
};

}  // namespace

torch::Tensor maxOverRows(const torch::Tensor& x) {
    TORCH_CHECK(x.scalar_type() == torch::kFloat && x.dim() >= 1 && x.size(0) > 0,
                "maxOverRows: float rows, at least one, not ", x.sizes());
    // Without a gradient to route, amax's vectorised reduction gives the same values faster.
    if (!x.requires_grad() || !torch::GradMode::is_enabled()) return x.amax(0);
    return MaxOverRowsFunction::apply(x);
}

}  // namespace tpg::nn
