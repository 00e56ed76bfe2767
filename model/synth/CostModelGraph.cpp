// Reading a graph once for the synthetic TPU: each node's class, shape, default layout and work,
// operands in order, a topological order, the configuration columns and the tile tensors.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "synth/NodeFeatureColumns.h"
#include "synth/SyntheticRandom.h"
#include "synth/TpuCostModelImpl.h"

namespace tpg::synth {

// Producers in operand order; returns where each node's producers start (n + 1 entries).
std::vector<int32_t> TpuCostModel::Impl::indexProducers(
    const std::vector<std::array<int32_t, 2>>& edges) {
    // Edges of one consumer appear in the order of its operands.
    std::vector<int32_t> count(static_cast<size_t>(n) + 1, 0);
    for (const auto& e : edges) ++count[static_cast<size_t>(e[0]) + 1];
    for (int64_t i = 0; i < n; ++i)
        count[static_cast<size_t>(i) + 1] += count[static_cast<size_t>(i)];
    prodNode.resize(edges.size());
    prodEdge.resize(edges.size());
    {
        std::vector<int32_t> fill(count.begin(), count.end() - 1);
        for (size_t i = 0; i < edges.size(); ++i) {
            const auto slot = static_cast<size_t>(fill[static_cast<size_t>(edges[i][0])]++);
            prodNode[slot] = edges[i][1];
            prodEdge[slot] = static_cast<int64_t>(i);
        }
    }
    return count;
}

// Shapes, layouts and classes from node_feat; the graph's hash (features, opcodes, edges) keys the
// measurement noise.
void TpuCostModel::Impl::readNodes(const TpuGraph& graph,
                                   const std::vector<int32_t>& producerStart) {
    const auto& c = NodeColumns::get();
    uint64_t h = mix64(static_cast<uint64_t>(n));
    std::unordered_map<int, std::pair<OpClass, bool>> opCache;
    for (int64_t v = 0; v < n; ++v) {
        NodeInfo& x = nodes[static_cast<size_t>(v)];
        const float* f = graph.nodeFeatures(v);
        const int op = graph.opcode(v);
        auto it = opCache.find(op);
        if (it == opCache.end()) {
            const std::string name = schema::opcodeName(op);
            it = opCache.emplace(op, std::make_pair(classify(name), transcendental(name))).first;
        }
        x.cls = it->second.first;
        x.flopsPerElement = it->second.second ? 8.0 : 1.0;
        x.prodBegin = producerStart[static_cast<size_t>(v)];
        x.prodEnd = producerStart[static_cast<size_t>(v) + 1];
        x.tuple = f[c.typeTuple] != 0.0f;
        const float bits = f[c.elementSizeInBits];
        x.elemBytes = bits > 0 ? bits / 8.0 : 4.0;
        const int rank = x.tuple ? 0 : schema::shapeRank(f, c.shapeDims);
        x.rank = static_cast<int8_t>(rank);
        x.volume = 1;
        for (int i = 0; i < rank; ++i) {
            x.dims[static_cast<size_t>(i)] =
                std::max<int64_t>(1, static_cast<int64_t>(f[c.shapeDims + i]));
            x.volume *= static_cast<double>(x.dims[static_cast<size_t>(i)]);
        }
        bool invalid = false;
        float lay[kMaxRank];
        for (int i = 0; i < kMaxRank; ++i) lay[i] = i < rank ? f[c.layout + i] : -1.0f;
        const LayoutCode own = parseSlot(lay, rank, invalid);
        x.defaultLayout = canonical(x, own == kUnset ? descending(rank) : own);
        for (int i = 0; i < kMaxRank; ++i) {
            x.windowProduct *= i < kMaxRank && f[c.windowSize + i] > 0 ? f[c.windowSize + i] : 1.0;
            const int d = static_cast<int>(f[c.dimensions + i]);
            x.perm[static_cast<size_t>(i)] = static_cast<int8_t>(d >= 0 && d < kMaxRank ? d : 0);
        }
        if (x.cls == OpClass::Reduce) {
            // Reduced dims are the operand's dims listed in `dimensions` (zeros beyond their count
            // cannot be told from dim 0; a rank drop tells how many there are).
            const int inRank =
                x.prodEnd > x.prodBegin
                    ? nodes[static_cast<size_t>(prodNode[static_cast<size_t>(x.prodBegin)])].rank
                    : 0;
            const int k = std::max(1, inRank - rank);
            for (int i = 0; i < k && i < kMaxRank; ++i)
                x.reducedMask |= static_cast<uint8_t>(1u << x.perm[static_cast<size_t>(i)]);
        }
        if (x.cls == OpClass::Convolution) {
            x.inFeature = static_cast<int8_t>(f[c.convInputFeature]);
            x.kernelOut = static_cast<int8_t>(f[c.convKernelOutputFeature]);
            x.outFeature = static_cast<int8_t>(f[c.convOutputFeature]);
        }
        for (int i = 0; i < schema::kNodeFeatureWidth; ++i) {
            uint32_t bitsOf;
            std::memcpy(&bitsOf, &f[i], sizeof bitsOf);
            if (bitsOf)
                h = mix64(h ^ (static_cast<uint64_t>(bitsOf) << 8 | static_cast<uint64_t>(i)));
        }
        h = mix64(h ^ static_cast<uint64_t>(op) << 32);
    }
    for (const auto& e : graph.edges())
        h = mix64(h ^ (static_cast<uint64_t>(e[0]) << 32 | static_cast<uint32_t>(e[1])));
    graphHash = h;
}

// Work of convolutions and dots, from shapes (operands in edge order: input/lhs, kernel/rhs).
void TpuCostModel::Impl::deriveMatmulWork() {
    for (int64_t v = 0; v < n; ++v) {
        NodeInfo& x = nodes[static_cast<size_t>(v)];
        if ((x.cls != OpClass::Convolution && x.cls != OpClass::Dot) || x.prodEnd - x.prodBegin < 2)
            continue;
        const NodeInfo& a = at(prodNode[static_cast<size_t>(x.prodBegin)]);
        const NodeInfo& b = at(prodNode[static_cast<size_t>(x.prodBegin) + 1]);
        if (x.cls == OpClass::Convolution) {
            const int64_t outF = x.outFeature >= 0 && x.outFeature < x.rank
                                     ? x.dims[static_cast<size_t>(x.outFeature)]
                                     : 1;
            x.flops = 2.0 * x.volume * b.volume / static_cast<double>(std::max<int64_t>(outF, 1));
            if (x.inFeature >= a.rank) x.inFeature = -1;
            if (x.kernelOut >= b.rank) x.kernelOut = -1;
            if (x.outFeature >= x.rank) x.outFeature = -1;
        } else {
            // Leading dims shared by lhs, rhs and output are batch dims; then a.volume * b.volume
            // / out.volume = batch * K^2 gives the contracted size K.
            int batch = 0;
            double batchVol = 1;
            while (batch < a.rank && batch < b.rank && batch < x.rank &&
                   a.dims[static_cast<size_t>(batch)] == b.dims[static_cast<size_t>(batch)] &&
                   a.dims[static_cast<size_t>(batch)] == x.dims[static_cast<size_t>(batch)] &&
                   batch + 1 < a.rank && batch + 1 < b.rank) {
                batchVol *= static_cast<double>(a.dims[static_cast<size_t>(batch)]);
                ++batch;
            }
            const double k =
                std::sqrt(std::max(1.0, a.volume * b.volume / std::max(1.0, x.volume) / batchVol));
            const auto kInt = static_cast<int64_t>(std::llround(k));
            x.flops = 2.0 * x.volume * std::max(1.0, k);
            for (int i = a.rank - 1; i >= batch; --i)
                if (a.dims[static_cast<size_t>(i)] == kInt) {
                    x.lhsContract = static_cast<int8_t>(i);
                    break;
                }
            int rc = -1;
            for (int i = batch; i < b.rank; ++i)
                if (b.dims[static_cast<size_t>(i)] == kInt) {
                    rc = i;
                    break;
                }
            for (int i = b.rank - 1; i >= batch; --i)
                if (i != rc) {
                    x.rhsOut = static_cast<int8_t>(i);
                    break;
                }
        }
    }
}

// Ids already are in real files; otherwise Kahn's algorithm (nodes left in a cycle follow in id
// order).
void TpuCostModel::Impl::orderTopologically(const std::vector<std::array<int32_t, 2>>& edges) {
    bool sorted = true;
    for (const auto& e : edges) sorted &= e[1] < e[0];
    order.resize(static_cast<size_t>(n));
    if (sorted) {
        for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    } else {
        std::vector<int32_t> indeg(static_cast<size_t>(n), 0);
        std::vector<std::vector<int32_t>> users(static_cast<size_t>(n));
        for (const auto& e : edges) {
            if (e[0] == e[1]) continue;
            ++indeg[static_cast<size_t>(e[0])];
            users[static_cast<size_t>(e[1])].push_back(e[0]);
        }
        std::vector<char> placed(static_cast<size_t>(n), 0);
        size_t head = 0, filled = 0;
        for (int64_t i = 0; i < n; ++i)
            if (!indeg[static_cast<size_t>(i)])
                order[filled++] = static_cast<int32_t>(i), placed[static_cast<size_t>(i)] = 1;
        while (head < filled) {
            const int32_t v = order[head++];
            for (int32_t u : users[static_cast<size_t>(v)])
                if (--indeg[static_cast<size_t>(u)] == 0)
                    order[filled++] = u, placed[static_cast<size_t>(u)] = 1;
        }
        for (int64_t i = 0; i < n; ++i)
            if (!placed[static_cast<size_t>(i)]) order[filled++] = static_cast<int32_t>(i);
    }
}

// Config columns by schema name, and which nodes are configurable.
void TpuCostModel::Impl::findConfigColumns(const TpuGraph& graph) {
    auto findIn = [](const std::vector<std::string>& names, const char* name, int fallback) {
        for (size_t i = 0; i < names.size(); ++i)
            if (names[i] == name) return static_cast<int>(i);
        return fallback;
    };
    outSlot = findIn(schema::layoutConfigFeatureNames(), "output_layout_0", 0);
    inSlot = findIn(schema::layoutConfigFeatureNames(), "input_layout_0", 6);
    kernelSlot = findIn(schema::layoutConfigFeatureNames(), "kernel_layout_0", 12);
    kernelBounds = findIn(schema::tileConfigFeatureNames(), "kernel_bounds_0", 0);
    outputBounds = findIn(schema::tileConfigFeatureNames(), "output_bounds_0", 8);
    inputBounds = findIn(schema::tileConfigFeatureNames(), "input_bounds_0", 16);
    configWidth = graph.isLayout() ? schema::kLayoutConfigWidth : schema::kTileConfigWidth;
    configurable = graph.configurableNodes();
    configIndex.assign(static_cast<size_t>(n), -1);
    for (size_t k = 0; k < configurable.size(); ++k)
        configIndex[static_cast<size_t>(configurable[k])] = static_cast<int32_t>(k);
}

// The kernel's root output; the input and kernel of its heaviest convolution or dot (else of the
// root itself).
void TpuCostModel::Impl::findTileTensors(const TpuGraph& graph) {
    const auto& c = NodeColumns::get();
    int32_t root = -1;
    for (int64_t v = n - 1; v >= 0 && root < 0; --v)
        if (graph.nodeFeature(v, c.isRoot) != 0.0f) root = static_cast<int32_t>(v);
    if (root < 0) root = static_cast<int32_t>(n - 1);
    while (at(root).tuple && at(root).prodEnd > at(root).prodBegin)
        root = prodNode[static_cast<size_t>(at(root).prodBegin)];
    tileOut = root;
    int32_t anchor = root;
    double best = -1;
    for (int64_t v = 0; v < n; ++v)
        if (nodes[static_cast<size_t>(v)].flops > best && nodes[static_cast<size_t>(v)].flops > 0) {
            best = nodes[static_cast<size_t>(v)].flops;
            anchor = static_cast<int32_t>(v);
        }
    const NodeInfo& an = at(anchor);
    if (an.prodEnd > an.prodBegin) tileIn = prodNode[static_cast<size_t>(an.prodBegin)];
    if (an.flops > 0 && an.prodEnd - an.prodBegin >= 2)
        tileKernel = prodNode[static_cast<size_t>(an.prodBegin) + 1];
}

}  // namespace tpg::synth
