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

// On-chip memory a kernel's double-buffered tiles must fit: the synthetic TPU's (TpuParameters::
// vmemBytes; real TPU generations differ). Beyond it the synthetic TPU spills, a cliff a
// network misses when it sees the working set only on a log scale (issue 14: the first picks
// of one fresh kernel in 100 ran 3-3.4x as long as the best on three runs).
constexpr double kOnChipMemoryBytes = 16.0 * 1024 * 1024;
constexpr int kTileSpillFeatureCount = 3;

// Whether a tile configuration's double-buffered working set fits on-chip memory: its log bytes
// (padding capped as the compiler caps it), 1 if it exceeds kOnChipMemoryBytes else 0, and by
// how many octaves it misses or clears it (clamped to +-2, halved). Written to
// out[0 .. kTileSpillFeatureCount).
void tileSpillFeatures(const TileOperands& operands, const float* rawConfig, float* out);

constexpr int kTileTrafficFeatureCount = 5;
// Tile counts up to 2^this are told apart on a scale of their own: with one tile nothing hides
// the fetches, and the share double buffering hides changes most over the first few.
constexpr double kResolvedTileOctaves = 8;

// What a tile configuration fetches from HBM: the operand bytes moved over all output tiles (an
// operand tile smaller than what an output tile reads is fetched several times, a larger one
// moves bytes the tile does not use) and per output tile, the number of fetches (each pays a DMA
// set-up), 1 if there is a single output tile (its fetches overlap no compute) else 0, and the
// tile count on a scale resolving the first kResolvedTileOctaves octaves. Logs scaled as the
// bounds features'. Written to out[0 .. kTileTrafficFeatureCount). (Issue 14: the model's first
// picks on seen kernels lost 7-17% by taking one or two tiles whose traffic stays exposed.)
void tileTrafficFeatures(const TileOperands& operands, const float* rawConfig, float* out);

// Extra config columns a tile network reads after the 24 raw bounds, in this order.
constexpr int tileExtraColumns(bool boundsFeatures, bool spillFeatures,
                               bool trafficFeatures = false) {
    return (boundsFeatures ? kTileBoundsFeatureCount : 0) +
           (spillFeatures ? kTileSpillFeatureCount : 0) +
           (trafficFeatures ? kTileTrafficFeatureCount : 0);
}

}  // namespace tpg::nn
