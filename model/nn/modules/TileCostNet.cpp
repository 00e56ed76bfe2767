#include "TileCostNet.h"

#include "RowMax.h"

namespace tpg::nn {

TileCostNetImpl::TileCostNetImpl(const CostNetOptions& o) : options(o) {
    const int64_t h = o.hidden;
    nodeEncoder = register_module("nodeEncoder", NodeEncoder(o.nodeFeatureWidth, o.opcodeDim, h));
    const int64_t configInputs =
        o.configWidth + tileExtraColumns(o.boundsFeatures, o.spillFeatures, o.trafficFeatures);
    configEncoder = register_module("configEncoder", Mlp(configInputs, h, h));
    fuse = register_module("fuse", Mlp(2 * h, h, h));
    layers = register_module("layers", torch::nn::ModuleList());
    for (int64_t l = 0; l < o.layers; ++l) layers->push_back(SageConv(h));
    project = register_module("project", Dense(3 * h, h));
    if (o.configAttention)
        attention = register_module("attention", ConfigAttention(h, o.attentionHeads));
    head = register_module("head", Mlp(h, h, 1));
}

torch::Tensor TileCostNetImpl::forward(const GraphTensors& g, const torch::Tensor& config) {
    auto nodes = nodeEncoder(g.x, g.opcode);  // [N, H]
    auto cfg = configEncoder(config);         // [C, H]
    const int64_t c = cfg.size(0), n = nodes.size(0);
    // Node-major [N, C, H] so message passing moves contiguous [C, H] blocks.
    auto joined =
        torch::cat({nodes.unsqueeze(1).expand({-1, c, -1}), cfg.unsqueeze(0).expand({n, -1, -1})},
                   2);                           // [N, C, 2H]
    auto z = nodes.unsqueeze(1) + fuse(joined);  // [N, C, H]
    for (const auto& layer : *layers) z = layer->as<SageConv>()->forward(z, g.full);
    auto pooled = torch::cat({z.mean(0), maxOverRows(z), cfg}, 1);  // [C, 3H]
    auto e = torch::relu(project(pooled));                                 // [C, H]
    if (options.configAttention) e = attention(e);
    return head(e).squeeze(1);  // [C]
}

}  // namespace tpg::nn
