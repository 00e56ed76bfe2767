#include "DistinctConfigRows.h"

#include <algorithm>
#include <cstring>

#include "LayoutCostNet.h"

namespace tpg::nn {

namespace {

uint64_t mixed(uint64_t h, uint64_t v) { return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)); }

// Sorts C keys of `width` values into classes of equal keys: by hash, then exact comparison
// within a hash run. Buffers are reused across the calls of one search.
class KeyClasses {
public:
    std::vector<int64_t> keys;     // [C * width], filled by the caller
    std::vector<int64_t> classOf;  // per config
    std::vector<int64_t> reps;     // per class: its first config in hash order

    void group(int64_t configs, int64_t width) {
        m_order.resize(static_cast<size_t>(configs));
        for (int64_t c = 0; c < configs; ++c) {
            uint64_t h = 0;
            for (int64_t i = 0; i < width; ++i) h = mixed(h, static_cast<uint64_t>(keys[at(c, width, i)]));
            m_order[static_cast<size_t>(c)] = {h, c};
        }
        std::sort(m_order.begin(), m_order.end());
        classOf.assign(static_cast<size_t>(configs), -1);
        reps.clear();
        for (size_t i = 0; i < m_order.size();) {
            size_t end = i;
            while (end < m_order.size() && m_order[end].first == m_order[i].first) ++end;
            const size_t firstClass = reps.size();
            for (size_t j = i; j < end; ++j) {
                const int64_t c = m_order[j].second;
                auto k = static_cast<int64_t>(firstClass);
                while (k < static_cast<int64_t>(reps.size()) && !same(c, reps[static_cast<size_t>(k)], width)) ++k;
                if (k == static_cast<int64_t>(reps.size())) reps.push_back(c);
                classOf[static_cast<size_t>(c)] = k;
            }
            i = end;
        }
    }

private:
    static size_t at(int64_t c, int64_t width, int64_t i) { return static_cast<size_t>(c * width + i); }
    bool same(int64_t a, int64_t b, int64_t width) const {
        return std::equal(keys.begin() + static_cast<std::ptrdiff_t>(at(a, width, 0)),
                          keys.begin() + static_cast<std::ptrdiff_t>(at(a, width, width)),
                          keys.begin() + static_cast<std::ptrdiff_t>(at(b, width, 0)));
    }
    std::vector<std::pair<uint64_t, int64_t>> m_order;
};

torch::Tensor longTensor(const std::vector<int64_t>& v) {
    return torch::from_blob(const_cast<int64_t*>(v.data()), {static_cast<int64_t>(v.size())}, torch::kLong).clone();
}

std::vector<int64_t> longVector(const torch::Tensor& t) {
    auto c = t.contiguous();
    return {c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel()};
}

// Layer 0: each configurable node's distinct config rows, with the rows of its sources (an
// [nc, perNode] list, -1 none) beside its own, all compared bit for bit.
bool findPairs(const torch::Tensor& config, const std::vector<int64_t>& configPos,
               const std::vector<int64_t>& sources, int64_t perNode, int64_t positions, double maxShare,
               KeyClasses& kc, DistinctConfigRows& out, std::vector<int64_t>& rowOf) {
    const int64_t c = config.size(0), nc = config.size(1), f = config.size(2);
    const auto cfg = config.to(torch::kFloat).contiguous();
    const float* v = cfg.data_ptr<float>();
    std::vector<int64_t> pairs, pairNode, pairOfEntry(static_cast<size_t>(c * nc));
    rowOf.resize(static_cast<size_t>(positions * c));
    for (int64_t s = 0; s < positions; ++s)
        std::fill_n(rowOf.begin() + static_cast<std::ptrdiff_t>(s * c), c, s);
    std::vector<int64_t> keyNodes;
    for (int64_t k = 0; k < nc; ++k) {
        keyNodes.assign(1, k);
        for (int64_t j = 0; j < perNode; ++j) {
            const int64_t from = sources[static_cast<size_t>(k * perNode + j)];
            if (from >= 0 && from < nc && from != k) keyNodes.push_back(from);
        }
        const auto width = static_cast<int64_t>(keyNodes.size()) * f;
        kc.keys.resize(static_cast<size_t>(c * width));
        for (int64_t i = 0; i < c; ++i) {
            auto* key = &kc.keys[static_cast<size_t>(i * width)];
            for (int64_t node : keyNodes)
                for (int64_t j = 0; j < f; ++j) {
                    uint32_t bits = 0;
                    std::memcpy(&bits, v + (i * nc + node) * f + j, sizeof bits);
                    *key++ = bits;
                }
        }
        kc.group(c, width);
        const auto first = static_cast<int64_t>(pairs.size());
        for (int64_t rep : kc.reps) {
            pairs.push_back(rep * nc + k);
            pairNode.push_back(k);
        }
        const int64_t s = configPos[static_cast<size_t>(k)];
        for (int64_t i = 0; i < c; ++i) {
            const int64_t pair = first + kc.classOf[static_cast<size_t>(i)];
            pairOfEntry[static_cast<size_t>(i * nc + k)] = pair;
            rowOf[static_cast<size_t>(s * c + i)] = positions + pair;
        }
        if (static_cast<double>(pairs.size()) > maxShare * static_cast<double>(c * nc)) return false;
    }
    out.pairs = longTensor(pairs);
    out.pairNode = longTensor(pairNode);
    out.pairOfEntry = longTensor(pairOfEntry);
    return true;
}

