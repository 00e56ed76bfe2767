// Speed of the learned cost model (run by hand: build-*/tests/bench/bench_nn [--quick|--latency]).
// --latency: only the single-config latency on the three pruned layout graphs (~1 min), and the
// scores (TPG_BENCH_MODEL / TPG_BENCH_TILE_MODEL=file.tpgm score with that model, not a fresh one).
// Reports: scoring throughput (configs/s) on layout graphs of ~400, ~5,000 and ~40,000 nodes,
// pruned (configurable nodes + 1 hop, the default) and full; single-config latency (the GUI
// rescoring one edited config; target < 30 ms); tile scoring; training throughput.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "CostModel.h"
#include "PreparedGraph.h"
#include "synth/SyntheticDataset.h"
#include "TensorMemory.h"
#include "Trainer.h"

using namespace tpg;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

nn::CostModel modelFor(const TpuGraph& g, int hops) {
    nn::ModelInfo info;
    info.kind = g.collection();
    info.collection = g.isLayout() ? "layout:xla:random" : "tile:xla";
    info.nodeFeatureWidth = g.nodeFeatureWidth();
    info.configWidth = g.configFeatureWidth();
    info.settings.pruneHops = hops;
    info.stats = nn::computeFeatureStats({g});
    return nn::CostModel::create(info);
}

std::vector<float> secondConfigRow(const TpuGraph& g) {
    return g.isLayout()
               ? g.layoutConfigs()->config(1)
               : std::vector<float>(g.tileConfig(1), g.tileConfig(1) + g.configFeatureWidth());
}

// Median and max of `runs` single-config scoreRows calls on an already prepared graph.
std::pair<double, double> singleConfigLatency(const nn::CostModel& m, const TpuGraph& g, int runs) {
    const auto row = secondConfigRow(g);
    std::vector<double> lat;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = Clock::now();
        m.scoreRows(g, row.data(), 1);
        lat.push_back(secondsSince(t0) * 1000);
    }
    std::sort(lat.begin(), lat.end());
    return {lat[lat.size() / 2], lat.back()};
}

// `modelPath` empty: a fresh network from torch's (fixed) default seed. Prints every config's
// score too, so two builds can be compared for identical results.
void benchLatency(const TpuGraph& g, int hops, const std::string& modelPath) {
    const nn::CostModel m = modelPath.empty() ? modelFor(g, hops) : nn::CostModel::load(modelPath);
    auto t0 = Clock::now();
    m.scoreConfigs(g, {0});  // prepares and caches the graph's tensors
    const double prepare = secondsSince(t0);
    const auto [median, max] = singleConfigLatency(m, g, 25);
    std::printf(
        "%-7s nodes %6lld  configurable %4lld  hops %-4s  prepare %7.1f ms  single-config "
        "latency median %6.2f ms (max %6.2f)\n  scores:",
        g.isLayout() ? "layout" : "tile", static_cast<long long>(g.numNodes()),
        static_cast<long long>(g.numConfigurable()),
        hops < 0 ? "full" : std::to_string(hops).c_str(), prepare * 1000, median, max);
    for (double s : m.scoreAll(g)) std::printf(" %.8g", s);
    std::printf("\n");
    std::fflush(stdout);
}

