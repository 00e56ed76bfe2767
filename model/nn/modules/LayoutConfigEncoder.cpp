#include "LayoutConfigEncoder.h"

#include "NnLimits.h"

namespace tpg::nn {

torch::Tensor expandLayoutConfig(const torch::Tensor& config) {
    const auto values = config.round();
    const auto inRange = (values >= limits::kLayoutValueMin) &
                         (values < limits::kLayoutValueMin + limits::kLayoutValueCount);
    auto slot =
        (values - limits::kLayoutValueMin).clamp(0, limits::kLayoutValueCount - 1).to(torch::kLong);
    auto oneHot = torch::one_hot(slot, limits::kLayoutValueCount).to(torch::kFloat) *
                  inRange.unsqueeze(-1).to(torch::kFloat);                    // [C, nc, F, 7]
    auto flat = oneHot.flatten(2);                                            // [C, nc, F * 7]
    return torch::cat({config / float(limits::kLayoutValueCount), flat}, 2);  // [C, nc, F * 8]
}

LayoutConfigEncoderImpl::LayoutConfigEncoderImpl(int64_t configWidth, int64_t hidden,
                                                 int64_t extra)
    : width(configWidth),
      extraWidth(extra),
      first(register_module("first",
                            Dense(configWidth * (1 + limits::kLayoutValueCount) + extra, hidden))),
      second(register_module("second", Dense(hidden, hidden))) {}

torch::Tensor LayoutConfigEncoderImpl::forward(const torch::Tensor& config,
                                               const torch::Tensor& extra) {
    TORCH_CHECK(config.dim() == 3 && config.size(2) == width, "layout config must be [C, nc, ",
                width, "]");
    TORCH_CHECK(extraWidth == 0 || (extra.defined() && extra.size(2) == extraWidth),
                "layout config encoder needs [C, nc, ", extraWidth, "] extra inputs");
    auto input = expandLayoutConfig(config);
    if (extraWidth > 0) input = torch::cat({input, extra}, 2);
    return second(torch::relu(first(input)));  // [C, nc, H]
}

}  // namespace tpg::nn
