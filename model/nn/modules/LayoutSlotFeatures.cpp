#include "LayoutSlotFeatures.h"

namespace tpg::nn {

namespace {

constexpr float kLanes = 128;    // TPU vector registers: the most-minor dim pads to 128 lanes
constexpr float kSublanes = 8;   // and the second-most-minor to 8 sublanes

}  // namespace

LayoutSlotTensors LayoutSlotTensors::rows(const torch::Tensor& index) const {
    return {dims.index_select(0, index),     defaults.index_select(0, index),
            rowMajor.index_select(0, index), reduced.index_select(0, index),
            rank.index_select(0, index),     preferred.index_select(0, index),
            logVolume.index_select(0, index)};
}

LayoutSlotTensors makeLayoutSlotTensors(const std::vector<LayoutSlotShape>& shapes) {
    const auto nc = static_cast<int64_t>(shapes.size()) / kLayoutSlots;
    std::vector<float> dims, logVolume;
    std::vector<int64_t> defaults, rowMajor, rank, preferred;
    std::vector<uint8_t> reduced;
    for (const LayoutSlotShape& s : shapes) {
        double volume = 1;
        for (int d = 0; d < 6; ++d) {
            dims.push_back(s.dims[static_cast<size_t>(d)]);
            defaults.push_back(s.defaultLayout[static_cast<size_t>(d)]);
            rowMajor.push_back(d < s.rank ? s.rank - 1 - d : -1);
            reduced.push_back(static_cast<uint8_t>(s.reducedMask >> d & 1u));
            if (d < s.rank) volume *= s.dims[static_cast<size_t>(d)];
        }
        rank.push_back(s.rank);
        preferred.push_back(s.preferredMinor);
        logVolume.push_back(static_cast<float>(std::log(volume)));
    }
    auto longs = [](std::vector<int64_t>& v, torch::IntArrayRef shape) {
        return torch::from_blob(v.data(), shape, torch::kLong).clone();
    };
    LayoutSlotTensors t;
    t.dims = torch::from_blob(dims.data(), {nc, kLayoutSlots, 6}, torch::kFloat).clone();
    t.defaults = longs(defaults, {nc, kLayoutSlots, 6});
    t.rowMajor = longs(rowMajor, {nc, kLayoutSlots, 6});
    t.reduced = torch::from_blob(reduced.data(), {nc, kLayoutSlots, 6}, torch::kUInt8).to(torch::kBool);
    t.rank = longs(rank, {nc, kLayoutSlots});
    t.preferred = longs(preferred, {nc, kLayoutSlots});
    t.logVolume = torch::from_blob(logVolume.data(), {nc, kLayoutSlots}, torch::kFloat).clone();
    return t;
}

torch::Tensor layoutSlotFeatures(const torch::Tensor& config, const LayoutSlotTensors& s) {
    const int64_t c = config.size(0), nc = config.size(1);
    TORCH_CHECK(config.size(2) == int64_t{kLayoutSlots} * 6 && s.rank.size(0) == nc,
                "slot features need [C, nc, 18] configs and the graph's nc slots");
    auto layout = config.round().to(torch::kLong).view({c, nc, kLayoutSlots, 6});
    auto rank = s.rank.unsqueeze(0);  // [1, nc, 3]
    auto first = layout.select(3, 0);
    auto given = (first >= 0) & (first < rank);  // [C, nc, 3]: an explicit layout
    auto effective = torch::where(given.unsqueeze(3), layout, s.defaults.unsqueeze(0));  // [C, nc, 3, 6]
    auto minor = effective.select(3, 0), second = effective.select(3, 1);
    auto hasMinor = (minor >= 0) & (minor < rank);
    auto hasSecond = (rank >= 2) & (second >= 0) & (second < rank);
    auto dims = s.dims.unsqueeze(0).expand({c, -1, -1, -1});
    auto sizeAt = [&](const torch::Tensor& dim, const torch::Tensor& has) {
        auto size = dims.gather(3, dim.clamp(0, 5).unsqueeze(3)).squeeze(3);
        return torch::where(has, size, torch::ones_like(size));  // [C, nc, 3]
    };
    auto minorSize = sizeAt(minor, hasMinor), secondSize = sizeAt(second, hasSecond);
    auto lanePad = torch::where(hasMinor, (torch::ceil(minorSize / kLanes) * kLanes / minorSize).log(),
                                torch::zeros_like(minorSize));
    auto sublanePad = torch::where(hasSecond, (torch::ceil(secondSize / kSublanes) * kSublanes / secondSize).log(),
                                   torch::zeros_like(secondSize));
    auto preferred = s.preferred.unsqueeze(0);
    auto notPreferred = hasMinor & (preferred >= 0) & (minor != preferred);
    auto reducedMinor = hasMinor & s.reduced.unsqueeze(0).expand({c, -1, -1, -1})
                                       .gather(3, minor.clamp(0, 5).unsqueeze(3)).squeeze(3);
    auto minorMoved = given & (minor != s.defaults.select(2, 0).unsqueeze(0));
    auto changed = given & (effective != s.defaults.unsqueeze(0)).any(3);
    auto rowMajor = (rank > 0) & (effective == s.rowMajor.unsqueeze(0)).all(3);
    auto f = [](const torch::Tensor& b) { return b.to(torch::kFloat); };
    auto features = torch::stack({f(given), minorSize.log2() / 8, secondSize.log2() / 8, lanePad / 4,
                                  sublanePad / 2, f(notPreferred), f(reducedMinor), f(minorMoved),
                                  f(changed), f(rowMajor), f(changed) * s.logVolume.unsqueeze(0) / 20},
                                 3);  // [C, nc, 3, 11]
    return features.view({c, nc, kLayoutSlots * kSlotFeatureCount});
}

}  // namespace tpg::nn