void benchScoring(const TpuGraph& g, int hops) {
    const nn::CostModel m = modelFor(g, hops);
    const nn::PreparedGraph p = nn::prepareGraph(g, g.isLayout() ? hops : -1);
    auto t0 = Clock::now();
    m.scoreConfigs(g, {0});  // prepares and caches the graph's tensors
    const double prepare = secondsSince(t0);
    t0 = Clock::now();
    const auto all = m.scoreAll(g);
    const double total = secondsSince(t0);
    const auto [median, max] = singleConfigLatency(m, g, 15);
    std::printf(
        "%-7s nodes %6lld  kept %6lld  configurable %4lld  hops %-4s  prepare %7.1f ms  score "
        "%6lld configs "
        "%7.2f s = %8.0f configs/s  single-config latency median %6.2f ms (max %6.2f)\n",
        g.isLayout() ? "layout" : "tile", static_cast<long long>(g.numNodes()),
        static_cast<long long>(p.numNodes()), static_cast<long long>(g.numConfigurable()),
        hops < 0 ? "full" : std::to_string(hops).c_str(), prepare * 1000,
        static_cast<long long>(all.size()), total, static_cast<double>(all.size()) / total, median,
        max);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    tpg::nn::keepFreedTensorMemory();  // as the explorer and tpugraphs-learn do at start-up
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const bool latencyOnly = argc > 1 && std::strcmp(argv[1], "--latency") == 0;
    const char* modelPath = std::getenv("TPG_BENCH_MODEL");     // --latency: score with this model
    const char* threadsEnv = std::getenv("TPG_BENCH_THREADS");  // e.g. 1 to compare
    nn::setThreads(threadsEnv ? std::atoi(threadsEnv) : 2);
    std::printf("bench_nn: hidden 64, 3 GraphSAGE layers, %s torch threads, %s malloc%s\n",
                threadsEnv ? threadsEnv : "2", nn::allocatorName().c_str(), quick ? " (quick)" : "");
    if (latencyOnly) {
        for (int64_t n : {400, 5000, 40000})
            benchLatency(
                synth::makeLayoutGraph(synth::Recipe::Transformer, 11, n, 16,
                                       synth::LayoutSearch::Random, "bench" + std::to_string(n), 2),
                1, modelPath ? modelPath : "");
        const char* tileModel = std::getenv("TPG_BENCH_TILE_MODEL");
        benchLatency(synth::makeTileGraph(synth::Recipe::ConvKernel, 5, 64, "kernel"), -1,
                     tileModel ? tileModel : "");
        return 0;
    }
    const std::vector<int64_t> sizes =
        quick ? std::vector<int64_t>{400} : std::vector<int64_t>{400, 5000, 40000};
    for (int64_t n : sizes) {
        auto t0 = Clock::now();
        const TpuGraph g =
            synth::makeLayoutGraph(synth::Recipe::Transformer, 11, n, quick ? 256 : 1024,
                                   synth::LayoutSearch::Random, "bench" + std::to_string(n), 2);
        std::printf("(generated %lld-node graph in %.1f s)\n", static_cast<long long>(g.numNodes()),
                    secondsSince(t0));
        benchScoring(g, 1);
        benchScoring(g, -1);
    }
    benchScoring(synth::makeTileGraph(synth::Recipe::ConvKernel, 5, 2000, "kernel"), -1);

    // Training throughput: one epoch on a small synthetic layout dataset.
    const std::string dir = (std::filesystem::temp_directory_path() / "tpg_bench_nn").string();
    std::filesystem::remove_all(dir);
    synth::SynthOptions so;
    so.outDir = dir;
    so.tileGraphs = 40;
    so.layoutGraphs = quick ? 6 : 16;
    so.configs = 300;
    so.minNodes = 300;
    so.maxNodes = 3000;
    so.collections = {"layout:xla:random", "tile:xla"};
    synth::generateDataset(so);
    for (const char* collection : {"layout:xla:random", "tile:xla"}) {
        nn::TrainSettings s;
        s.dataDir = dir;
        s.collection = collection;
        s.outPath = dir + "/bench.tpgm";
        s.epochs = 2;
        s.threads = 2;
        s.validConfigsPerGraph = 64;
        double trainSeconds = 0;
        int64_t steps = 0;
        Clock::time_point epochStart;
        int lastEpoch = 0;
        nn::trainCostModel(s, [&](const nn::TrainProgress& p) {
            if (p.phase == nn::TrainProgress::Phase::Training) {
                if (p.epoch != lastEpoch) {
                    epochStart = Clock::now();
                    lastEpoch = p.epoch;
                }
                if (p.epoch == 2 &&
                    p.step == p.steps) {  // epoch 2: graphs already prepared (cached)
                    trainSeconds = secondsSince(epochStart);
                    steps = p.steps;
                }
            }
        });
        const int graphsPerStep = std::string(collection) == "tile:xla" ? 8 : 1;
        const double configs = static_cast<double>(steps) * graphsPerStep * s.configsPerStep;
        std::printf(
            "training %-18s %lld steps (%d graph(s) x %d configs each) in %.2f s = %.0f configs/s, "
            "%.1f steps/s\n",
            collection, static_cast<long long>(steps), graphsPerStep, s.configsPerStep,
            trainSeconds, configs / trainSeconds, static_cast<double>(steps) / trainSeconds);
    }
    std::filesystem::remove_all(dir);
    return 0;
}
