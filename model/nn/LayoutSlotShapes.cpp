#include "LayoutSlotShapes.h"

#include <algorithm>
#include <cmath>

#include "graph/Schema.h"

namespace tpg::nn {

namespace {

// node_feat columns (resources/schema/node_features.tsv).
constexpr int kDimensionsColumn = 31;           // dimensions_0..5 (reduce: the reduced dims)
constexpr int kConvInputFeatureColumn = 94;     // convolution_dim_numbers_input_feature_dim
constexpr int kConvKernelOutFeatureColumn = 100;  // ..._kernel_output_feature_dim
constexpr int kConvOutputFeatureColumn = 106;   // ..._output_feature_dim

LayoutSlotShape shapeOf(const TpuGraph& g, int32_t node) {
    LayoutSlotShape s;
    const float* f = g.nodeFeatures(node);
    const bool tuple = g.opcode(node) == schema::opcodeId("tuple");
    s.rank = static_cast<int8_t>(tuple ? 0 : schema::shapeRank(f));
    s.dims.fill(1.0f);
    for (int d = 0; d < s.rank; ++d) s.dims[static_cast<size_t>(d)] = std::max(1.0f, f[schema::kShapeDimColumn + d]);
    // Files without a layout (all zeros) mean row-major: the last dim most minor.
    bool valid = true;
    std::array<bool, 6> seen{};
    for (int i = 0; i < s.rank; ++i) {
        const auto d = static_cast<int>(f[schema::kNodeLayoutColumn + i]);
        valid &= d >= 0 && d < s.rank && !seen[static_cast<size_t>(d)];
        if (valid) seen[static_cast<size_t>(d)] = true;
    }
    for (int i = 0; i < s.rank; ++i)
        s.defaultLayout[static_cast<size_t>(i)] =
            static_cast<int8_t>(valid ? static_cast<int>(f[schema::kNodeLayoutColumn + i]) : s.rank - 1 - i);
    return s;
}

int8_t featureDim(const float* f, int column, int rank) {
    const auto d = static_cast<int>(f[column]);
    return static_cast<int8_t>(d >= 0 && d < rank ? d : -1);
}

// A dot's contracting dim of the lhs and output dim of the rhs, from shapes alone (node_feat has
// no dot dimension numbers): leading dims shared by lhs, rhs and output are batch dims, and
// lhs.volume * rhs.volume / out.volume = batch * K^2 gives the contracted size K.
void dotPreferences(const LayoutSlotShape& out, LayoutSlotShape& lhs, LayoutSlotShape& rhs) {
    auto volume = [](const LayoutSlotShape& s) {
        double v = 1;
        for (int d = 0; d < s.rank; ++d) v *= s.dims[static_cast<size_t>(d)];
        return v;
    };
    int batch = 0;
    double batchVolume = 1;
    while (batch + 1 < lhs.rank && batch + 1 < rhs.rank && batch < out.rank &&
           lhs.dims[static_cast<size_t>(batch)] == rhs.dims[static_cast<size_t>(batch)] &&
           lhs.dims[static_cast<size_t>(batch)] == out.dims[static_cast<size_t>(batch)]) {
        batchVolume *= lhs.dims[static_cast<size_t>(batch)];
        ++batch;
    }
    const double k = std::sqrt(std::max(1.0, volume(lhs) * volume(rhs) / std::max(1.0, volume(out)) / batchVolume));
    const auto contracted = static_cast<float>(std::llround(k));
    for (int d = lhs.rank - 1; d >= batch; --d)
        if (lhs.dims[static_cast<size_t>(d)] == contracted) {
            lhs.preferredMinor = static_cast<int8_t>(d);
            break;
        }
    int rhsContract = -1;
    for (int d = batch; d < rhs.rank; ++d)
        if (rhs.dims[static_cast<size_t>(d)] == contracted) {
            rhsContract = d;
            break;
        }
    for (int d = rhs.rank - 1; d >= batch; --d)
        if (d != rhsContract) {
            rhs.preferredMinor = static_cast<int8_t>(d);
            break;
        }
}

}  // namespace

std::vector<LayoutSlotShape> layoutSlotShapes(const TpuGraph& g) {
    std::vector<LayoutSlotShape> out;
    if (g.nodeFeatureWidth() != schema::kNodeFeatureWidth) return out;
    const std::vector<int32_t>& configurable = g.configurableNodes();
    std::vector<int32_t> slotOf(static_cast<size_t>(g.numNodes()), -1);
    for (size_t k = 0; k < configurable.size(); ++k) slotOf[static_cast<size_t>(configurable[k])] = static_cast<int32_t>(k);
    // Operands of each configurable node, in edge (operand) order.
    std::vector<std::vector<int32_t>> operands(configurable.size());
    for (const auto& e : g.edges()) {
        const int32_t k = e[0] >= 0 && e[0] < g.numNodes() ? slotOf[static_cast<size_t>(e[0])] : -1;
        if (k >= 0 && e[1] >= 0 && e[1] < g.numNodes()) operands[static_cast<size_t>(k)].push_back(e[1]);
    }
    const int conv = schema::opcodeId("convolution"), dot = schema::opcodeId("dot"),
              reduce = schema::opcodeId("reduce");
    out.resize(configurable.size() * kLayoutSlots);
    for (size_t k = 0; k < configurable.size(); ++k) {
        const int32_t v = configurable[k];
        const float* f = g.nodeFeatures(v);
        const int op = g.opcode(v);
        const std::vector<int32_t>& in = operands[k];
        LayoutSlotShape* s = &out[k * kLayoutSlots];
        s[0] = shapeOf(g, v);
        if (!in.empty()) s[1] = shapeOf(g, in[0]);
        if ((op == conv || op == dot) && in.size() >= 2) s[2] = shapeOf(g, in[1]);
        if (op == conv) {
            s[0].preferredMinor = featureDim(f, kConvOutputFeatureColumn, s[0].rank);
            s[1].preferredMinor = featureDim(f, kConvInputFeatureColumn, s[1].rank);
            s[2].preferredMinor = featureDim(f, kConvKernelOutFeatureColumn, s[2].rank);
        } else if (op == dot && in.size() >= 2) {
            dotPreferences(s[0], s[1], s[2]);
        } else if (op == reduce && !in.empty()) {
            // `dimensions` lists the reduced dims; zeros beyond their count look like dim 0, so the
            // rank drop says how many there are.
            const int count = std::max(1, s[1].rank - s[0].rank);
            for (int i = 0; i < count && i < schema::kMaxRank; ++i) {
                const auto d = static_cast<int>(f[kDimensionsColumn + i]);
                if (d >= 0 && d < s[1].rank) s[1].reducedMask |= static_cast<uint8_t>(1u << d);
            }
        }
    }
    return out;
}

}  // namespace tpg::nn
