#include "TensorText.h"

#include <QStringList>
#include <algorithm>
#include <cmath>

#include "graph/Schema.h"

namespace tpg {

namespace {

// node_feat columns 2-20: one-hot element type, in the schema's order.
constexpr int kElementTypeColumn = 2;
const char* const kElementTypes[] = {"invalid", "pred", "s8",    "s16",    "s32",  "s64", "u8",
                                     "u16",     "u32",  "u64",   "f16",    "f32",  "f64", "bf16",
                                     "c64",     "c128", "tuple", "opaque", "token"};
constexpr int kNumElementTypes = sizeof(kElementTypes) / sizeof(kElementTypes[0]);
constexpr int kTupleSizeColumn = 29;

int64_t asInt(float v) {
    return static_cast<int64_t>(std::llround(v));
}

}  // namespace

TensorShape tensorShape(const float* f, int64_t width) {
    TensorShape s;
    if (width != schema::kNodeFeatureWidth) return s;
    s.known = true;
    s.elementType = QStringLiteral("?");
    for (int i = 0; i < kNumElementTypes; ++i) {
        if (f[kElementTypeColumn + i] > 0.5f) {
            s.elementType = QString::fromLatin1(kElementTypes[i]);
            break;
        }
    }
    if (s.elementType == QLatin1String("tuple")) {
        s.tupleSize = static_cast<int>(asInt(f[kTupleSizeColumn]));
        return s;
    }
    // Rank: dimensions are padded with 0 and layouts with 0 too, so neither alone is certain.
    // The last non-zero dimension bounds it from below, and so does the largest axis the layout
    // names (a layout naming axis 2 means at least 3 dimensions, even if one of them is 0).
    int rank = 0;
    for (int i = 0; i < schema::kMaxRank; ++i)
        if (asInt(f[schema::kShapeDimColumn + i]) != 0) rank = i + 1;
    for (int i = 0; i < schema::kMaxRank; ++i) {
        const int64_t axis = asInt(f[schema::kNodeLayoutColumn + i]);
        if (axis > 0 && axis < schema::kMaxRank) rank = std::max(rank, static_cast<int>(axis) + 1);
    }
    for (int i = 0; i < rank; ++i) s.dims.push_back(asInt(f[schema::kShapeDimColumn + i]));
    // The layout is shown only when its first `rank` entries are a permutation of the axes.
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    bool valid = rank > 0;
    for (int i = 0; i < rank && valid; ++i) {
        const int64_t axis = asInt(f[schema::kNodeLayoutColumn + i]);
        if (axis < 0 || axis >= rank || seen[static_cast<size_t>(axis)])
            valid = false;
        else {
            seen[static_cast<size_t>(axis)] = true;
            s.minorToMajor.push_back(static_cast<int>(axis));
        }
    }
    if (!valid) s.minorToMajor.clear();
    return s;
}

QString tensorString(const TensorShape& s) {
    if (!s.known) return QStringLiteral("?");
    if (s.elementType == QLatin1String("tuple"))
        return QStringLiteral("(tuple, %1 elements)").arg(s.tupleSize);
    QStringList dims;
    for (int64_t d : s.dims) dims << QString::number(d);
    QString out = s.elementType + QLatin1Char('[') + dims.join(QLatin1Char(',')) + QLatin1Char(']');
    if (!s.minorToMajor.empty()) {
        QStringList axes;
        for (int a : s.minorToMajor) axes << QString::number(a);
        out += QLatin1Char('{') + axes.join(QLatin1Char(',')) + QLatin1Char('}');
    }
    return out;
}

QString tensorString(const float* features, int64_t width) {
    return tensorString(tensorShape(features, width));
}

bool isDefaultLayout(const float* values, int count) {
    return std::all_of(values, values + count, [](float v) { return asInt(v) == -1; });
}

QString layoutString(const float* values, int count) {
    if (isDefaultLayout(values, count)) return QStringLiteral("default");
    // Appended in place: a 2,594-node configuration's marks format 7,782 of these a choice.
    QString out(QLatin1Char('{'));
    for (int i = 0; i < count; ++i) {
        const int64_t v = asInt(values[i]);
        if (v == -1) continue;  // padding beyond the tensor's rank
        if (out.size() > 1) out += QLatin1Char(',');
        out += QString::number(v);
    }
    return out + QLatin1Char('}');
}

}  // namespace tpg
