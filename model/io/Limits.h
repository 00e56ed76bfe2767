#pragma once

#include <cstddef>
#include <cstdint>

// Every limit of the core layer, in one place, each with its reason.
namespace tpg::limits {

// numpy refuses headers over 10,000 bytes since 1.24; older writers padded less, so allow slack.
constexpr uint32_t kMaxNpyHeaderBytes = 65536;
// numpy's own NPY_MAXDIMS: a header with more dimensions was not written by numpy.
constexpr int kMaxNpyDims = 32;
// Deflate cannot expand data more than ~1032:1, so a larger claimed size is a lying header.
constexpr uint64_t kMaxDeflateRatio = 1032;
// Slack on top of the ratio for tiny entries whose zip overhead dominates.
constexpr uint64_t kDeflateRatioSlackBytes = 1 << 16;
// Streaming chunk: large enough to amortise libzip calls, small enough to stay out of resident memory.
constexpr size_t kStreamChunkBytes = size_t{4} << 20;
// Node ids are stored as int32 (the largest real graph has ~45,000 nodes).
constexpr int64_t kMaxNodes = int64_t{1} << 30;
// Deflate level for written .npz: zlib's default, as np.savez_compressed (libzip's own is 9: 30x slower).
constexpr uint32_t kNpzWriteDeflateLevel = 6;
// Fortran-ordered config tensors are decoded this many raw bytes of columns at a time: enough
// columns per pass over the rows to amortise it, little next to the decoded table.
constexpr size_t kFortranDecodeBlockBytes = size_t{16} << 20;
// ... and in at least this many blocks, so decoding progress moves in visible steps.
constexpr size_t kFortranDecodeMinBlocks = 16;
// A recorded collection name ("layout:nlp:default") is a few dozen bytes; more is not one.
constexpr int64_t kMaxCollectionNameBytes = 64;
// Layout configs rows read per batch when scanning a whole table (e.g. distinct counting).
constexpr int64_t kConfigScanBatchRows = 256;

// Synthetic TPU: a program larger than the largest real one (~45,000 nodes) by a wide margin,
// and as many configurations as the largest real layout file (~100,000); beyond is a typo.
constexpr int64_t kMaxSyntheticNodes = 2'000'000;
constexpr int kMaxSyntheticConfigs = 1'000'000;
// ...but not both at once: a generated layout table holds at most this many values (one byte
// each while it is evaluated), so it stays under half of a 24 GB machine.
constexpr int64_t kMaxSyntheticTableValues = int64_t{8'000'000'000};
// Synthetic measurement noise: a log-normal sigma of 0.5 already scrambles any ranking (x1.65 per sigma).
constexpr double kMaxNoiseSigma = 0.5;

}  // namespace tpg::limits
