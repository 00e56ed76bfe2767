#pragma once

#include <QString>
#include <cstdint>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg {

// A hierarchy over any graph, so a 45,000-node program is drawn one level at a time (after Model
// Explorer): the root holds the computations (node_splits), a computation holds blocks of at most
// kMaxBlockNodes consecutive nodes (ids are topological), cut where a configurable node starts a
// new layer, and too many blocks are gathered into ranges of blocks. Blocks with the same
// structure (opcodes and internal edges) share a hash, so a repeated layer reads "×24 alike".
struct NodeGroup {
    int parent = -1;
    int64_t first = 0, end = 0;  // the node ids it holds: [first, end)
    std::vector<int> children;   // groups; empty for a block, whose members are its nodes
    int computation = -1;        // the computation it is or lies in (-1: the root)
    int64_t configurable = 0;
    uint64_t structure = 0;  // blocks: a hash of opcodes and internal edges
    int alike = 1;           // blocks of the graph with the same structure (itself included)
    QString title;           // "computation 3", "block 12", "blocks 1–24"
    bool isBlock() const { return children.empty(); }
    int64_t size() const { return end - first; }
};

class NodeHierarchy {
public:
    explicit NodeHierarchy(const TpuGraph& g);

    const NodeGroup& group(int id) const { return m_groups[static_cast<size_t>(id)]; }
    int size() const { return static_cast<int>(m_groups.size()); }
    static constexpr int root() { return 0; }
    // The block holding `node`, and the groups from the root down to it.
    int blockOf(int32_t node) const;
    std::vector<int> pathTo(int32_t node) const;
    QString describe(int id) const;  // "412 nodes · 18 configurable · ×24 alike"

private:
    int add(NodeGroup g);
    void splitIntoBlocks(int parent, const TpuGraph& g);
    void gatherBlocks(int parent);
    void hashBlocks(const TpuGraph& g);

    std::vector<NodeGroup> m_groups;
    std::vector<int> m_blockOfNode;
};

}  // namespace tpg
