#pragma once

#include <cstdint>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg {

// A per-graph baseline ranker: ridge regression of log runtime on one-hot configuration
// features, one indicator per (config column, value) seen in training. For layout graphs a
// column is (configurable node, slot); for tile graphs one of the 24 config_feat columns.
// Linear in the choices, so it captures per-node layout effects but not the interactions
// between a producer's layout and its consumer's (copies): the gap a graph model should close.
// Solved by conjugate gradients on the normal equations (sparse, no d x d matrix).
class LinearConfigRanker {
public:
    struct Options {
        double ridge = 1.0;        // L2 penalty on the weights (the intercept is free)
        int maxIterations = 500;   // conjugate-gradient steps
        double tolerance = 1e-10;  // relative residual at which CG stops
    };

    LinearConfigRanker() = default;
    explicit LinearConfigRanker(Options options) : m_options(options) {}

    // Fits on configurations `train` of `graph`; their runtimes must be known (> 0).
    // Throws std::invalid_argument otherwise.
    void fit(const TpuGraph& graph, const std::vector<int64_t>& train);
    // Predicted log runtime (tile: log of runtime / normaliser); lower means faster.
    std::vector<double> predict(const TpuGraph& graph, const std::vector<int64_t>& configs) const;
    double predictRow(const float* row) const;  // one config row (width() values)

    bool fitted() const { return m_width > 0; }
    int64_t width() const { return m_width; }  // values per configuration row
    int64_t numFeatures() const { return static_cast<int64_t>(m_weights.size()); }
    int iterations() const { return m_iterations; }  // CG steps the last fit took

private:
    int32_t featureOf(int64_t column, float value) const;  // -1 when not seen in training

    Options m_options;
    int64_t m_width = 0;
    // Per column, the values seen in training and their feature ids (few per column).
    std::vector<std::vector<std::pair<float, int32_t>>> m_columns;
    std::vector<double> m_weights, m_means;
    double m_intercept = 0;
    int m_iterations = 0;
};

// The rows of configurations `configs` of `graph` as floats (layout: nc x F per row; tile: F).
std::vector<float> configRows(const TpuGraph& graph, const std::vector<int64_t>& configs);

}  // namespace tpg
