#pragma once

// Synthetic TpuGraphs graphs of realistic HLO shape, built in code for viz/widgets/app tests and
// the viz benchmark: computations of residual blocks (parameter -> convolution -> add (bias)
// -> maximum (relu) -> reshape/dot, with skip connections and a shared weight read by many
// blocks), f32 tensors with XLA layouts, configurable convolution/dot/reshape nodes, node_splits.

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "io/CompactMatrix.h"
#include "io/LayoutConfigTable.h"
#include "graph/Schema.h"
#include "graph/TpuGraph.h"

namespace tpg::testing {

struct HloGraphSpec {
    int64_t nodes = 400;
    int computations = 4;
    int configurableEvery = 3;  // every k-th convolution/dot/reshape is configurable
    int64_t configs = 16;
    Collection collection = Collection::Layout;
    uint32_t seed = 1;
    int64_t featureWidth = schema::kNodeFeatureWidth;
    std::string name = "synthetic";
};

inline int opcodeOf(const char* name) {
    return schema::opcodeId(name);
}

// Writes shape columns for an f32 tensor with `dims` and minor-to-major `layout`.
inline void setTensor(float* f, const std::vector<int64_t>& dims, const std::vector<int>& layout) {
    f[13] = 1;  // shape_element_type_is_f32
    f[1] = 32;  // element_size_in_bits
    int64_t sum = 0, product = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
        f[schema::kShapeDimColumn + i] = static_cast<float>(dims[i]);
        sum += dims[i];
        product *= dims[i];
    }
    f[27] = static_cast<float>(sum);
    f[schema::kShapeProductColumn] = static_cast<float>(product);
    for (size_t i = 0; i < layout.size(); ++i)
        f[schema::kNodeLayoutColumn + i] = static_cast<float>(layout[i]);
}

