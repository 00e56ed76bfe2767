#pragma once

#include <cmath>

namespace tpg::nn {

// A TPU vector register holds an (8 x 128) tile: a tensor's most-minor dim pads to 128 lanes and
// its second-most-minor to 8 sublanes. The layout and tile features both describe that padding.
constexpr double kLanes = 128;
constexpr double kSublanes = 8;
// A tensor's (8 x 128) padding counts at most this much: beyond it the compiler takes a smaller
// tile shape (TpuParameters::maxPaddingRatio), so the bytes never grow past it.
constexpr double kMaxTilePadding = 8;

// How much a dim of `size` grows when padded to whole multiples of `quantum` (>= 1).
inline double padTo(double size, double quantum) {
    return std::ceil(size / quantum) * quantum / size;
}

}  // namespace tpg::nn
