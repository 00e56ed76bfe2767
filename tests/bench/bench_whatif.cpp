// What-if latency (run by hand: build/tests/bench/bench_whatif [NODES] [CONFIGS] [EDITS]).
// On a synthetic program of NODES nodes (default 45,000) with CONFIGS configurations (default
// 1,000), timed by the built-in layout model: the time until every config is scored (ranks are
// ready), then for EDITS random single-slot edits (default 100) the time from edit to the full
// report (prediction, rank, synthetic TPU runtime, matching and nearest rows), p50 / p95 / max,
// and the same split into its parts. Target: p95 <= 30 ms at 45,000 nodes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "DefaultModels.h"
#include "synth/SyntheticDataset.h"
#include "synth/TpuCostModel.h"
#include "TensorMemory.h"
#include "whatif/ConfigEdit.h"
#include "whatif/WhatIfPredictor.h"

using namespace tpg;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

void printPercentiles(const char* what, std::vector<double> v) {
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))]; };
    std::printf("  %-30s p50 %7.2f ms   p95 %7.2f ms   max %7.2f ms\n", what, at(0.5), at(0.95), v.back());
}

}  // namespace

int main(int argc, char** argv) {
    tpg::nn::keepFreedTensorMemory();  // as the explorer and tpugraphs-learn do at start-up
    const int64_t nodes = argc > 1 ? std::atoll(argv[1]) : 45000;
    const int configs = argc > 2 ? std::atoi(argv[2]) : 1000;
    const int edits = argc > 3 ? std::atoi(argv[3]) : 100;
    auto t = Clock::now();
    auto graph = std::make_shared<const TpuGraph>(
        synth::makeLayoutGraph(synth::Recipe::ResNet, 3, nodes, configs, synth::LayoutSearch::Random, "bench"));
    std::printf("graph: %lld nodes, %lld configurable, %lld configs (built in %.1f s)\n",
                static_cast<long long>(graph->numNodes()), static_cast<long long>(graph->numConfigurable()),
                static_cast<long long>(graph->numConfigs()), msSince(t) / 1000);
    t = Clock::now();
    const whatif::WhatIfPredictor p(graph, nn::defaultModel(Collection::Layout));
    std::printf("every config scored, ranks ready: %.2f s (%.0f configs/s)\n", msSince(t) / 1000,
                1000.0 * static_cast<double>(configs) / msSince(t));

    std::mt19937_64 rng(1);
    std::vector<float> row = p.row(0);
    p.evaluate(row);  // warm: the config-free pass is cached by the first scoring of this graph
    const synth::TpuCostModel tpu(*graph);
    const nn::CostModel model = nn::defaultModel(Collection::Layout);
    std::vector<double> total, score, incremental, synthMs;
    const auto& ids = graph->configurableNodes();
    for (int e = 0; e < edits; ++e) {
        const int32_t node = ids[std::uniform_int_distribution<size_t>(0, ids.size() - 1)(rng)];
        const whatif::SlotTensor s = whatif::slotTensor(*graph, node, whatif::LayoutSlot::Output);
        if (!s.usable) continue;
        std::vector<int> perm(static_cast<size_t>(s.rank()));
        for (int i = 0; i < s.rank(); ++i) perm[static_cast<size_t>(i)] = i;
        std::shuffle(perm.begin(), perm.end(), rng);
        whatif::applyLayoutEdit(*graph, row, {node, whatif::LayoutSlot::Output, perm});
        t = Clock::now();
        const whatif::WhatIfReport r = p.evaluate(row);
        total.push_back(msSince(t));
        t = Clock::now();
        p.model().scoreRows(*graph, row.data(), 1);
        score.push_back(msSince(t));
        // scoreEdited from the row before this edit (as the editor does): undo, then redo.
        whatif::applyLayoutEdit(*graph, row, {node, whatif::LayoutSlot::Output, {}});
        p.model().scoreEdited(*graph, row.data());
        whatif::applyLayoutEdit(*graph, row, {node, whatif::LayoutSlot::Output, perm});
        t = Clock::now();
        p.model().scoreEdited(*graph, row.data());
        incremental.push_back(msSince(t));
        t = Clock::now();
        (void)tpu.layoutRuntime(row.data());
        synthMs.push_back(msSince(t));
        if (r.rank < 1) return 1;
    }
    std::printf("%zu edits, edit -> full report:\n", total.size());
    printPercentiles("whole report", total);
    printPercentiles("  model, incremental (scoreEdited)", incremental);
    printPercentiles("  model, full pass (scoreRows)", score);
    printPercentiles("  synthetic TPU runtime", synthMs);

    // A `default`-search file: its configs differ from the compiler default in a few nodes, so
    // scoring them one after another incrementally beats a full pass per config.
    auto dflt = std::make_shared<const TpuGraph>(synth::makeLayoutGraph(
        synth::Recipe::ResNet, 3, nodes, std::min(configs, 300), synth::LayoutSearch::Default, "bench_default"));
    const nn::CostModel m = nn::defaultModel(Collection::Layout);
    const auto& table = *dflt->layoutConfigs();
    std::vector<float> rows(static_cast<size_t>(table.numConfigs() * table.rowSize()));
    table.read(0, table.numConfigs(), rows.data());
    t = Clock::now();
    std::vector<double> batched;  // full passes, 8 configs per forward
    for (int64_t b = 0; b < table.numConfigs(); b += 8) {
        const int64_t n = std::min<int64_t>(8, table.numConfigs() - b);
        const std::vector<double> s = m.scoreRows(*dflt, rows.data() + b * table.rowSize(), n);
        batched.insert(batched.end(), s.begin(), s.end());
    }
    const double fullMs = msSince(t);
    t = Clock::now();
    const std::vector<double> sequential = m.scoreAll(*dflt);  // picks the incremental path here
    const double incrementalMs = msSince(t);
    double worst = 0;
    for (size_t c = 0; c < batched.size(); ++c) worst = std::max(worst, std::abs(sequential[c] - batched[c]));
    std::printf("default-search file, %lld configs: batched full passes %.0f configs/s, incremental %.0f configs/s "
                "(%.1fx; largest score difference %.2g)\n",
                static_cast<long long>(dflt->numConfigs()), 1000.0 * static_cast<double>(dflt->numConfigs()) / fullMs,
                1000.0 * static_cast<double>(dflt->numConfigs()) / incrementalMs, fullMs / incrementalMs, worst);
    return 0;
}