// Layer l >= 1 from layer l - 1's rows `prev`: a row per distinct (own row, neighbours' rows).
bool findLayer(const LocalAdjacency& adj, const std::vector<int64_t>& haloIndex, int64_t configs, double maxShare,
               KeyClasses& kc, const std::vector<int64_t>& prev, std::vector<int64_t>& cur,
               DistinctConfigRows::Layer& layer) {
    const auto positions = static_cast<int64_t>(adj.producers.size());
    const auto haloCount = static_cast<int64_t>(std::count(adj.halo.begin(), adj.halo.end(), 1));
    const double cap = maxShare * static_cast<double>((positions - haloCount) * configs);
    std::vector<int64_t> position, self, pt, ps, ct, cs;
    cur.resize(static_cast<size_t>(positions * configs));
    auto prevRow = [&](int64_t s, int64_t c) { return prev[static_cast<size_t>(s * configs + c)]; };
    for (int64_t s = 0; s < positions; ++s) {
        auto* rows = &cur[static_cast<size_t>(s * configs)];
        if (adj.halo[static_cast<size_t>(s)]) {
            std::fill_n(rows, configs, haloIndex[static_cast<size_t>(s)]);
            continue;
        }
        const auto& producers = adj.producers[static_cast<size_t>(s)];
        const auto& consumers = adj.consumers[static_cast<size_t>(s)];
        const auto width = static_cast<int64_t>(1 + producers.size() + consumers.size());
        kc.keys.resize(static_cast<size_t>(configs * width));
        for (int64_t c = 0; c < configs; ++c) {
            auto* key = &kc.keys[static_cast<size_t>(c * width)];
            *key++ = prevRow(s, c);
            for (int64_t u : producers) *key++ = prevRow(u, c);
            for (int64_t u : consumers) *key++ = prevRow(u, c);
        }
        kc.group(configs, width);
        const auto first = static_cast<int64_t>(position.size());
        for (size_t r = 0; r < kc.reps.size(); ++r) {
            const int64_t rep = kc.reps[r];
            const int64_t row = first + static_cast<int64_t>(r);
            position.push_back(s);
            self.push_back(prevRow(s, rep));
            for (int64_t u : producers) {
                pt.push_back(row);
                ps.push_back(prevRow(u, rep));
            }
            for (int64_t u : consumers) {
                ct.push_back(row);
                cs.push_back(prevRow(u, rep));
            }
        }
        for (int64_t c = 0; c < configs; ++c) rows[c] = haloCount + first + kc.classOf[static_cast<size_t>(c)];
        if (static_cast<double>(position.size()) > cap) return false;
    }
    layer.position = longTensor(position);
    layer.self = longTensor(self);
    layer.producerTarget = longTensor(pt);
    layer.producerSource = longTensor(ps);
    layer.consumerTarget = longTensor(ct);
    layer.consumerSource = longTensor(cs);
    return true;
}

}  // namespace

bool findDistinctConfigRows(const torch::Tensor& config, const GraphTensors& g, int64_t layers, double maxShare,
                            const torch::Tensor& sources, DistinctConfigRows& out) {
    const int64_t configs = config.size(0);
    const int64_t positions = g.subset.numel();
    KeyClasses kc;
    std::vector<int64_t> prev, cur;
    const std::vector<int64_t> sourceList = sources.defined() ? longVector(sources) : std::vector<int64_t>{};
    const int64_t perNode = sources.defined() ? sources.size(1) : 0;
    if (!findPairs(config, longVector(g.configPos), sourceList, perNode, positions, maxShare, kc, out, prev))
        return false;
    const LocalAdjacency adj(g);  // only once layer 0 shares enough rows
    std::vector<int64_t> haloIndex(static_cast<size_t>(positions), -1);
    const std::vector<int64_t> haloPos = longVector(g.haloPos);
    for (size_t j = 0; j < haloPos.size(); ++j) haloIndex[static_cast<size_t>(haloPos[j])] = static_cast<int64_t>(j);
    out.layers.assign(static_cast<size_t>(layers), {});
    for (auto& layer : out.layers) {
        if (!findLayer(adj, haloIndex, configs, maxShare, kc, prev, cur, layer)) return false;
        std::swap(prev, cur);
    }
    out.rowOf = longTensor(prev);
    return true;
}

}  // namespace tpg::nn
