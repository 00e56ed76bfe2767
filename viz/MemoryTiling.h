#pragma once

#include <QString>
#include <cstdint>
#include <vector>

#include "TensorText.h"

namespace tpg {

// A TPU vector register: 8 sublanes x 128 lanes of 32-bit words.
constexpr int kRegisterSublanes = 8;
constexpr int kRegisterLanes = 128;
// The most (8 x 128) padding the synthetic TPU charges (TpuParameters::maxPaddingRatio): beyond
// it the compiler picks smaller register tiles.
constexpr double kMaxChargedPadding = 8;

// A tensor as a TPU lays it out in memory: its two most-minor dimensions tiled in (8 x 128)
// tiles (sublanes x lanes), the rest stacked as planes; what the tiles hold beyond the tensor is
// padding. The synthetic TPU charges the same padding, capped where the compiler would switch to
// a smaller tile shape.
struct MemoryTiling {
    // Registers: the (8 x 128) tiles of memory. KernelTile: the tiles a tile configuration cuts
    // the tensor into, one per step of the kernel's loop; planes then count tiles, not elements.
    enum class Grid { Registers, KernelTile };
    Grid grid = Grid::Registers;
    bool drawable = false;
    QString why;  // when not drawable: "a tuple", "a scalar", "no shape in the features"
    int minorDim = -1, secondDim = -1;  // dimension indices (secondDim = -1 for rank 1)
    int64_t minor = 1, second = 1;      // their sizes
    int tileRows = 8, tileCols = 128;
    int packing = 1;                    // elements per 32-bit word: 2 for 16-bit types, 4 for 8-bit
    int64_t tilesDown = 1, tilesAcross = 1;
    int64_t planes = 1;                 // product of the other dimensions
    double paddedRatio = 1;             // padded / used elements of the tiled plane
    double chargedRatio = 1;            // as the synthetic TPU charges it (capped)
    bool smallerTile = false;           // paddedRatio beyond the cap: the compiler picks smaller tiles
    int bytesPerElement = 4;
    double usedBytes = 0, paddedBytes = 0;
    QString notation;  // "bf16[16,256,7,7]{1,3,2,0:T(8,128)(2,1)}"
};

// `layout` minor-to-major (empty: the shape's own); `maxPaddingRatio` as TpuParameters.
MemoryTiling memoryTiling(const TensorShape& shape, const std::vector<int>& layout,
                          double maxPaddingRatio = kMaxChargedPadding);

// The tensor cut into a tile configuration's tiles of `tile` elements a dimension (dimension
// order, as the synthetic TPU reads the bounds; a dimension without a size of 1 or more tiled
// whole), under `layout`: the last tile along a dimension that the tile does not divide is
// partial, its rest computed for nothing (paddedRatio).
MemoryTiling kernelTiling(const TensorShape& shape, const std::vector<int>& layout,
                          const std::vector<int64_t>& tile);

}  // namespace tpg
