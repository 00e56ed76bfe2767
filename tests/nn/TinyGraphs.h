#pragma once

// Tiny TpuGraphs datasets built in code, with a planted, graph-dependent signal a GNN can learn:
// layout runtime grows with each configurable node's most-minor axis and, more, when its largest
// dimension is not most-minor (weighted by its size); tile runtime depends on how far the kernel
// bounds are from a size read off the graph's nodes. Written with tpg::saveTpuGraph into the real
// dataset tree.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>

#include "io/CompactMatrix.h"
#include "graph/GraphFile.h"
#include "graph/Schema.h"
#include "graph/TpuGraph.h"

namespace tiny {

inline void setShape(std::vector<float>& f, int64_t node, int64_t width,
                     const std::vector<int>& dims) {
    float* row = f.data() + node * width;
    double product = 1;
    for (size_t d = 0; d < dims.size(); ++d) {
        row[tpg::schema::kShapeDimColumn + d] = static_cast<float>(dims[d]);
        row[tpg::schema::kNodeLayoutColumn + d] = static_cast<float>(dims.size() - 1 - d);
        product *= dims[d];
    }
    row[tpg::schema::kShapeProductColumn] = static_cast<float>(product);
    row[13] = 1.0f;  // f32
}

inline tpg::TpuGraph layoutGraph(uint64_t seed, int nodes, int configs,
                                 bool unknownRuntimes = false, int maxConfigurable = -1) {
    std::mt19937_64 rng(seed);
    tpg::TpuGraphData d;
    d.name = "layout" + std::to_string(seed);
    d.collection = tpg::Collection::Layout;
    d.numNodes = nodes;
    d.nodeFeatureWidth = tpg::schema::kNodeFeatureWidth;
    d.nodeFeatures.assign(static_cast<size_t>(nodes * d.nodeFeatureWidth), 0.0f);
    const int conv = tpg::schema::opcodeId("convolution"), dot = tpg::schema::opcodeId("dot"),
              reshape = tpg::schema::opcodeId("reshape"),
              param = tpg::schema::opcodeId("parameter"), add = tpg::schema::opcodeId("add"),
              mul = tpg::schema::opcodeId("multiply");
    std::vector<std::vector<int>> shapes(static_cast<size_t>(nodes));
    for (int i = 0; i < nodes; ++i) {
        int op = i < 2 ? param : std::vector<int>{conv, dot, reshape, add, mul, add}[rng() % 6];
        d.opcodes.push_back(op);
        const int rank = 2 + static_cast<int>(rng() % 3);
        std::vector<int> dims;
        for (int r = 0; r < rank; ++r) dims.push_back(1 << (rng() % 10));
        shapes[static_cast<size_t>(i)] = dims;
        setShape(d.nodeFeatures, i, d.nodeFeatureWidth, dims);
        if (i > 0) {
            d.edges.push_back({i, static_cast<int32_t>(rng() % i)});
            if (i > 2 && rng() % 2) d.edges.push_back({i, static_cast<int32_t>(rng() % (i - 1))});
        }
        if ((op == conv || op == dot || op == reshape) &&
            (maxConfigurable < 0 || static_cast<int>(d.configurableNodes.size()) < maxConfigurable))
            d.configurableNodes.push_back(i);
    }
    if (d.configurableNodes.empty()) {
        d.opcodes[static_cast<size_t>(nodes - 1)] = conv;
        d.configurableNodes.push_back(nodes - 1);
    }
    const int64_t nc = static_cast<int64_t>(d.configurableNodes.size()),
                  w = tpg::schema::kLayoutConfigWidth;
    d.configFeatureWidth = w;
    tpg::CompactMatrix m(nc * w);
    std::vector<float> row(static_cast<size_t>(nc * w));
    for (int c = 0; c < configs; ++c) {
        double runtime = 10000;
        std::fill(row.begin(), row.end(), -1.0f);
        for (int64_t k = 0; k < nc; ++k) {
            const auto& dims =
                shapes[static_cast<size_t>(d.configurableNodes[static_cast<size_t>(k)])];
            std::vector<int> perm(dims.size());
            std::iota(perm.begin(), perm.end(), 0);
            std::shuffle(perm.begin(), perm.end(), rng);
            int minor = static_cast<int>(dims.size()) - 1;  // the file's default layout
            if (rng() % 5 != 0) {
                for (size_t s = 0; s < perm.size(); ++s)
                    row[static_cast<size_t>(k * w) + s] = static_cast<float>(perm[s]);
                minor = perm[0];
            }
            const int largest =
                static_cast<int>(std::max_element(dims.begin(), dims.end()) - dims.begin());
            if (dims[static_cast<size_t>(minor)] != dims[static_cast<size_t>(largest)])
                runtime += 300.0 * std::log2(2.0 + dims[static_cast<size_t>(largest)]);
            runtime += 800.0 * minor;  // a config-only effect: higher minor axes cost more
        }
        m.appendRows(row.data(), 1);
        runtime *= 1.0 + 0.01 * std::uniform_real_distribution<double>(-1, 1)(rng);
        d.runtimes.push_back(unknownRuntimes ? 0.0 : std::round(runtime));
    }
    d.layoutConfigs = tpg::LayoutConfigTable::fromMatrix(std::move(m), nc, w);
    return tpg::TpuGraph(std::move(d));
}

inline tpg::TpuGraph tileGraph(uint64_t seed, int nodes, int configs,
                               bool unknownRuntimes = false) {
    std::mt19937_64 rng(seed);
    tpg::TpuGraphData d;
    d.name = "tile" + std::to_string(seed);
    d.collection = tpg::Collection::Tile;
    d.numNodes = nodes;
    d.nodeFeatureWidth = tpg::schema::kNodeFeatureWidth;
    d.nodeFeatures.assign(static_cast<size_t>(nodes * d.nodeFeatureWidth), 0.0f);
    const int param = tpg::schema::opcodeId("parameter"), add = tpg::schema::opcodeId("add"),
              conv = tpg::schema::opcodeId("convolution");
    int biggest = 1;
    for (int i = 0; i < nodes; ++i) {
        d.opcodes.push_back(i < 2 ? param : (rng() % 3 ? add : conv));
        std::vector<int> dims{1 << (2 + rng() % 8), 1 << (rng() % 6)};
        biggest = std::max(biggest, dims[0]);
        setShape(d.nodeFeatures, i, d.nodeFeatureWidth, dims);
        if (i > 0) d.edges.push_back({i, static_cast<int32_t>(rng() % i)});
    }
    d.nodeFeatures[static_cast<size_t>((nodes - 1) * d.nodeFeatureWidth)] = 1.0f;  // is_root
    const int64_t w = tpg::schema::kTileConfigWidth;
    d.configFeatureWidth = w;
    const double target =
        std::log2(static_cast<double>(biggest)) / 2.0;  // the graph decides the best tile
    for (int c = 0; c < configs; ++c) {
        std::vector<float> f(static_cast<size_t>(w), 0.0f);
        const int k0 = static_cast<int>(rng() % 8), k1 = static_cast<int>(rng() % 8);
        f[0] = static_cast<float>(1 << k0);
        f[1] = static_cast<float>(1 << k1);
        f[6] = f[0] + f[1];
        f[7] = f[0] * f[1];
        f[8] = static_cast<float>(biggest >> std::min(k0, 7));
        f[14] = f[8];
        f[15] = f[8];
        d.tileConfigFeatures.insert(d.tileConfigFeatures.end(), f.begin(), f.end());
        double runtime = 1000.0 * (1.0 + 0.4 * std::abs(k0 - target) + 0.15 * std::abs(k1 - 3));
        runtime *= 1.0 + 0.01 * std::uniform_real_distribution<double>(-1, 1)(rng);
        d.runtimes.push_back(unknownRuntimes ? 0.0 : std::round(runtime));
        d.runtimeNormalizers.push_back(unknownRuntimes ? 0.0 : 1000.0);
    }
    return tpg::TpuGraph(std::move(d));
}

// dir/npz/layout/xla/random/{train,valid,test} and dir/npz/tile/xla/{train,valid,test}.
inline void writeDataset(const std::string& dir, int trainGraphs, int validGraphs, int testGraphs,
                         int layoutConfigs, int tileConfigs, uint64_t seed = 1) {
    namespace fs = std::filesystem;
    uint64_t s = seed * 1000;
    auto put = [&](const std::string& sub, int count, bool layout, bool unknown) {
        const fs::path p = fs::path(dir) / "npz" / sub;
        fs::create_directories(p);
        for (int i = 0; i < count; ++i) {
            ++s;
            const tpg::TpuGraph g =
                layout ? layoutGraph(s, 24 + static_cast<int>(s % 20), layoutConfigs, unknown)
                       : tileGraph(s, 6 + static_cast<int>(s % 10), tileConfigs, unknown);
            tpg::saveTpuGraph(g, (p / (g.name() + ".npz")).string(), i % 2 == 0);
        }
    };
    put("layout/xla/random/train", trainGraphs, true, false);
    put("layout/xla/random/valid", validGraphs, true, false);
    put("layout/xla/random/test", testGraphs, true, true);
    put("tile/xla/train", trainGraphs, false, false);
    put("tile/xla/valid", validGraphs, false, false);
    put("tile/xla/test", testGraphs, false, true);
}

}  // namespace tiny
