#pragma once

// Test support for the core's unit tests: the smallest layout program with a configurable node.
#include <utility>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg::testing {

// 0 <- 1 <- 2 ; 1 <- 3 (edge {u, v}: u consumes v); node 1 configurable, three configurations.
inline TpuGraphData smallLayout() {
    TpuGraphData d;
    d.name = "small";
    d.numNodes = 4;
    d.nodeFeatureWidth = 2;
    d.nodeFeatures = {0, 1, 2, 3, 4, 5, 6, 7};
    d.opcodes = {63, 26, 2, 21};
    d.edges = {{1, 0}, {2, 1}, {3, 1}};
    d.nodeSplits = {2};
    d.runtimes = {10, 20, 15};
    d.configurableNodes = {1};
    CompactMatrix m(18);
    std::vector<float> rows(size_t{3 * 18}, -1.0f);
    rows[18] = 1;
    m.appendRows(rows.data(), 3);
    d.configFeatureWidth = 18;
    d.layoutConfigs = LayoutConfigTable::fromMatrix(std::move(m), 1, 18);
    return d;
}

}  // namespace tpg::testing
