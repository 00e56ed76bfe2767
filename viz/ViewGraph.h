#pragma once

#include <QString>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "graph/TpuGraph.h"
#include "VizLimits.h"

namespace tpg {

// Which part of a graph to draw. Every view is bounded (VizLimits.h) so one layout stays fast.
enum class ViewMode {
    Whole,          // every node (cut at kMaxLayoutNodes)
    Computations,   // one box per HLO computation (node_splits), edges aggregated
    Computation,    // the nodes of one computation, with their outside operands/users as context
    Neighbourhood,  // the k-hop neighbourhood of one node, both directions
    Skeleton,       // configurable nodes only; the paths between them collapsed into edges
    Groups          // the program as a hierarchy (NodeHierarchy): closed groups as boxes, open ones
                    // replaced by their children, every node drawn or inside a box
};

struct ViewSpec {
    ViewMode mode = ViewMode::Whole;
    int computation = 0;                 // Computation
    int32_t center = -1;                 // Neighbourhood
    int hops = vizlimits::kDefaultHops;  // Neighbourhood
    std::vector<int> open{};             // Groups: the groups opened, in the order they were opened

    QString key() const;       // cache key: "whole", "comp:3", "hood:12:2", ...
    QString describe() const;  // for people: "Neighbourhood of node 12 (2 hops)"
    // describe() for a file name: "program", "computation-3", "neighbourhood-of-node-12-2-hops".
    QString fileStem() const;
    bool operator==(const ViewSpec& o) const { return key() == o.key(); }
};

struct ViewItem {
    enum class Kind { Node, MoreUsers, MoreOperands, Computation, Group };
    Kind kind = Kind::Node;
    int32_t node = -1;           // Node; More*: the node whose users/operands are summarised
    int computation = -1;        // Computation
    int group = -1;              // Group: its id in the graph's NodeHierarchy
    int64_t first = 0;           // Group: the node ids it holds, [first, first + count)
    int64_t count = 0;           // More*: neighbours summarised; Computation: nodes inside
    int64_t configurable = 0;    // Computation: configurable nodes inside
    bool context = false;        // Node outside the view's scope, shown for context
    int64_t hiddenUsers = 0;     // Node: users not drawn (outside the view)
    int64_t hiddenOperands = 0;  // Node: operands not drawn (outside the view)
    QString title;
    QString subtitle;
    double width = 0;   // points
    double height = 0;  // points
};

// An arrow from producer to consumer (the dataset's [u, v] is drawn v -> u).
struct ViewEdge {
    int producer = -1;           // item index
    int consumer = -1;           // item index
    int64_t count = 1;           // edges merged into this one (computation overview)
    int64_t collapsedNodes = 0;  // skeleton: nodes on the collapsed path (0: a direct edge)
};

struct ViewGraph {
    ViewSpec spec;
    std::vector<ViewItem> items;
    std::vector<ViewEdge> edges;
    int64_t scopeNodes = 0;  // nodes the view covers before limits
    bool truncated = false;
    QString note;  // what was cut or why the view is empty; "" when complete
    std::vector<int> open;  // Groups: the groups open in this drawing (within the item budget)
    std::unordered_map<int32_t, int> nodeItem;  // graph node -> item index (Node items)

    int itemOf(int32_t node) const {
        auto it = nodeItem.find(node);
        return it == nodeItem.end() ? -1 : it->second;
    }
    int64_t nodeCount() const;  // Node items
};

// Computations as node_splits define them: index -> [first, end) node range; empty ranges skipped.
struct ComputationRange {
    int index = 0;
    int64_t first = 0;
    int64_t end = 0;
};
std::vector<ComputationRange> computations(const TpuGraph& g);

// The view a graph opens on: whole when small, else the program's groups (NodeHierarchy), with
// the largest group opened while the top level holds only a few.
ViewSpec defaultViewSpec(const TpuGraph& g);

// Selects and labels what a view draws. Pure: reads the (immutable) graph only, so it runs on
// any thread. Throws nothing for valid graphs; an out-of-range centre or computation gives an
// empty view with a note.
ViewGraph buildViewGraph(const TpuGraph& g, const ViewSpec& spec);

// The two label lines of a node: "#12 convolution" and "f32[8,128]{1,0}".
QString nodeTitle(const TpuGraph& g, int32_t node);
QString nodeSubtitle(const TpuGraph& g, int32_t node);

}  // namespace tpg
