#include "tune/BaselineSearch.h"

#include <chrono>

#include "synth/ConfigSampler.h"
#include "tune/SearchSpace.h"

namespace tpg::tune {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double runtimeOf(const TpuGraph& g, const synth::TpuCostModel& tpu, const std::vector<float>& row) {
    return g.isLayout() ? tpu.layoutRuntime(row.data()) : tpu.tileRuntime(row.data());
}

}  // namespace

BaselineResult randomSearch(const TpuGraph& g, const synth::TpuCostModel& tpu, const std::vector<float>& start,
                            double budgetSeconds, uint64_t seed, const nn::CancelToken* cancel) {
    const auto begin = Clock::now();
    BaselineResult r{start, runtimeOf(g, tpu, start), 1};
    const synth::ConfigSampler sampler(tpu, g.configurableNodes());
    synth::Rng rng(seed);
    while (secondsSince(begin) < budgetSeconds && !(cancel && cancel->cancelled())) {
        std::vector<float> row = g.isLayout() ? sampler.layout(synth::LayoutSearch::Random, rng) : sampler.tile(rng);
        const double ns = runtimeOf(g, tpu, row);
        ++r.evaluations;
        if (ns < r.ns) {
            r.ns = ns;
            r.row = std::move(row);
        }
    }
    r.seconds = secondsSince(begin);
    return r;
}

BaselineResult oracleGreedySearch(const TpuGraph& g, const synth::TpuCostModel& tpu, const std::vector<float>& start,
                                  double budgetSeconds, const nn::CancelToken* cancel) {
    const auto begin = Clock::now();
    const SearchSpace space(g, tpu);
    BaselineResult r{start, runtimeOf(g, tpu, start), 1};
    auto stop = [&] { return secondsSince(begin) >= budgetSeconds || (cancel && cancel->cancelled()); };
    bool gained = true;
    while (gained && !stop()) {
        gained = false;
        for (size_t c = 0; c < space.coordinates().size() && !stop(); ++c) {
            const int current = space.valueOf(r.row, c);
            for (size_t v = 0; v < space.coordinates()[c].values.size() && !stop(); ++v) {
                if (static_cast<int>(v) == current) continue;
                std::vector<float> row = r.row;
                space.set(row, c, v);
                const double ns = runtimeOf(g, tpu, row);
                ++r.evaluations;
                if (ns < r.ns) {
                    r.ns = ns;
                    r.row = std::move(row);
                    gained = true;
                }
            }
        }
    }
    r.converged = !gained;
    r.seconds = secondsSince(begin);
    return r;
}

}  // namespace tpg::tune
