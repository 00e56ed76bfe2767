#include "EpochPlan.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace tpg::nn {

int graphsPerStep(const TrainSettings& st, Collection kind) {
    return st.graphsPerStep > 0 ? st.graphsPerStep : (kind == Collection::Tile ? 8 : 1);
}

EpochPlan planEpoch(const std::vector<int64_t>& configCounts, const TrainSettings& st,
                    int perStep, int epoch) {
    EpochPlan plan;
    std::vector<size_t> visits;
    for (size_t g = 0; g < configCounts.size(); ++g) {
        const auto kept = static_cast<int64_t>(std::ceil(
            static_cast<double>(configCounts[g]) * (1.0 - st.heldOutConfigFraction)));
        const int64_t seen = std::min(kept, limits::kEpochConfigsPerGraph);
        const int64_t n = std::max<int64_t>(1, (seen + st.configsPerStep - 1) / st.configsPerStep);
        visits.insert(visits.end(), static_cast<size_t>(n), g);
        plan.configs += std::min(seen, n * st.configsPerStep);
    }
    std::mt19937_64 rng(st.seed * 1000003ull + static_cast<uint64_t>(epoch));
    std::shuffle(visits.begin(), visits.end(), rng);
    const auto step = static_cast<size_t>(std::max(1, perStep));
    for (size_t i = 0; i < visits.size(); i += step)
        plan.steps.emplace_back(visits.begin() + static_cast<std::ptrdiff_t>(i),
                                visits.begin() + static_cast<std::ptrdiff_t>(std::min(visits.size(), i + step)));
    return plan;
}

}  // namespace tpg::nn
