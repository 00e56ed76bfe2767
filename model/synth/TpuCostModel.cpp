// The synthetic TPU's entry points: reading a graph (CostModelGraph.cpp) and evaluating a layout
// (LayoutCosts.cpp, OpCosts.cpp) or tile (TileCosts.cpp) configuration, noise included
// (MeasurementNoise.cpp).
#include "synth/TpuCostModel.h"

#include "io/Error.h"
#include "synth/TpuCostModelImpl.h"

namespace tpg::synth {

TpuCostModel::TpuCostModel(TpuCostModel&&) noexcept = default;
TpuCostModel& TpuCostModel::operator=(TpuCostModel&&) noexcept = default;
TpuCostModel::~TpuCostModel() = default;

TpuCostModel::TpuCostModel(const TpuGraph& graph, TpuParameters params)
    : m_graph(graph), m_params(params), m_impl(std::make_unique<Impl>(m_params)) {
    Impl& m = *m_impl;
    const std::string file = graph.path().empty() ? graph.name() : graph.path();
    if (graph.nodeFeatureWidth() != schema::kNodeFeatureWidth)
        throwFormatError(file, "node_feat",
                         "the synthetic TPU needs the schema's " +
                             std::to_string(schema::kNodeFeatureWidth) +
                             " columns to read shapes and layouts, got " +
                             std::to_string(graph.nodeFeatureWidth()));
    m.n = graph.numNodes();
    m.nodes.resize(static_cast<size_t>(m.n));
    const std::vector<int32_t> producerStart = m.indexProducers(graph.edges());
    m.readNodes(graph, producerStart);
    m.deriveMatmulWork();
    m.orderTopologically(graph.edges());
    m.findConfigColumns(graph);
    m.findTileTensors(graph);
    // The kernel's node costs at default layouts, the base of every tile configuration.
    const std::vector<float> unset(m.configurable.size() * static_cast<size_t>(m.configWidth),
                                   -1.0f);
    uint64_t ignored = 0;
    m.tileBaseNs = m.layout<false>(unset.data(), &ignored, nullptr);
}

int TpuCostModel::Impl::rankOfSlot(int32_t node, int slot) const {
    const Impl& m = *this;
    if (node < 0 || node >= m.n) return -1;
    const NodeInfo& x = m.at(node);
    const int operands = x.prodEnd - x.prodBegin;
    if (slot == 0) return x.tuple ? -1 : x.rank;
    if (slot == 1)
        return operands >= 1 ? m.at(m.prodNode[static_cast<size_t>(x.prodBegin)]).rank : -1;
    if (slot == 2 && (x.cls == OpClass::Convolution || x.cls == OpClass::Dot) && operands >= 2)
        return m.at(m.prodNode[static_cast<size_t>(x.prodBegin) + 1]).rank;
    return -1;
}

int TpuCostModel::slotRank(int32_t node, int slot) const {
    return m_impl->rankOfSlot(node, slot);
}

std::vector<int> TpuCostModel::defaultLayout(int32_t node) const {
    return decode(m_impl->at(node).defaultLayout);
}

namespace {

void finish(CostBreakdown& b, double raw, double factor) {
    b.noiseFactor = factor;
    b.totalNs = raw * factor;
    b.noiseNs = b.totalNs - raw;
}

}  // namespace

double TpuCostModel::layoutRuntime(const float* config, uint64_t* programKey) const {
    uint64_t h = 0;
    const double raw = m_impl->layout<false>(config, &h, nullptr);
    if (programKey) *programKey = h;
    return raw * m_impl->noiseFactor(h);
}

CostBreakdown TpuCostModel::explainLayout(const float* config) const {
    CostBreakdown b;
    uint64_t h = 0;
    const double raw = m_impl->layout<true>(config, &h, &b);
    finish(b, raw, m_impl->noiseFactor(h));
    return b;
}

double TpuCostModel::tileRuntime(const float* config) const {
    return m_impl->tile<false>(config, nullptr) * m_impl->noiseFactor(m_impl->tileHash(config));
}

CostBreakdown TpuCostModel::explainTile(const float* config) const {
    CostBreakdown b;
    const double raw = m_impl->tile<true>(config, &b);
    finish(b, raw, m_impl->noiseFactor(m_impl->tileHash(config)));
    return b;
}

namespace {

void requireSchemaConfigWidth(const TpuGraph& g) {
    if (g.isLayout() && g.configFeatureWidth() != schema::kLayoutConfigWidth)
        throwFormatError(g.path(), "node_config_feat", "the synthetic TPU needs 18 values per configurable node");
    if (!g.isLayout() && g.configFeatureWidth() != schema::kTileConfigWidth)
        throwFormatError(g.path(), "config_feat", "the synthetic TPU needs 24 values per configuration");
}

}  // namespace

double TpuCostModel::runtime(int64_t c) const {
    requireSchemaConfigWidth(m_graph);
    if (m_graph.isLayout()) return layoutRuntime(m_graph.layoutConfigs()->config(c).data());
    return tileRuntime(m_graph.tileConfig(c));
}

uint64_t TpuCostModel::programKey(int64_t c) const {
    requireSchemaConfigWidth(m_graph);
    if (!m_graph.isLayout()) return m_impl->tileHash(m_graph.tileConfig(c));
    uint64_t h = 0;
    layoutRuntime(m_graph.layoutConfigs()->config(c).data(), &h);
    return h;
}

CostBreakdown TpuCostModel::explain(int64_t c) const {
    requireSchemaConfigWidth(m_graph);
    if (m_graph.isLayout()) return explainLayout(m_graph.layoutConfigs()->config(c).data());
    return explainTile(m_graph.tileConfig(c));
}

}  // namespace tpg::synth
