#include "LayoutCostNet.h"

namespace tpg::nn {

LayoutCostNetImpl::LayoutCostNetImpl(const CostNetOptions& o) : options(o) {
    const int64_t h = o.hidden;
    nodeEncoder = register_module("nodeEncoder", NodeEncoder(o.nodeFeatureWidth, o.opcodeDim, h));
    configEncoder = register_module("configEncoder", LayoutConfigEncoder(o.configWidth, h));
    fuse = register_module("fuse", Mlp(2 * h, h, h));
    layers = register_module("layers", torch::nn::ModuleList());
    for (int64_t l = 0; l < o.layers; ++l) layers->push_back(SageConv(h));
    project = register_module("project", Dense(4 * h + (o.violationFeature ? 1 : 0), h));
    if (o.configAttention)
        attention = register_module("attention", ConfigAttention(h, o.attentionHeads));
    head = register_module("head", Mlp(h, h, 1));
}

LayoutSharedPass LayoutCostNetImpl::sharedPass(const GraphTensors& g) {
    // Config-free pass over all N nodes: shared[l] is [N, H] after l layers.
    std::vector<torch::Tensor> shared{nodeEncoder(g.x, g.opcode)};
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
        s.restSum = rest.sum(0);
        s.restMax = std::get<0>(rest.max(0));
    }
    return s;
}

torch::Tensor LayoutCostNetImpl::forward(const GraphTensors& g, const torch::Tensor& config,
                                         const torch::Tensor& violation) {
    return forward(g, sharedPass(g), config, violation);
}

torch::Tensor LayoutCostNetImpl::forward(const GraphTensors& g, const LayoutSharedPass& shared,
                                         const torch::Tensor& config,
                                         const torch::Tensor& violation) {
    const int64_t c = config.size(0);
    // Per-config pass over S, node-major: [S, C, H], the fused (node, config) encoding added on
    // the configurable nodes.
    auto z = shared.subsetInput.unsqueeze(1).expand({-1, c, -1}).contiguous();
    const auto& configurable = shared.configurableInput;  // [nc, H]
    auto encodedByConfig = configEncoder(config);         // [C, nc, H]
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

    // Mean + max over all N nodes: per-config nodes D, plus the config-free rest.
    auto zd = z.index_select(0, g.dependentPos);  // [D, C, H]
    auto sum = zd.sum(0);                         // [C, H]
    auto mx = std::get<0>(zd.max(0));             // [C, H]
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
    return head(e).squeeze(1);  // [C]
}

}  // namespace tpg::nn
