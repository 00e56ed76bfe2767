#include "LayoutCostNet.h"

#include <algorithm>

#include "DistinctConfigRows.h"
#include "NnLimits.h"
#include "RowMax.h"

namespace tpg::nn {

namespace {

// The edited rows and the rows whose flow features read them, each once.
std::vector<int64_t> withFlowReaders(const LocalAdjacency& adj, const std::vector<int64_t>& changed) {
    std::vector<int64_t> rows = changed;
    for (int64_t k : changed)
        if (static_cast<size_t>(k) < adj.flowReaders.size())
            rows.insert(rows.end(), adj.flowReaders[static_cast<size_t>(k)].begin(),
                        adj.flowReaders[static_cast<size_t>(k)].end());
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

}  // namespace

LayoutCostNetImpl::LayoutCostNetImpl(const CostNetOptions& o) : options(o) {
    const int64_t h = o.hidden;
    nodeEncoder = register_module("nodeEncoder", NodeEncoder(o.nodeFeatureWidth, o.opcodeDim, h));
    const int64_t slotWidth =
        o.slotFeatures ? kSlotFeatureCount + (o.flowFeatures ? flowFeatureCount(o.relayoutFeatures) : 0) : 0;
    configEncoder = register_module("configEncoder", LayoutConfigEncoder(o.configWidth, h, kLayoutSlots * slotWidth));
    fuse = register_module("fuse", Mlp(2 * h, h, h));
    layers = register_module("layers", torch::nn::ModuleList());
    for (int64_t l = 0; l < o.layers; ++l) layers->push_back(SageConv(h));
    if (hasPooledHead()) {
        project = register_module("project", Dense(4 * h + (o.violationFeature ? 1 : 0), h));
        if (o.configAttention)
            attention = register_module("attention", ConfigAttention(h, o.attentionHeads));
        head = register_module("head", Mlp(h, h, 1));
    }
    if (o.nodeCostReadout) nodeCost = register_module("nodeCost", Mlp(h, h, 1));
}

torch::Tensor LayoutCostNetImpl::encodePicked(const torch::Tensor& picked, const LayoutSlotTensors& slots,
                                              const torch::Tensor& flow) {
    if (!options.slotFeatures) return configEncoder(picked);
    TORCH_CHECK(slots.defined(), "a model with slot features needs the graph's slot tensors");
    auto features = layoutSlotFeatures(picked, slots);
    return configEncoder(picked, flow.defined() ? torch::cat({features, flow}, 2) : features);
}

torch::Tensor LayoutCostNetImpl::encodeConfig(const GraphTensors& g, const torch::Tensor& config,
                                              const torch::Tensor& rows) {
    const torch::Tensor picked = rows.defined() ? config.index_select(1, rows) : config;
    const LayoutSlotTensors selected =
        rows.defined() && g.slotTensors.defined() ? g.slotTensors.rows(rows) : g.slotTensors;
    if (!readsWholeConfig()) return encodePicked(picked, selected);
    TORCH_CHECK(g.slotTensors.defined(), "a model with slot features needs the graph's slot tensors");
    // The flow features read the whole config: a row's sources may lie outside `rows`.
    auto flow = layoutFlowFeatures(config, g.slotTensors);
    return encodePicked(picked, selected, rows.defined() ? flow.index_select(1, rows) : flow);
}

LayoutSharedPass LayoutCostNetImpl::sharedPass(const GraphTensors& g) {
    // Config-free pass over all N nodes: shared[l] is [N, H] after l layers.
    // Dropout here, in the config-free pass, gives every config of a step the same mask: the
    // configs are still compared on one graph.
    std::vector<torch::Tensor> shared{torch::dropout(nodeEncoder(g.x, g.opcode), nodeDropout, is_training())};
    for (const auto& layer : *layers)
        shared.push_back(layer->as<SageConv>()->forward(shared.back(), g.full));
    LayoutSharedPass s;
    s.subsetInput = shared[0].index_select(0, g.subset);
    s.configurableInput = shared[0].index_select(0, g.subset.index_select(0, g.configPos));
    if (g.haloPos.numel() > 0)
        for (size_t l = 1; l < shared.size(); ++l)
            s.halo.push_back(shared[l].index_select(0, g.haloIds));
    if (g.outsideIds.numel() > 0) {
        auto rest = shared.back().index_select(0, g.outsideIds);  // [N - D, H]
        if (hasPooledHead()) {
            s.restSum = rest.sum(0);
            s.restMax = maxOverRows(rest);
        }
        if (options.nodeCostReadout) s.restCost = nodeCost(rest).squeeze(1).logsumexp(0);  // []
    }
    return s;
}

torch::Tensor LayoutCostNetImpl::forward(const GraphTensors& g, const torch::Tensor& config,
                                         const torch::Tensor& violation) {
    return forward(g, sharedPass(g), config, violation);
}

LayoutCostNetImpl::PerConfigPass LayoutCostNetImpl::distinctRowPass(const GraphTensors& g,
                                                                    const LayoutSharedPass& shared,
                                                                    const torch::Tensor& config) {
    const int64_t c = config.size(0), nc = config.size(1);
    PerConfigPass out;
    DistinctConfigRows d;
    // Flow features also read the nodes whose output layouts arrive at a node's slots.
    const torch::Tensor sources = readsWholeConfig() ? g.slotTensors.source : torch::Tensor();
    if (c < 2 ||
        !findDistinctConfigRows(config, g, static_cast<int64_t>(layers->size()), limits::kDistinctRowShare, sources, d))
        return out;
    // Layer 0: each distinct (config, node) pair encoded and fused once.
    auto picked = config.reshape({1, c * nc, -1}).index_select(1, d.pairs);  // [1, P, F]
    const LayoutSlotTensors slots = g.slotTensors.defined() ? g.slotTensors.rows(d.pairNode) : g.slotTensors;
    const torch::Tensor flow = readsWholeConfig() ? layoutFlowFeatures(config, g.slotTensors)
                                                        .reshape({1, c * nc, -1})
                                                        .index_select(1, d.pairs)
                                                  : torch::Tensor();
    auto encoded = encodePicked(picked, slots, flow).squeeze(0);  // [P, H]
    out.encodedByConfig = encoded.index_select(0, d.pairOfEntry).view({c, nc, -1});
    auto fusedPairs = fuse(torch::cat({shared.configurableInput.index_select(0, d.pairNode), encoded}, 1));
    auto pairPos = g.configPos.index_select(0, d.pairNode);
    auto z = torch::cat({shared.subsetInput, shared.subsetInput.index_select(0, pairPos) + fusedPairs});
    for (size_t l = 0; l < layers->size(); ++l) {  // z: the layer's rows [rows, H]
        const DistinctConfigRows::Layer& next = d.layers[l];
        auto self = z.index_select(0, next.self);
        auto fromProducers = meanMessages(next.producerTarget, z, next.producerSource,
                                          g.local.invProducerCount.index_select(0, next.position));
        auto fromConsumers = meanMessages(next.consumerTarget, z, next.consumerSource,
                                          g.local.invConsumerCount.index_select(0, next.position));
        auto computed = layers[l]->as<SageConv>()->combine(self, fromProducers, fromConsumers);
        z = shared.halo.empty() ? computed : torch::cat({shared.halo[l], computed});
    }
    const auto rowOf = d.rowOf.view({-1, c});  // [S, C]
    out.z = z.index_select(0, rowOf.reshape(-1)).view({-1, c, z.size(1)});
    if (options.nodeCostReadout)  // the per-node MLP once per distinct row too
        out.dependentCost =
            nodeCost(z).squeeze(1).index_select(0, rowOf.index_select(0, g.dependentPos).reshape(-1)).view({-1, c});
    return out;
}

torch::Tensor LayoutCostNetImpl::forward(const GraphTensors& g, const LayoutSharedPass& shared,
                                         const torch::Tensor& config,
                                         const torch::Tensor& violation) {
    if (distinctRows) {
        const PerConfigPass pass = distinctRowPass(g, shared, config);
        if (pass.z.defined()) return readout(g, shared, pass.z, pass.encodedByConfig, violation, pass.dependentCost);
    }
    const int64_t c = config.size(0);
    // Per-config pass over S, node-major: [S, C, H], the fused (node, config) encoding added on
    // the configurable nodes.
    auto z = shared.subsetInput.unsqueeze(1).expand({-1, c, -1}).contiguous();
    const auto& configurable = shared.configurableInput;  // [nc, H]
    auto encodedByConfig = encodeConfig(g, config);      // [C, nc, H]
    auto encoded = encodedByConfig.transpose(0, 1);       // [nc, C, H]
    auto joined =
        torch::cat({configurable.unsqueeze(1).expand({-1, c, -1}), encoded}, 2);  // [nc, C, 2H]
    z = z.index_add(0, g.configPos, fuse(joined));
    for (size_t l = 0; l < layers->size(); ++l) {
        z = layers[l]->as<SageConv>()->forward(z, g.local);  // [S, C, H]
        if (!shared.halo.empty())  // halo nodes lack some neighbours in S: take their exact
                                   // config-free value
            z = z.index_copy(0, g.haloPos, shared.halo[l].unsqueeze(1).expand({-1, c, -1}));
    }

    return readout(g, shared, z, encodedByConfig, violation);
}

torch::Tensor LayoutCostNetImpl::readout(const GraphTensors& g, const LayoutSharedPass& shared,
                                         const torch::Tensor& z, const torch::Tensor& encodedByConfig,
                                         const torch::Tensor& violation, const torch::Tensor& dependentCost) {
    if (!hasPooledHead())  // the node costs alone (from the distinct-row pass when it has them)
        return summedNodeCost(shared, dependentCost.defined() ? torch::Tensor() : z.index_select(0, g.dependentPos),
                              dependentCost);
    const int64_t c = z.size(1);
    // Mean + max over all N nodes: per-config nodes D, plus the config-free rest.
    auto zd = z.index_select(0, g.dependentPos);  // [D, C, H]
    auto sum = zd.sum(0);                         // [C, H]
    auto mx = maxOverRows(zd);                    // [C, H]
    if (shared.restSum.defined()) {
        sum = sum + shared.restSum;
        mx = torch::maximum(mx, shared.restMax);
    }
    // Plus two views of the configurable nodes alone: their final embeddings, and their config
    // encodings straight from the input (a skip path that makes a per-config linear model a
    // special case of this network).
    auto configurableFinal = z.index_select(0, g.configPos).mean(0);  // [C, H]
    auto configSkip = encodedByConfig.mean(1);                        // [C, H]
    auto pooled = torch::cat(
        {sum / static_cast<double>(g.numNodes), mx, configurableFinal, configSkip}, 1);  // [C, 4H]
    if (options.violationFeature) pooled = torch::cat({pooled, violation.reshape({c, 1})}, 1);
    auto e = torch::relu(project(pooled));  // [C, H]
    if (options.configAttention) e = attention(e);
    auto score = head(e).squeeze(1);  // [C]
    if (options.nodeCostReadout) score = score + summedNodeCost(shared, zd, dependentCost);
    return score;
}

torch::Tensor LayoutCostNetImpl::summedNodeCost(const LayoutSharedPass& shared, const torch::Tensor& zd,
                                                const torch::Tensor& dependentCost) {
    auto cost = (dependentCost.defined() ? dependentCost : nodeCost(zd).squeeze(2)).logsumexp(0);  // [C]
    if (shared.restCost.defined()) cost = torch::logaddexp(cost, shared.restCost);
    return cost;
}

LocalAdjacency::LocalAdjacency(const GraphTensors& g) {
    const int64_t s = g.subset.numel();
    producers.resize(static_cast<size_t>(s));
    consumers.resize(static_cast<size_t>(s));
    halo.assign(static_cast<size_t>(s), 0);
    auto cons = g.local.consumer.contiguous();
    auto prod = g.local.producer.contiguous();
    const int64_t* c = cons.data_ptr<int64_t>();
    const int64_t* p = prod.data_ptr<int64_t>();
    for (int64_t e = 0; e < cons.numel(); ++e) {
        producers[static_cast<size_t>(c[e])].push_back(p[e]);
        consumers[static_cast<size_t>(p[e])].push_back(c[e]);
    }
    auto hp = g.haloPos.contiguous();
    for (int64_t i = 0; i < hp.numel(); ++i) halo[static_cast<size_t>(hp.data_ptr<int64_t>()[i])] = 1;
    if (!g.slotTensors.defined()) return;
    auto source = g.slotTensors.source.contiguous();  // [nc, 3]
    const int64_t nc = source.size(0);
    flowReaders.resize(static_cast<size_t>(nc));
    const int64_t* src = source.data_ptr<int64_t>();
    for (int64_t k = 0; k < nc; ++k)
        for (int64_t slot = 1; slot < kLayoutSlots; ++slot) {
            const int64_t from = src[k * kLayoutSlots + slot];
            if (from < 0 || from >= nc) continue;
            auto& readers = flowReaders[static_cast<size_t>(from)];
            if (readers.empty() || readers.back() != k) readers.push_back(k);
        }
}

torch::Tensor LayoutCostNetImpl::fused(const LayoutSharedPass& shared, const torch::Tensor& encoded,
                                       const torch::Tensor& rows) {
    auto enc = encoded.index_select(1, rows).transpose(0, 1);                  // [k, 1, H]
    auto node = shared.configurableInput.index_select(0, rows).unsqueeze(1);  // [k, 1, H]
    return fuse(torch::cat({node, enc}, 2));                                  // [k, 1, H]
}

torch::Tensor LayoutCostNetImpl::configState(const GraphTensors& g, const LayoutSharedPass& shared,
                                             const torch::Tensor& config, const torch::Tensor& violation,
                                             LayoutConfigState& state) {
    // forward() with C = 1, keeping every layer.
    state.encoded = encodeConfig(g, config);  // [1, nc, H]
    auto all = torch::arange(state.encoded.size(1), torch::kLong);
    auto z = shared.subsetInput.unsqueeze(1).clone().index_add(0, g.configPos, fused(shared, state.encoded, all));
    state.z = {z};
    for (size_t l = 0; l < layers->size(); ++l) {
        z = layers[l]->as<SageConv>()->forward(z, g.local);
        if (!shared.halo.empty()) z = z.index_copy(0, g.haloPos, shared.halo[l].unsqueeze(1));
        state.z.push_back(z);
    }
    return readout(g, shared, z, state.encoded, violation);
}

torch::Tensor LayoutCostNetImpl::rescore(const GraphTensors& g, const LayoutSharedPass& shared,
                                         const LocalAdjacency& adj, const torch::Tensor& config,
                                         const std::vector<int64_t>& changed, const torch::Tensor& violation,
                                         LayoutConfigState& state) {
    if (changed.empty()) return readout(g, shared, state.z.back(), state.encoded, violation);
    const std::vector<int64_t> rowList = readsWholeConfig() ? withFlowReaders(adj, changed) : changed;
    auto rows = torch::tensor(rowList, torch::kLong);
    // The edited nodes' encodings, and their layer-0 embeddings (subset input + fused encoding).
    state.encoded.index_copy_(1, rows, encodeConfig(g, config, rows));
    auto positions = g.configPos.index_select(0, rows);
    state.z[0].index_copy_(0, positions, shared.subsetInput.index_select(0, positions).unsqueeze(1) +
                                             fused(shared, state.encoded, rows));
    // Layer by layer, the positions whose inputs changed: the last layer's set and its
    // neighbours in S, less the halo (whose values are config-free).
    const auto s = static_cast<size_t>(g.subset.numel());
    std::vector<char> inSet(s, 0);
    std::vector<int64_t> affected(rowList.size());
    auto pos = positions.contiguous();
    for (size_t i = 0; i < rowList.size(); ++i) affected[i] = pos.data_ptr<int64_t>()[i];
    for (int64_t p : affected) inSet[static_cast<size_t>(p)] = 1;
    for (size_t l = 0; l < layers->size(); ++l) {
        std::vector<int64_t> grown = affected;
        for (int64_t p : affected)
            for (const auto* list : {&adj.producers[static_cast<size_t>(p)], &adj.consumers[static_cast<size_t>(p)]})
                for (int64_t q : *list)
                    if (!inSet[static_cast<size_t>(q)]) {
                        inSet[static_cast<size_t>(q)] = 1;
                        grown.push_back(q);
                    }
        std::vector<int64_t> next;
        for (int64_t p : grown)
            if (!adj.halo[static_cast<size_t>(p)]) next.push_back(p);
        affected = next;
        // Recompute layer l + 1 at `affected` from layer l (the SageConv of those rows alone).
        std::vector<int64_t> prodTarget, prodSource, consTarget, consSource;
        for (size_t i = 0; i < affected.size(); ++i) {
            for (int64_t q : adj.producers[static_cast<size_t>(affected[i])]) {
                prodTarget.push_back(static_cast<int64_t>(i));
                prodSource.push_back(q);
            }
            for (int64_t q : adj.consumers[static_cast<size_t>(affected[i])]) {
                consTarget.push_back(static_cast<int64_t>(i));
                consSource.push_back(q);
            }
        }
        const auto& x = state.z[l];
        auto at = torch::tensor(affected, torch::kLong);
        auto xa = x.index_select(0, at);  // [m, 1, H]
        auto fromProducers = meanMessages(torch::tensor(prodTarget, torch::kLong), x,
                                          torch::tensor(prodSource, torch::kLong),
                                          g.local.invProducerCount.index_select(0, at));
        auto fromConsumers = meanMessages(torch::tensor(consTarget, torch::kLong), x,
                                          torch::tensor(consSource, torch::kLong),
                                          g.local.invConsumerCount.index_select(0, at));
        state.z[l + 1].index_copy_(0, at, layers[l]->as<SageConv>()->combine(xa, fromProducers, fromConsumers));
    }
    return readout(g, shared, state.z.back(), state.encoded, violation);
}

}  // namespace tpg::nn
