// The baselines of `tpugraphs tune` (run by tests/bench/tune.sh, or by hand:
// build/tests/bench/bench_tune FILE SECONDS [SEED]). For the same wall-clock budget as tune:
// random search (random configurations as the dataset draws them, from the compiler default) and
// greedy coordinate descent on the synthetic TPU alone (the oracle, from the file's best measured
// configuration). Prints one JSON object.
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "graph/GraphFile.h"
#include "io/Error.h"
#include "synth/TpuCostModel.h"
#include "tune/BaselineSearch.h"

using namespace tpg;

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_tune FILE SECONDS [SEED]\n");
        return 2;
    }
    try {
        const TpuGraph g = loadTpuGraph(argv[1]);
        const double seconds = std::atof(argv[2]);
        const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
        const synth::TpuCostModel tpu(g);
        std::vector<float> compilerDefault;
        std::vector<float> best;
        int64_t bestRow = 0;
        for (int64_t c = 1; c < g.numConfigs(); ++c)
            if (g.runtimes()[static_cast<size_t>(c)] < g.runtimes()[static_cast<size_t>(bestRow)]) bestRow = c;
        if (g.isLayout()) {
            compilerDefault.assign(static_cast<size_t>(g.layoutConfigs()->rowSize()), -1.0f);
            best = g.layoutConfigs()->config(bestRow);
        } else {
            compilerDefault = tpu.defaultTileConfig();
            best.assign(g.tileConfig(bestRow), g.tileConfig(bestRow) + g.configFeatureWidth());
        }
        const tune::BaselineResult random = tune::randomSearch(g, tpu, compilerDefault, seconds, seed);
        const tune::BaselineResult greedy = tune::oracleGreedySearch(g, tpu, best, seconds);
        const nlohmann::json j = {{"file", argv[1]},
                                  {"nodes", g.numNodes()},
                                  {"configurable", g.numConfigurable()},
                                  {"best_file_ns", g.isLayout() ? tpu.layoutRuntime(best.data()) : tpu.tileRuntime(best.data())},
                                  {"random_ns", random.ns},
                                  {"random_evaluations", random.evaluations},
                                  {"greedy_ns", greedy.ns},
                                  {"greedy_evaluations", greedy.evaluations},
                                  {"greedy_converged", greedy.converged},
                                  {"greedy_seconds", greedy.seconds}};
        std::printf("%s\n", j.dump().c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_tune: %s\n", e.what());
        return 1;
    }
}
