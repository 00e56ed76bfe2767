#pragma once

#include <QString>
#include <cstdint>
#include <vector>

#include "TensorText.h"

namespace tpg {

// A tensor as a TPU lays it out in memory: its two most-minor dimensions tiled in (8 x 128)
// tiles (sublanes x lanes), the rest stacked as planes; what the tiles hold beyond the tensor is
// padding. The synthetic TPU charges the same padding, capped where the compiler would switch to
// a smaller tile shape.
struct MemoryTiling {
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
MemoryTiling memoryTiling(const TensorShape& shape, const std::vector<int>& layout, double maxPaddingRatio = 8);

}  // namespace tpg
