// What-if latency (run by hand: build/tests/bench/bench_whatif [NODES] [CONFIGS] [EDITS]
// [COLLECTION]). On a synthetic program of NODES nodes (default 45,000) with CONFIGS configurations
// (default 1,000), timed by the built-in model of COLLECTION (default layout:xla:random, the one a
// random-search file of the dataset tree gets; "layout": the model of all four collections; the
// default-search part below takes layout:xla:default's unless given): the time until every config
// is scored (ranks are ready), then for EDITS random single-slot edits (default 100) the time from
// edit to the full report (prediction, rank, synthetic TPU runtime, matching and nearest rows), p50
// / p95 / max, and the same split into its parts; then the time of a sweep (every layout of a
// rank-4 slot predicted). Target: p95 <= 30 ms per edit at 45,000 nodes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "DefaultModels.h"
#include "TensorMemory.h"
#include "synth/SyntheticDataset.h"
#include "synth/TpuCostModel.h"
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
    const std::string collection = argc > 4 ? argv[4] : "";
    auto t = Clock::now();
    auto graph = std::make_shared<const TpuGraph>(
        synth::makeLayoutGraph(synth::Recipe::ResNet, 3, nodes, configs, synth::LayoutSearch::Random, "bench"));
    std::printf("graph: %lld nodes, %lld configurable, %lld configs (built in %.1f s)\n",
                static_cast<long long>(graph->numNodes()), static_cast<long long>(graph->numConfigurable()),
                static_cast<long long>(graph->numConfigs()), msSince(t) / 1000);
    t = Clock::now();
    const nn::CostModel model =
        nn::defaultModel(Collection::Layout, collection.empty() ? "layout:xla:random" : collection);
    std::printf("model: %s\n", model.label().c_str());
    const whatif::WhatIfPredictor p(graph, model);
    std::printf("every config scored, ranks ready: %.2f s (%.0f configs/s)\n", msSince(t) / 1000,
                1000.0 * static_cast<double>(configs) / msSince(t));
    t = Clock::now();
    {  // what the program keys cost within that (a synthetic TPU pass per row), timed by redoing them
        const synth::TpuCostModel keys(*graph);
        uint64_t key = 0;
        for (int64_t c = 0; c < graph->numConfigs(); ++c) keys.layoutRuntime(p.row(c).data(), &key);
    }
    std::printf("  of which the file's program keys (the index and the score sharing): %.2f s\n", msSince(t) / 1000);

    std::mt19937_64 rng(1);
    std::vector<float> row = p.row(0);
    p.evaluate(row);  // warm: the config-free pass is cached by the first scoring of this graph
    const synth::TpuCostModel tpu(*graph);
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

    // A sweep: every layout of one slot as an edit's report gives it, one value after another, as
    // the explorer does on a ⇅ click and again after every edit while the sweep shows.
    std::vector<double> sweepMs;
    int sweepValues = 0;
    for (const int32_t node : ids) {
        if (sweepMs.size() >= 20) break;
        const whatif::SlotTensor s = whatif::slotTensor(*graph, node, whatif::LayoutSlot::Output);
        if (!s.usable || s.rank() != 4) continue;
        std::vector<std::vector<int>> values{{}};
        std::vector<int> perm = {0, 1, 2, 3};
        do values.push_back(perm);
        while (std::next_permutation(perm.begin(), perm.end()));
        t = Clock::now();
        for (const auto& v : values) {
            std::vector<float> candidate = row;
            whatif::applyLayoutEdit(*graph, candidate, {node, whatif::LayoutSlot::Output, v});
            if (p.evaluate(candidate).synthNs <= 0) return 1;
        }
        sweepMs.push_back(msSince(t));
        sweepValues = static_cast<int>(values.size());
    }
    if (!sweepMs.empty()) {
        std::printf("%zu sweeps of a rank-4 output layout (%d values each):\n", sweepMs.size(),
                    sweepValues);
        printPercentiles("whole sweep", sweepMs);
    }

    // A `default`-search file: its configs differ from the compiler default in a few nodes, so
    // most of their rows repeat and batched passes compute only the distinct ones; scoring them
    // one after another incrementally (scoreEdited, as scoreAll did for such files before) is
    // the alternative measured against them.
    auto dflt = std::make_shared<const TpuGraph>(synth::makeLayoutGraph(
        synth::Recipe::ResNet, 3, nodes, std::min(configs, 300), synth::LayoutSearch::Default, "bench_default"));
    nn::CostModel m = nn::defaultModel(Collection::Layout,
                                       collection.empty() ? "layout:xla:default" : collection);
    m.setTieSamePrograms(false);  // the network's scores on both paths, to compare them
    const auto& table = *dflt->layoutConfigs();
    std::vector<float> rows(static_cast<size_t>(table.numConfigs() * table.rowSize()));
    table.read(0, table.numConfigs(), rows.data());
    (void)m.scoreRows(*dflt, rows.data(), 1);  // warm: the graph prepared, its config-free pass cached
    t = Clock::now();
    const std::vector<double> batched = m.scoreAll(*dflt);
    const double batchedMs = msSince(t);
    t = Clock::now();
    std::vector<double> sequential;
    for (int64_t c = 0; c < table.numConfigs(); ++c)
        sequential.push_back(m.scoreEdited(*dflt, rows.data() + c * table.rowSize()));
    const double incrementalMs = msSince(t);
    double worst = 0;
    for (size_t c = 0; c < batched.size(); ++c) worst = std::max(worst, std::abs(sequential[c] - batched[c]));
    const double n = static_cast<double>(dflt->numConfigs());
    std::printf("default-search file, %lld configs: scoreAll (batched) %.0f configs/s, one after another "
                "incrementally %.0f configs/s (%.1fx; largest score difference %.2g)\n",
                static_cast<long long>(dflt->numConfigs()), 1000.0 * n / batchedMs, 1000.0 * n / incrementalMs,
                incrementalMs / batchedMs, worst);
    return 0;
}
