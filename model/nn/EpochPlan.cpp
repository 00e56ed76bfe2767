#include "EpochPlan.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "NnLimits.h"

namespace tpg::nn {

int graphsPerStep(const TrainSettings& st, Collection kind) {
    return st.graphsPerStep > 0 ? st.graphsPerStep : (kind == Collection::Tile ? 8 : 1);
}

namespace {

// Global steps of `batch` graphs of similar cost, in shuffled order (see StepMatching).
std::vector<std::vector<size_t>> matchedSteps(const std::vector<size_t>& visits, const std::vector<int64_t>& costs,
                                              size_t batch, std::mt19937_64& rng) {
    std::vector<std::vector<size_t>> steps;
    const size_t window = batch * static_cast<size_t>(limits::kMatchWindowSteps);
    for (size_t w = 0; w < visits.size(); w += window) {
        std::vector<size_t> chunk(visits.begin() + static_cast<std::ptrdiff_t>(w),
                                  visits.begin() + static_cast<std::ptrdiff_t>(std::min(visits.size(), w + window)));
        std::stable_sort(chunk.begin(), chunk.end(), [&](size_t a, size_t b) { return costs[a] > costs[b]; });
        std::vector<std::vector<size_t>> group;
        for (size_t i = 0; i < chunk.size(); i += batch)
            group.emplace_back(chunk.begin() + static_cast<std::ptrdiff_t>(i),
                               chunk.begin() + static_cast<std::ptrdiff_t>(std::min(chunk.size(), i + batch)));
        std::shuffle(group.begin(), group.end(), rng);
        steps.insert(steps.end(), group.begin(), group.end());
    }
    return steps;
}

}  // namespace

EpochPlan planEpoch(const std::vector<int64_t>& configCounts, const TrainSettings& st,
                    int perStep, int epoch, const StepMatching& matching) {
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
    if (matching.costs.size() != configCounts.size()) {
        for (size_t i = 0; i < visits.size(); i += step)
            plan.steps.emplace_back(visits.begin() + static_cast<std::ptrdiff_t>(i),
                                    visits.begin() + static_cast<std::ptrdiff_t>(std::min(visits.size(), i + step)));
        return plan;
    }
    const auto workers = static_cast<size_t>(std::max(1, matching.workers));
    for (const auto& global : matchedSteps(visits, matching.costs, step * workers, rng))
        for (size_t r = 0; r < workers; ++r) {  // round-robin: each worker's share costs about the same
            std::vector<size_t> share;
            for (size_t i = r; i < global.size(); i += workers) share.push_back(global[i]);
            plan.steps.push_back(std::move(share));
        }
    return plan;
}

}  // namespace tpg::nn
