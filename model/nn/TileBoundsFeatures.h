#pragma once

#include <array>
#include <cstdint>

#include "graph/TpuGraph.h"

namespace tpg::nn {

// One tensor a tile configuration's bounds cut into tiles, read from node_feat.
struct TileOperand {
    int rank = 0;                  // 0: the kernel has no such tensor
    std::array<double, 6> dims{};  // sizes, 1 beyond rank
    int minor = -1, secondMinor = -1;  // dims in the 128 lanes and 8 sublanes (default layout)
    double elemBytes = 4;
};

// What the three bound groups describe: the kernel's root output, and the input (first operand)
// and kernel (second operand) of its heaviest convolution or dot, else of the root.
struct TileOperands {
    TileOperand output, input, kernel;
};

// Empty operands when node_feat is not the schema's 140 columns.
TileOperands tileOperands(const TpuGraph& g);

constexpr int kTileBoundsFeatureCount = 12;

// What a tile configuration (24 raw values: kernel, output, input bounds) means physically for the
// operands: how many output tiles, the work wasted on partial and lane-padded tiles, each tile's
// bytes, whether operand tiles fit what one output tile reads, the double-buffered working set.
// All logs, scaled to about [-1, 1]; written to out[0 .. kTileBoundsFeatureCount).
void tileBoundsFeatures(const TileOperands& operands, const float* rawConfig, float* out);

}  // namespace tpg::nn
