#include "MemoryTiling.h"

#include <QStringList>
#include <algorithm>

namespace tpg {

namespace {

int bytesOf(const QString& type) {
    if (type == QLatin1String("pred") || type.endsWith(QLatin1String("8"))) return 1;
    if (type.endsWith(QLatin1String("16"))) return 2;
    if (type.endsWith(QLatin1String("64")) || type == QLatin1String("c64")) return 8;
    if (type == QLatin1String("c128")) return 16;
    return 4;
}

int64_t roundUp(int64_t v, int64_t q) { return (v + q - 1) / q * q; }
int64_t ceilDiv(int64_t v, int64_t q) {
    return (v + q - 1) / q;
}

}  // namespace

MemoryTiling memoryTiling(const TensorShape& shape, const std::vector<int>& layoutIn, double maxPaddingRatio) {
    MemoryTiling t;
    if (!shape.known) return t.why = QStringLiteral("no shape in the features (a trimmed row)"), t;
    if (shape.tupleSize > 0 || shape.elementType == QLatin1String("tuple")) return t.why = QStringLiteral("a tuple"), t;
    const auto rank = static_cast<int>(shape.dims.size());
    if (rank == 0) return t.why = QStringLiteral("a scalar"), t;
    const std::vector<int>& layout = layoutIn.empty() ? shape.minorToMajor : layoutIn;
    if (static_cast<int>(layout.size()) != rank) return t.why = QStringLiteral("no layout for its rank"), t;
    t.drawable = true;
    t.bytesPerElement = bytesOf(shape.elementType);
    t.packing = std::max(1, 4 / t.bytesPerElement);
    t.minorDim = layout[0];
    t.minor = std::max<int64_t>(1, shape.dims[static_cast<size_t>(t.minorDim)]);
    if (rank >= 2) {
        t.secondDim = layout[1];
        t.second = std::max<int64_t>(1, shape.dims[static_cast<size_t>(t.secondDim)]);
    }
    for (int i = 2; i < rank; ++i) t.planes *= std::max<int64_t>(1, shape.dims[static_cast<size_t>(layout[static_cast<size_t>(i)])]);
    t.tileRows = rank >= 2 ? kRegisterSublanes : 1;
    t.tileCols = kRegisterLanes;
    t.tilesAcross = roundUp(t.minor, t.tileCols) / t.tileCols;
    t.tilesDown = roundUp(t.second, t.tileRows) / t.tileRows;
    const double used = static_cast<double>(t.minor * t.second);
    t.paddedRatio = static_cast<double>(t.tilesAcross * t.tileCols * t.tilesDown * t.tileRows) / used;
    t.chargedRatio = std::min(t.paddedRatio, maxPaddingRatio);
    t.smallerTile = t.paddedRatio > maxPaddingRatio;
    t.usedBytes = used * static_cast<double>(t.planes * t.bytesPerElement);
    t.paddedBytes = t.usedBytes * t.chargedRatio;
    QStringList dims, order;
    for (int64_t d : shape.dims) dims << QString::number(d);
    for (int d : layout) order << QString::number(d);
    QString tiles = rank >= 2 ? QStringLiteral(":T(%1,%2)").arg(t.tileRows).arg(t.tileCols) : QStringLiteral(":T(%1)").arg(t.tileCols);
    if (t.packing > 1) tiles += QStringLiteral("(%1,1)").arg(t.packing);
    t.notation = QStringLiteral("%1[%2]{%3%4}").arg(shape.elementType, dims.join(QLatin1Char(',')), order.join(QLatin1Char(',')), tiles);
    return t;
}

MemoryTiling kernelTiling(const TensorShape& shape, const std::vector<int>& layoutIn,
                          const std::vector<int64_t>& tile) {
    MemoryTiling t = memoryTiling(shape, layoutIn);
    const auto rank = static_cast<int>(shape.dims.size());
    if (!t.drawable) return t;
    const std::vector<int>& layout = layoutIn.empty() ? shape.minorToMajor : layoutIn;
    // A bound below 1 or beyond its dimension tiles the whole of it, as the synthetic TPU reads it.
    const auto tileOf = [&](int dim) {
        const int64_t d = std::max<int64_t>(1, shape.dims[static_cast<size_t>(dim)]);
        const int64_t b =
            static_cast<size_t>(dim) < tile.size() ? tile[static_cast<size_t>(dim)] : 0;
        return b >= 1 ? std::min(b, d) : d;
    };
    t.grid = MemoryTiling::Grid::KernelTile;
    t.tileCols = static_cast<int>(tileOf(t.minorDim));
    t.tileRows = rank >= 2 ? static_cast<int>(tileOf(t.secondDim)) : 1;
    t.tilesAcross = ceilDiv(t.minor, t.tileCols);
    t.tilesDown = ceilDiv(t.second, t.tileRows);
    t.planes = 1;
    double padded = static_cast<double>(t.tilesAcross * t.tileCols * t.tilesDown * t.tileRows) /
                    static_cast<double>(t.minor * t.second);
    for (int i = 2; i < rank; ++i) {
        const int dim = layout[static_cast<size_t>(i)];
        const int64_t d = std::max<int64_t>(1, shape.dims[static_cast<size_t>(dim)]),
                      b = tileOf(dim);
        t.planes *= ceilDiv(d, b);
        padded *= static_cast<double>(ceilDiv(d, b) * b) / static_cast<double>(d);
    }
    t.paddedRatio = t.chargedRatio = padded;
    t.smallerTile = false;
    t.paddedBytes = t.usedBytes * padded;
    QStringList sizes;
    for (int i = 0; i < rank; ++i) sizes << QString::number(tileOf(i));
    TensorShape laidOut = shape;
    laidOut.minorToMajor = layout;
    t.notation =
        tensorString(laidOut) + QStringLiteral(" in [%1] tiles").arg(sizes.join(QLatin1Char(',')));
    return t;
}

}  // namespace tpg
