#include "TileBoundsFeatures.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "VectorTile.h"
#include "graph/Schema.h"

namespace tpg::nn {

namespace {

constexpr int kIsRootColumn = 0;            // node_features.tsv: is_root
constexpr int kElementBitsColumn = 1;       // element_size_in_bits
constexpr double kLogScale = 1.0 / 24;      // log2 of bytes / counts up to ~2^24 -> ~1

TileOperand operandOf(const TpuGraph& g, int64_t node) {
    TileOperand t;
    if (node < 0 || g.opcode(node) == schema::opcodeId("tuple")) return t;
    const float* f = g.nodeFeatures(node);
    t.rank = schema::shapeRank(f);
    t.dims.fill(1.0);
    for (int d = 0; d < t.rank; ++d)
        t.dims[static_cast<size_t>(d)] = std::max(1.0f, f[schema::kShapeDimColumn + d]);
    // The layout columns hold minor-to-major dims; all zeros (no layout) means row-major.
    auto layoutDim = [&](int i) {
        const auto d = static_cast<int>(f[schema::kNodeLayoutColumn + i]);
        const bool rowMajor = f[schema::kNodeLayoutColumn] == 0 && f[schema::kNodeLayoutColumn + 1] == 0;
        return rowMajor || d < 0 || d >= t.rank ? t.rank - 1 - i : d;
    };
    if (t.rank >= 1) t.minor = layoutDim(0);
    if (t.rank >= 2) t.secondMinor = layoutDim(1);
    if (t.secondMinor == t.minor) t.secondMinor = -1;
    const float bits = f[kElementBitsColumn];
    t.elemBytes = bits > 0 ? bits / 8.0 : 4.0;
    return t;
}

// Elements of a tensor or tile: the product of its first `rank` sizes.
double volumeOf(const std::array<double, 6>& sizes, int rank) {
    double v = 1;
    for (int d = 0; d < rank; ++d) v *= sizes[static_cast<size_t>(d)];
    return v;
}

double volumeOf(const TileOperand& t) {
    return volumeOf(t.dims, t.rank);
}

// The bound for each dim: 0, negative or beyond the dim means the whole dim.
std::array<double, 6> tileOf(const TileOperand& t, const float* bounds) {
    std::array<double, 6> b{};
    b.fill(1.0);
    for (int d = 0; d < t.rank; ++d) {
        const double dim = t.dims[static_cast<size_t>(d)];
        const double v = bounds[d];
        b[static_cast<size_t>(d)] = std::isfinite(v) && v >= 1 ? std::min(dim, std::floor(v)) : dim;
    }
    return b;
}

// The bounds features predate the padding cap; their model files keep the uncapped bytes.
constexpr double kUncappedPadding = std::numeric_limits<double>::infinity();

// Bytes of a tile in on-chip memory, its two most-minor dims padded to (8 x 128), the padding
// at most maxPadding.
double paddedBytes(const TileOperand& t, const std::array<double, 6>& tile,
                   double maxPadding = kUncappedPadding) {
    const double v = volumeOf(tile, t.rank) * t.elemBytes;  // exact: integers times a power of 2
    double padding = 1;
    if (t.minor >= 0) padding *= padTo(tile[static_cast<size_t>(t.minor)], kLanes);
    if (t.secondMinor >= 0) padding *= padTo(tile[static_cast<size_t>(t.secondMinor)], kSublanes);
    return v * std::min(padding, maxPadding);
}

size_t column(const char* name) {
    return static_cast<size_t>(schema::tileConfigColumn(name));
}

struct BoundColumns {
    size_t kernel = column("kernel_bounds_0"), output = column("output_bounds_0"),
           input = column("input_bounds_0");
};
const BoundColumns& boundColumns() {
    static const BoundColumns c;
    return c;
}

// How many output tiles the bounds cut the output into, and the share of the output's
// most-minor dim one of them covers (the kernel slice a tile needs scales with it).
struct OutputTiling {
    std::array<double, 6> tile{};
    double count = 1, minorShare = 1;
};

OutputTiling outputTiling(const TileOperand& o, const float* raw) {
    OutputTiling t;
    t.tile = tileOf(o, raw + boundColumns().output);
    for (int d = 0; d < o.rank; ++d)
        t.count *= std::ceil(o.dims[static_cast<size_t>(d)] / t.tile[static_cast<size_t>(d)]);
    if (o.minor >= 0)
        t.minorShare = t.tile[static_cast<size_t>(o.minor)] / o.dims[static_cast<size_t>(o.minor)];
    return t;
}

// Fetching one operand for every output tile, each of which reads `need` of its elements.
struct OperandFetch {
    double bytes = 0, fetches = 0;
};

OperandFetch fetchOf(const TileOperand& t, const float* bounds, double tiles, double need) {
    if (t.rank == 0) return {};
    const double vol = volumeOf(tileOf(t, bounds), t.rank);
    need = std::max(1.0, need);
    return {tiles * std::max(vol, need) * t.elemBytes, tiles * std::ceil(need / vol)};
}

// Bytes of one output tile and the operand tiles it reads, double-buffered.
double workingSetBytes(const TileOperands& ops, const float* raw, double maxPadding) {
    const BoundColumns& col = boundColumns();
    double bytes = paddedBytes(ops.output, tileOf(ops.output, raw + col.output), maxPadding);
    if (ops.input.rank) bytes += paddedBytes(ops.input, tileOf(ops.input, raw + col.input), maxPadding);
    if (ops.kernel.rank) bytes += paddedBytes(ops.kernel, tileOf(ops.kernel, raw + col.kernel), maxPadding);
    return 2 * bytes;
}

}  // namespace

TileOperands tileOperands(const TpuGraph& g) {
    TileOperands ops;
    if (g.nodeFeatureWidth() != schema::kNodeFeatureWidth || g.numNodes() == 0) return ops;
    int64_t root = g.numNodes() - 1;
    for (int64_t v = g.numNodes() - 1; v >= 0; --v)
        if (g.nodeFeature(v, kIsRootColumn) != 0.0f) {
            root = v;
            break;
        }
    while (g.opcode(root) == schema::opcodeId("tuple") && !g.producers(root).empty())
        root = g.producers(root).front();
    ops.output = operandOf(g, root);
    // The heaviest matrix op by work (output volume x contracted size, from operand volumes).
    const int conv = schema::opcodeId("convolution"), dot = schema::opcodeId("dot");
    int64_t anchor = root;
    double best = 0;
    for (int64_t v = 0; v < g.numNodes(); ++v) {
        if (g.opcode(v) != conv && g.opcode(v) != dot) continue;
        const auto p = g.producers(v);
        if (p.size() < 2) continue;
        const double out = std::max(1.0, volumeOf(operandOf(g, v)));
        const double work = out * std::sqrt(volumeOf(operandOf(g, p[0])) * volumeOf(operandOf(g, p[1])) / out);
        if (work > best) {
            best = work;
            anchor = v;
        }
    }
    const auto p = g.producers(anchor);
    if (!p.empty()) ops.input = operandOf(g, p[0]);
    if (best > 0) ops.kernel = operandOf(g, p[1]);
    return ops;
}

void tileBoundsFeatures(const TileOperands& ops, const float* raw, float* out) {
    const size_t kernelCol = boundColumns().kernel, inputCol = boundColumns().input;
    std::fill(out, out + kTileBoundsFeatureCount, 0.0f);
    const TileOperand& o = ops.output;
    if (o.rank == 0) return;
    const OutputTiling tiling = outputTiling(o, raw);
    const auto& outTile = tiling.tile;
    const double tiles = tiling.count;
    double partial = 1;
    for (int d = 0; d < o.rank; ++d) {
        const double dim = o.dims[static_cast<size_t>(d)], b = outTile[static_cast<size_t>(d)];
        partial *= std::ceil(dim / b) * b / dim;
    }
    const double outBytes = paddedBytes(o, outTile);
    out[0] = static_cast<float>(std::log2(tiles) * kLogScale);
    out[1] = static_cast<float>(std::log2(partial));
    out[2] = o.minor >= 0 ? static_cast<float>(std::log2(padTo(outTile[static_cast<size_t>(o.minor)], kLanes)) / 3) : 0.0f;
    out[3] = o.secondMinor >= 0 ? static_cast<float>(std::log2(padTo(outTile[static_cast<size_t>(o.secondMinor)], kSublanes)) / 3) : 0.0f;
    out[4] = static_cast<float>(std::log2(outBytes) * kLogScale);
    // An operand tile against what one output tile reads of it: below 1 needs several fetches,
    // above 1 fetches data the tile does not use.
    auto operand = [&](const TileOperand& t, size_t col, double need, float* dst) {
        if (t.rank == 0) return;
        const auto tile = tileOf(t, raw + col);
        const double vol = volumeOf(tile, t.rank);
        const double bytes = paddedBytes(t, tile);
        dst[0] = 1.0f;
        dst[1] = static_cast<float>(std::log2(vol / std::max(1.0, need)) * kLogScale);
        dst[2] = static_cast<float>(std::log2(bytes) * kLogScale);
    };
    operand(ops.input, inputCol, volumeOf(ops.input) / tiles, out + 5);
    operand(ops.kernel, kernelCol, volumeOf(ops.kernel) * tiling.minorShare, out + 8);
    out[11] = static_cast<float>(std::log2(workingSetBytes(ops, raw, kUncappedPadding)) * kLogScale);
}

void tileSpillFeatures(const TileOperands& ops, const float* raw, float* out) {
    std::fill(out, out + kTileSpillFeatureCount, 0.0f);
    if (ops.output.rank == 0) return;
    const double bytes = workingSetBytes(ops, raw, kMaxTilePadding);
    const double octaves = std::log2(bytes / kOnChipMemoryBytes);
    out[0] = static_cast<float>(std::log2(bytes) * kLogScale);
    out[1] = bytes > kOnChipMemoryBytes ? 1.0f : 0.0f;
    out[2] = static_cast<float>(std::clamp(octaves, -2.0, 2.0) / 2);
}

void tileTrafficFeatures(const TileOperands& ops, const float* raw, float* out) {
    std::fill(out, out + kTileTrafficFeatureCount, 0.0f);
    if (ops.output.rank == 0) return;
    const BoundColumns& col = boundColumns();
    const OutputTiling tiling = outputTiling(ops.output, raw);
    const double tiles = tiling.count;
    const OperandFetch input =
        fetchOf(ops.input, raw + col.input, tiles, volumeOf(ops.input) / tiles);
    const OperandFetch kernel =
        fetchOf(ops.kernel, raw + col.kernel, tiles, volumeOf(ops.kernel) * tiling.minorShare);
    const double bytes = input.bytes + kernel.bytes;
    const double fetches = input.fetches + kernel.fetches;
    if (bytes > 0) {
        out[0] = static_cast<float>(std::log2(bytes) * kLogScale);
        out[1] = static_cast<float>(std::log2(bytes / tiles) * kLogScale);
    }
    if (fetches > 0) out[2] = static_cast<float>(std::log2(fetches) * kLogScale);
    out[3] = tiles <= 1 ? 1.0f : 0.0f;
    out[4] = static_cast<float>(std::min(std::log2(tiles), kResolvedTileOctaves) /
                                kResolvedTileOctaves);
}

}  // namespace tpg::nn
