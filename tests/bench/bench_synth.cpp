// Synthetic TPU speed: generating the embedded sample's equivalent, and one 50,000-node layout
// program with 1,000 configurations (structure, sampling, evaluation, compressed write).
// Usage: bench_synth [OUT_DIR] (default: a folder under /tmp, removed afterwards).
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "graph/GraphFile.h"
#include "synth/SyntheticDataset.h"

using namespace tpg;
using namespace tpg::synth;
namespace fs = std::filesystem;

namespace {

double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
    const fs::path out =
        argc > 1 ? fs::path(argv[1]) : fs::temp_directory_path() / "tpg_bench_synth";
    fs::remove_all(out);

    // Same options as resources/CMakeLists.txt's sample.
    SynthOptions o;
    o.outDir = (out / "sample").string();
    o.seed = 20231;
    o.tileGraphs = 12;
    o.layoutGraphs = 4;
    o.configs = 1000;
    o.minNodes = 100;
    o.maxNodes = 2000;
    auto t0 = std::chrono::steady_clock::now();
    const auto files = generateDataset(o);
    std::printf("sample (%zu files, %d configs each): %.2f s\n", files.size(), o.configs,
                seconds(t0));

    t0 = std::chrono::steady_clock::now();
    const TpuGraph g =
        makeLayoutGraph(Recipe::ResNet, 50, 50000, 1000, LayoutSearch::Random, "resnet_50k");
    const double built = seconds(t0);
    const auto path = (out / "resnet_50k.npz").string();
    saveTpuGraph(g, path, true);
    std::printf(
        "50k layout graph: %lld nodes, %lld configurable, 1000 configs: generated + timed %.2f s, "
        "written %.2f s "
        "(%.1f MB)\n",
        static_cast<long long>(g.numNodes()), static_cast<long long>(g.numConfigurable()), built,
        seconds(t0) - built, static_cast<double>(fs::file_size(path)) / 1e6);
    t0 = std::chrono::steady_clock::now();
    const TpuGraph t = makeLayoutGraph(Recipe::Transformer, 51, 50000, 1000, LayoutSearch::Random,
                                       "transformer_50k");
    std::printf(
        "50k transformer: %lld nodes, %lld configurable, 1000 configs: generated + timed %.2f s\n",
        static_cast<long long>(t.numNodes()), static_cast<long long>(t.numConfigurable()),
        seconds(t0));
    if (argc <= 1) fs::remove_all(out);
    return 0;
}
