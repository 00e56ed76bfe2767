#pragma once

// Why a configuration is fast or slow, in categories a person can read: the synthetic TPU's
// breakdown (synth/TpuCostModel.h) summed by kind of cost, two configurations compared, and how
// far the synthetic TPU agrees with a file's measured runtimes. No Qt, no Torch.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"
#include "synth/TpuCostModel.h"

namespace tpg::explain {

// One kind of cost and its total. The categories of a summary add up to its total.
struct CostCategory {
    std::string name;  // "compute", "padding", "layout preference", "copies", "tile launch", ...
    double ns = 0;
};

struct CostSummary {
    double totalNs = 0;
    std::vector<CostCategory> categories;  // in a fixed order per kind of file
    int copies = 0, transposingCopies = 0;
    double violationRatio = 0;  // layout: share of configurable nodes whose largest dim is not most minor
    double categoryNs(const std::string& name) const;
};

CostSummary summarize(const TpuGraph& g, const synth::CostBreakdown& b);

// The share of configurable nodes whose output layout does not put the largest dimension most
// minor (after the TpuGraphs paper, which found it correlates with runtime); 0 for tile files.
double violationRatio(const TpuGraph& g, const synth::CostBreakdown& b);

// The same ratio read straight from a layout configuration row (numConfigurable x 18 values):
// each configurable node's output_layout, or its default layout where the row says -1. Cheap
// enough for every row of a file (the configuration table's column).
double violationRatio(const TpuGraph& g, const float* layoutRow);

// Configuration B against A.
struct NodeDelta {
    int32_t node = 0;
    double deltaNs = 0;  // B - A, the node's own costs plus the copies into it
    std::string what;    // "#391 convolution: padding +0.40 ms"
};
struct Comparison {
    double aNs = 0, bNs = 0;
    std::vector<int32_t> differingNodes;  // configurable nodes whose layouts differ
    std::vector<CostCategory> categoryDeltas;  // B - A per category
    int copyDelta = 0;
    std::vector<NodeDelta> topNodes;  // largest |delta| first
    std::string sentence;  // "B is 12.0% slower: 3 more copies +0.80 ms; padding on #391 +0.40 ms"
};
Comparison compare(const TpuGraph& g, const synth::CostBreakdown& a, const synth::CostBreakdown& b,
                   size_t topCount = 5);
// The comparison's head: "B is 12.0% slower", "B is 0.04% faster", or "B takes the same time".
std::string changeSentence(double aNs, double bNs);

// True when the file holds the synthetic TPU's own runtimes (a synthetic file: its explanations are
// ground truth); a real file matches none of the checked configurations.
bool synthIsGroundTruth(const TpuGraph& g, const synth::TpuCostModel& tpu);

// Kendall's tau between the synthetic TPU and the file's measured runtimes over (at most
// `maxConfigs`, evenly spread) configurations; NaN when the file has no runtimes.
struct Agreement {
    double kendall = 0;
    int64_t configs = 0;
};
Agreement synthAgreement(const TpuGraph& g, const synth::TpuCostModel& tpu, int64_t maxConfigs);

std::string nsText(double ns);  // "5.62 ms", "812 ns"
std::string layoutText(const std::vector<int>& minorToMajor);  // "{1,0,3,2}"
// A copy that changes the most-minor dimension: it runs through the transpose unit.
bool isTransposing(const synth::EdgeCost& copy);
// The `count` costliest nodes (own cost) and copies of a breakdown, costliest first.
// A tensor a tile configuration tiles: the kernel's output, and its convolution's or dot's input
// and kernel when it has them.
struct TiledTensor {
    std::string role;  // "output", "input", "kernel"
    int32_t node = -1;
    std::vector<int64_t> dims;
    std::vector<int> layout;  // its (the file's) layout
    std::vector<int64_t>
        tile;  // the tile, a size a dimension (bounds as the synthetic TPU reads them)
};
std::vector<TiledTensor> tiledTensors(const synth::TpuCostModel::TileTensors& tensors,
                                      const synth::TileCost& tile);
std::string dimsText(const std::vector<int64_t>& dims);  // "[1,256,56,56]"
// The tiles that differ from A to B, by role: "output [1,128,32,16] -> [1,1,32,16]; input ...";
// empty when every tile is the same (bounds that differ can read as one tile: 0 and the size).
std::string tileChanges(const std::vector<TiledTensor>& a, const std::vector<TiledTensor>& b,
                        const std::string& arrow = " -> ");

std::vector<const synth::NodeCost*> costliestNodes(const synth::CostBreakdown& b, size_t count);
std::vector<const synth::EdgeCost*> costliestCopies(const synth::CostBreakdown& b, size_t count);

}  // namespace tpg::explain
