#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "synth/ConfigSampler.h"
#include "synth/SyntheticRecipes.h"
#include "synth/TpuCostModel.h"
#include "graph/TpuGraph.h"

namespace tpg::synth {

// What `tpugraphs synth` generates. See docs/synthetic-tpu.md.
struct SynthOptions {
    std::string outDir;  // the tree goes to outDir/npz/...
    uint64_t seed = 1;
    int tileGraphs = 20;   // tile:xla kernels
    int layoutGraphs = 4;  // programs per layout source (xla, nlp); each is timed by both searches
    int configs = 1000;    // configurations per graph
    int64_t minNodes = 100;  // layout program sizes, drawn log-uniformly in [minNodes, maxNodes]
    int64_t maxNodes = 2000;
    // Collections to write: "tile:xla", "layout:xla:random", "layout:xla:default",
    // "layout:nlp:random", "layout:nlp:default" (empty: all).
    std::vector<std::string> collections;
    // Test-split files carry zero runtimes as the real ones do; true runtimes always go to
    // outDir/ground_truth/... (.npy). With this set, test files carry them too.
    bool testRuntimes = false;
    bool compressed = true;  // np.savez_compressed (deflate), else np.savez (stored)
    int threads = 0;         // configuration evaluation threads (0: hardware concurrency)
    // The measurements' log-normal sigma (0: the exact runtimes, e.g. to see what noise costs a model).
    double noiseSigma = TpuParameters{}.noiseSigma;
};

// Spread and ties of one graph's runtimes (the facts the real data is described by).
struct RuntimeStats {
    double spread = 0;     // max / min (NaN if unknown)
    double tieRate = 0;    // fraction of config pairs with runtimes within kNearTie of each other
    double exactTies = 0;  // fraction of pairs with identical runtimes
    int64_t distinct = 0;  // distinct runtime values
};
constexpr double kNearTie =
    0.004;  // 0.4%: how far apart duplicate configs measure in the real data
RuntimeStats runtimeStats(const std::vector<double>& runtimes);

struct SynthFile {
    std::string path, collection, split, name, recipe;
    int64_t nodes = 0, edges = 0, configurable = 0, configs = 0;
    RuntimeStats stats;  // of the true runtimes (also for test files)
};

// Writes the tree npz/{tile/xla,layout/{xla,nlp}/{random,default}}/{train,valid,test}/NAME.npz
// (split by graph), deterministic for a seed. `progress(done, total, detail)` is called from the
// calling thread, in units of evaluated configurations. Throws FormatError on I/O failure and
// std::invalid_argument for bad options.
std::vector<SynthFile> generateDataset(
    const SynthOptions& options,
    const std::function<void(int64_t, int64_t, const std::string&)>& progress = {});

// One graph with configurations and true runtimes (tests, benchmarks, the GUI). `threads` as in
// SynthOptions.
TpuGraph makeLayoutGraph(Recipe recipe, uint64_t seed, int64_t targetNodes, int configs,
                         LayoutSearch search, const std::string& name, int threads = 0);
TpuGraph makeTileGraph(Recipe recipe, uint64_t seed, int configs, const std::string& name);

// The five collections, in the competition's order.
const std::vector<std::string>& synthCollections();

}  // namespace tpg::synth
