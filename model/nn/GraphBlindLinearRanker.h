#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg::nn {

// The graph-blind baseline: one ridge regression shared by all graphs, on features of the config
// alone (pooled over the configurable nodes, no graph structure), predicting the config's log
// runtime relative to its graph's mean. Layout: the fraction of configurable nodes of each opcode
// group (convolution, dot, reshape, other) with each value in each config column, plus the
// violation ratio. Tile: the signed-log config features and their squares.
// Torch-free; what the GNN must beat on held-out graphs.
class GraphBlindLinearRanker {
public:
    explicit GraphBlindLinearRanker(Collection kind, int64_t configWidth);

    // Accumulates a training graph (up to maxConfigs of its configs, deterministic subset).
    // skipHeldOutFraction > 0 leaves out the configs configHeldOut() reserves.
    void addGraph(const TpuGraph& g, int64_t maxConfigs = 1000, double skipHeldOutFraction = 0);
    void fit(double ridge = 1e-3);
    bool fitted() const { return !m_weights.empty(); }

    // Lower = faster.
    std::vector<double> score(const TpuGraph& g, const std::vector<int64_t>& configs) const;

    int64_t featureCount() const { return m_dim; }
    int64_t graphsSeen() const { return m_graphs; }

private:
    std::vector<std::vector<double>> features(const TpuGraph& g,
                                              const std::vector<int64_t>& configs) const;

    Collection m_kind;
    int64_t m_width;
    int64_t m_dim;
    int64_t m_graphs = 0;
    std::vector<double> m_xtx, m_xty;
    std::vector<double> m_weights;
};

}  // namespace tpg::nn
