#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/LayoutConfigTable.h"

namespace tpg {

// The two TpuGraphs collections: graph-level tile configs, or node-level layout configs.
enum class Collection { Tile, Layout };
const char* collectionName(Collection c);  // "tile" / "layout"

// Everything a TpuGraphs file holds, as plain data. Build one (loader, synthetic TPU, tests),
// then hand it to TpuGraph, which validates it.
struct TpuGraphData {
    std::string path;  // where it came from ("" for in-memory graphs); used in messages
    std::string name;  // graph name (file stem)
    Collection collection = Collection::Layout;

    int64_t numNodes = 0;
    int64_t nodeFeatureWidth = 0;
    std::vector<float> nodeFeatures;  // numNodes x nodeFeatureWidth, as in the file
    std::vector<int32_t> opcodes;     // numNodes
    // As in the file: {u, v} means u consumes the output of v (consumer, producer).
    std::vector<std::array<int32_t, 2>> edges;
    std::vector<int64_t> nodeSplits;  // first node of each HLO computation (may be empty)

    std::vector<double> runtimes;            // config_runtime (ns); all zero = unknown (test split)
    std::vector<double> runtimeNormalizers;  // tile only
    int64_t configFeatureWidth = 0;          // 24 (tile) or 18 (layout), unless trimmed
    std::vector<float> tileConfigFeatures;   // tile only: numConfigs x configFeatureWidth
    std::vector<int32_t> configurableNodes;  // layout only: node_config_ids
    std::shared_ptr<LayoutConfigTable> layoutConfigs;  // layout only: (c, nc, F)
    // The search the configurations belong to ("layout:nlp:default"), as the explorer's What-if
    // export records it in "collection_name"; "" when the file does not say (real ones never do).
    std::string searchCollection;
    // Where `runtimes` came from when not from the file itself: the ground truth a dataset ships
    // beside its test split (GroundTruth.h); "" for the file's own.
    std::string runtimeSource;

    std::vector<std::string> warnings;
};

// A validated TpuGraphs graph with named accessors. Copies share the (immutable) data.
class TpuGraph {
public:
    TpuGraph() = default;
    // Validates and indexes `data`; throws FormatError naming the file, key and expectation.
    explicit TpuGraph(TpuGraphData data);

    bool isNull() const { return !m_d; }
    const TpuGraphData& data() const { return *m_d; }
    const std::string& path() const { return m_d->path; }
    const std::string& name() const { return m_d->name; }
    Collection collection() const { return m_d->collection; }
    bool isLayout() const { return m_d->collection == Collection::Layout; }
    const std::vector<std::string>& warnings() const { return m_d->warnings; }
    const std::string& searchCollection() const { return m_d->searchCollection; }
    const std::string& runtimeSource() const { return m_d->runtimeSource; }

    // Structure
    int64_t numNodes() const { return m_d->numNodes; }
    int64_t numEdges() const { return static_cast<int64_t>(m_d->edges.size()); }
    int64_t nodeFeatureWidth() const { return m_d->nodeFeatureWidth; }
    const float* nodeFeatures(int64_t node) const {
        return m_d->nodeFeatures.data() + node * m_d->nodeFeatureWidth;
    }
    float nodeFeature(int64_t node, int64_t col) const { return nodeFeatures(node)[col]; }
    int opcode(int64_t node) const { return m_d->opcodes[static_cast<size_t>(node)]; }
    std::string opcodeName(int64_t node) const;
    const std::vector<std::array<int32_t, 2>>& edges() const { return m_d->edges; }
    // Operands (producers) and users (consumers) of a node, in edge order.
    std::vector<int32_t> producers(int64_t node) const;
    std::vector<int32_t> consumers(int64_t node) const;
    const std::vector<int64_t>& nodeSplits() const { return m_d->nodeSplits; }
    // Index of the HLO computation (per node_splits) that holds `node`; 0 without splits.
    int computationOf(int64_t node) const;

    // Configurations
    int64_t numConfigs() const { return static_cast<int64_t>(m_d->runtimes.size()); }
    const std::vector<double>& runtimes() const { return m_d->runtimes; }
    bool runtimesKnown() const { return m_index && m_index->runtimesKnown; }
    // Tile: runtime / normaliser (the ranking target). Layout: the runtime itself.
    double normalizedRuntime(int64_t config) const;
    int64_t configFeatureWidth() const { return m_d->configFeatureWidth; }
    // Values per configuration row (layout: numConfigurable() x configFeatureWidth()).
    int64_t configRowWidth() const;
    // Empty when `row` could be a configuration of this file: its width, and values a file may
    // hold (io/ConfigValues.h). Else what is wrong, naming the value, e.g. "value 7 (node 44,
    // output_layout_1) holds 99 (expected a layout value: a whole number from -1 to 5)".
    std::string configRowProblem(const std::vector<float>& row) const;

    // Tile only
    const std::vector<double>& runtimeNormalizers() const { return m_d->runtimeNormalizers; }
    const float* tileConfig(int64_t config) const {
        return m_d->tileConfigFeatures.data() + config * m_d->configFeatureWidth;
    }

    // Layout only
    const std::vector<int32_t>& configurableNodes() const { return m_d->configurableNodes; }
    int64_t numConfigurable() const { return static_cast<int64_t>(m_d->configurableNodes.size()); }
    int configurableIndex(int64_t node) const {
        return m_index->configIndex[static_cast<size_t>(node)];
    }
    bool isConfigurable(int64_t node) const { return configurableIndex(node) >= 0; }
    const std::shared_ptr<LayoutConfigTable>& layoutConfigs() const { return m_d->layoutConfigs; }

private:
    // What the constructor derives from the data, shared by copies as the data is: widgets and
    // jobs take graphs by value, and a 45,000-node graph's index is ~0.7 MB.
    struct Index {
        std::vector<int32_t> configIndex;  // node -> index in configurableNodes, or -1
        // CSR adjacency: producers and consumers of each node.
        std::vector<int32_t> prodStart, prod, consStart, cons;
        bool runtimesKnown = false;
    };
    std::shared_ptr<const TpuGraphData> m_d;
    std::shared_ptr<const Index> m_index;
};

}  // namespace tpg