inline TpuGraph makeHloGraph(const HloGraphSpec& spec) {
    std::mt19937 rng(spec.seed);
    TpuGraphData d;
    d.name = spec.name;
    d.collection = spec.collection;
    d.numNodes = spec.nodes;
    d.nodeFeatureWidth = spec.featureWidth;
    d.nodeFeatures.assign(static_cast<size_t>(spec.nodes * spec.featureWidth), 0.0f);
    d.opcodes.assign(static_cast<size_t>(spec.nodes), 0);
    const bool full = spec.featureWidth == schema::kNodeFeatureWidth;
    auto feat = [&](int64_t n) { return d.nodeFeatures.data() + n * spec.featureWidth; };
    auto edge = [&](int64_t consumer, int64_t producer) {
        d.edges.push_back({static_cast<int32_t>(consumer), static_cast<int32_t>(producer)});
    };

    const int64_t perComputation =
        std::max<int64_t>(1, spec.nodes / std::max(1, spec.computations));
    const std::vector<const char*> pattern = {"convolution", "add", "maximum",
                                              "reshape",     "dot", "add"};
    int64_t computationStart = 0, previous = -1, blockInput = -1, sharedWeight = -1;
    int computeSeen = 0;
    for (int64_t n = 0; n < spec.nodes; ++n) {
        float* f = feat(n);
        const bool newComputation =
            n == 0 || (n - computationStart >= perComputation &&
                       static_cast<int64_t>(d.nodeSplits.size()) + 1 < spec.computations);
        if (newComputation) {
            if (n > 0) d.nodeSplits.push_back(n);
            computationStart = n;
            d.opcodes[static_cast<size_t>(n)] = opcodeOf("parameter");
            if (full) setTensor(f, {8, 56, 56, 64}, {3, 2, 1, 0});
            if (n > 0 && previous >= 0)
                edge(n, previous);  // computations chain through their results
            previous = blockInput = sharedWeight = n;
            continue;
        }
        const int64_t k = (n - computationStart - 1) % static_cast<int64_t>(pattern.size() + 1);
        if (k == 0) {  // a weight parameter per block
            d.opcodes[static_cast<size_t>(n)] = opcodeOf("parameter");
            if (full) setTensor(f, {3, 3, 64, 64}, {3, 2, 0, 1});
            continue;  // no edge: parameters are sources; the next op reads it
        }
        const char* op = pattern[static_cast<size_t>(k - 1)];
        d.opcodes[static_cast<size_t>(n)] = opcodeOf(op);
        const std::string name = op;
        if (full) {
            if (name == "reshape")
                setTensor(f, {8, 200704}, {1, 0});
            else if (name == "dot")
                setTensor(f, {8, 1000}, {1, 0});
            else
                setTensor(
                    f, {8, 56, 56, 64},
                    rng() % 4 == 0 ? std::vector<int>{1, 0, 3, 2} : std::vector<int>{3, 2, 1, 0});
            if (name == "convolution") {
                for (int i = 0; i < 2; ++i)
                    f[37 + i] = 3, f[45 + i] = 1, f[53 + i] = 1, f[61 + i] = 1;
                f[43] = 6, f[44] = 9, f[51] = 2, f[52] = 1;
                f[95] = 1, f[96] = 2, f[94] = 3, f[100] = 3, f[106] = 3, f[107] = 1, f[108] = 1;
            }
        }
        edge(n, previous);
        if (name == "convolution") edge(n, n - 1);  // its weight
        if (name == "dot" && sharedWeight >= 0)
            edge(n, sharedWeight);  // a weight read by many blocks
        if (k == static_cast<int64_t>(pattern.size()) && blockInput >= 0 && blockInput != previous)
            edge(n, blockInput);  // residual
        if (name == "convolution" || name == "dot" || name == "reshape") {
            if (spec.collection == Collection::Layout &&
                computeSeen++ % std::max(1, spec.configurableEvery) == 0)
                d.configurableNodes.push_back(static_cast<int32_t>(n));
        }
        previous = n;
        if (k == static_cast<int64_t>(pattern.size())) blockInput = n;
    }
    if (full) feat(spec.nodes - 1)[0] = 1;  // is_root

    std::uniform_int_distribution<int> runtime(1000, 5000);
    d.runtimes.resize(static_cast<size_t>(spec.configs));
    for (auto& r : d.runtimes) r = runtime(rng);
    if (spec.collection == Collection::Tile) {
        d.configFeatureWidth = schema::kTileConfigWidth;
        d.runtimeNormalizers.assign(static_cast<size_t>(spec.configs), 2000.0);
        d.tileConfigFeatures.resize(static_cast<size_t>(spec.configs * schema::kTileConfigWidth));
        for (auto& v : d.tileConfigFeatures) v = static_cast<float>(1 + rng() % 16);
    } else {
        d.configFeatureWidth = schema::kLayoutConfigWidth;
        const auto nc = static_cast<int64_t>(d.configurableNodes.size());
        CompactMatrix m(nc * schema::kLayoutConfigWidth);
        std::vector<float> row(static_cast<size_t>(nc * schema::kLayoutConfigWidth));
        for (int64_t c = 0; c < spec.configs; ++c) {
            for (int64_t j = 0; j < nc; ++j) {
                float* r = row.data() + j * schema::kLayoutConfigWidth;
                const bool isDefault =
                    (c + j) % 3 == 0;          // every third node keeps the default layout
                for (int s = 0; s < 3; ++s) {  // output, input, kernel
                    for (int i = 0; i < 6; ++i) r[s * 6 + i] = -1;
                    if (isDefault) continue;
                    const int rank = 4;
                    std::vector<int> perm = {0, 1, 2, 3};
                    std::shuffle(perm.begin(), perm.end(), rng);
                    for (int i = 0; i < rank; ++i)
                        r[s * 6 + i] = static_cast<float>(perm[static_cast<size_t>(i)]);
                }
            }
            m.appendRows(row.data(), 1);
        }
        d.layoutConfigs =
            LayoutConfigTable::fromMatrix(std::move(m), nc, schema::kLayoutConfigWidth);
    }
    return TpuGraph(std::move(d));
}

}  // namespace tpg::testing
