#pragma once

#include <cstdint>

// The what-if predictor's limits, each with its reason.
namespace tpg::whatif::limits {

// Rows read per batch when scanning a file's configurations (bounded memory on 100k configs).
constexpr int64_t kScanBatchRows = 512;
// A sample of this many configs tells how far measured configs lie from each other...
constexpr int64_t kDistanceSampleRows = 1024;
// ...probing the nearest neighbour of this many of them (the median is the "typical" distance).
constexpr int64_t kDistanceProbes = 64;
// An evaluated row differing from the previous one in at most this many nodes (tile: columns)
// updates its distances to the file's configs column by column; more, and a full scan is cheaper.
constexpr int64_t kIncrementalUnits = 16;

}  // namespace tpg::whatif::limits
