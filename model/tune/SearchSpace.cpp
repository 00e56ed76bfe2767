#include "tune/SearchSpace.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "graph/Schema.h"
#include "io/Error.h"
#include "tune/TuneLimits.h"

namespace tpg::tune {

namespace {

constexpr int kSlotWidth = schema::kMaxRank;  // 6 values per layout slot
constexpr int kTileGroupWidth = 8;            // bounds 0-5, sum, product
constexpr int kLaneQuantum = 128, kSublaneQuantum = 8;

std::vector<float> padded(const std::vector<int>& perm) {
    std::vector<float> v(kSlotWidth, -1.0f);
    for (size_t i = 0; i < perm.size() && i < v.size(); ++i) v[i] = static_cast<float>(perm[i]);
    return v;
}

void addUnique(std::vector<std::vector<float>>& values, std::vector<float> v) {
    if (values.size() < limits::kMaxValuesPerCoordinate && std::find(values.begin(), values.end(), v) == values.end())
        values.push_back(std::move(v));
}

// The layouts a slot may take: the default (all -1), then permutations of `rank` dims.
std::vector<std::vector<float>> layoutCandidates(int rank, std::vector<int> defaultLayout) {
    std::vector<std::vector<float>> values{std::vector<float>(kSlotWidth, -1.0f)};
    std::vector<int> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    if (rank <= 4) {
        do addUnique(values, padded(perm));
        while (std::next_permutation(perm.begin(), perm.end()));
        return values;
    }
    if (static_cast<int>(defaultLayout.size()) != rank) {
        defaultLayout.assign(perm.rbegin(), perm.rend());  // XLA's {rank-1, ..., 0}
    }
    addUnique(values, padded(defaultLayout));
    // `first` (then `second`) moved most minor, the rest in the default's order.
    auto moved = [&](int first, int second) {
        std::vector<int> l{first};
        if (second >= 0) l.push_back(second);
        for (int d : defaultLayout)
            if (d != first && d != second) l.push_back(d);
        return l;
    };
    for (int a = 0; a < rank; ++a) addUnique(values, padded(moved(a, -1)));
    for (int a = 0; a < rank; ++a)
        for (int b = 0; b < rank; ++b)
            if (a != b) addUnique(values, padded(moved(a, b)));
    return values;
}

bool isLayoutValue(const float* v, int rank) {
    if (std::all_of(v, v + kSlotWidth, [](float x) { return x == -1.0f; })) return true;
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int i = 0; i < kSlotWidth; ++i) {
        if (i >= rank) {
            if (v[i] != -1.0f) return false;
            continue;
        }
        const float x = v[i];
        if (x < 0 || x >= static_cast<float>(rank) || x != std::floor(x) || seen[static_cast<size_t>(x)]) return false;
        seen[static_cast<size_t>(x)] = true;
    }
    return true;
}

// Valid tile sizes for a dim of `dim` elements with `quantum` (128 lanes, 8 sublanes, else 1).
std::vector<float> tileSizes(int64_t dim, int quantum) {
    std::vector<float> sizes;
    for (int64_t s = quantum; s < dim; s *= 2) sizes.push_back(static_cast<float>(s));
    sizes.push_back(static_cast<float>(dim));
    return sizes;
}

int quantumOf(const std::vector<int>& layout, int dim) {
    if (!layout.empty() && layout[0] == dim) return kLaneQuantum;
    if (layout.size() > 1 && layout[1] == dim) return kSublaneQuantum;
    return 1;
}

double volume(const std::vector<int64_t>& dims) {
    double v = 1;
    for (int64_t d : dims) v *= static_cast<double>(std::max<int64_t>(1, d));
    return v;
}

}  // namespace

std::string Coordinate::name() const {
    if (node >= 0) return std::to_string(node) + "." + whatif::slotName(slot);
    const auto& names = schema::tileConfigFeatureNames();
    return column >= 0 && static_cast<size_t>(column) < names.size() ? names[static_cast<size_t>(column)] : "?";
}

SearchSpace::SearchSpace(const TpuGraph& g, const synth::TpuCostModel& tpu) : m_layout(g.isLayout()) {
    const std::string file = g.path().empty() ? g.name() : g.path();
    if (m_layout) {
        if (const std::string why = whatif::layoutEditingUnavailable(g); !why.empty())
            throw FormatError(file + ": nothing to tune: " + why);
        if (g.numConfigurable() == 0)
            throw FormatError(file + ": nothing to tune: node_config_ids is empty (no configurable node)");
        m_rowWidth = g.numConfigurable() * g.configFeatureWidth();
        addLayoutCoordinates(g, tpu);
    } else {
        m_rowWidth = g.configFeatureWidth();
        if (m_rowWidth != schema::kTileConfigWidth)
            throw FormatError(file + ": nothing to tune: config_feat has " + std::to_string(m_rowWidth) +
                              " columns (expected " + std::to_string(schema::kTileConfigWidth) + ")");
        addTileCoordinates(g, tpu);
    }
    addValuesFromFile(g);
    // Drop coordinates with one value: nothing to choose there.
    std::vector<Coordinate> kept;
    for (auto& c : m_coords)
        if (c.values.size() > 1) kept.push_back(std::move(c));
    m_coords = std::move(kept);
    if (m_coords.empty())
        throw FormatError(file + ": nothing to tune: no layout slot or tile bound has more than one value");
    std::stable_sort(m_coords.begin(), m_coords.end(),
                     [](const Coordinate& a, const Coordinate& b) { return a.weight > b.weight; });
    for (const auto& c : m_coords)
        m_unit.push_back(m_layout ? static_cast<int>(c.offset / g.configFeatureWidth()) : c.column);
}

void SearchSpace::addLayoutCoordinates(const TpuGraph& g, const synth::TpuCostModel& tpu) {
    const int64_t width = g.configFeatureWidth();
    for (int64_t k = 0; k < g.numConfigurable(); ++k) {
        const int32_t node = g.configurableNodes()[static_cast<size_t>(k)];
        for (auto slot : {whatif::LayoutSlot::Output, whatif::LayoutSlot::Input, whatif::LayoutSlot::Kernel}) {
            const whatif::SlotTensor t = whatif::slotTensor(g, node, slot);
            if (!t.usable || t.rank() > schema::kMaxRank) continue;
            Coordinate c;
            c.node = node;
            c.slot = slot;
            c.offset = k * width + static_cast<int64_t>(slot) * kSlotWidth;
            c.width = kSlotWidth;
            c.values = layoutCandidates(t.rank(), tpu.defaultLayout(t.tensorNode));
            c.weight = volume(t.dims);
            m_coords.push_back(std::move(c));
        }
    }
}

void SearchSpace::addTileCoordinates(const TpuGraph& g, const synth::TpuCostModel& tpu) {
    (void)g;
    const synth::TpuCostModel::TileTensors t = tpu.tileTensors();
    const std::vector<float> defaults = tpu.defaultTileConfig();
    auto add = [&](const char* group, const std::vector<int64_t>& dims,
                   const std::vector<int>& layout) {
        const int first = schema::tileConfigColumn(std::string(group) + "_bounds_0");
        for (size_t i = 0; i < dims.size() && i < static_cast<size_t>(schema::kMaxRank) && first >= 0; ++i) {
            Coordinate c;
            c.column = first + static_cast<int>(i);
            c.offset = c.column;
            c.width = 1;
            const float d = static_cast<size_t>(c.column) < defaults.size() ? defaults[static_cast<size_t>(c.column)] : 0;
            c.values.push_back({d});
            for (float s : tileSizes(dims[i], quantumOf(layout, static_cast<int>(i))))
                addUnique(c.values, {s});
            c.weight = static_cast<double>(dims[i]);
            m_coords.push_back(std::move(c));
        }
    };
    add("output", t.output, t.outputLayout);
    add("input", t.input, t.inputLayout);
    add("kernel", t.kernel, t.kernelLayout);
    if (m_coords.empty())
        throw FormatError((g.path().empty() ? g.name() : g.path()) +
                          ": nothing to tune: the kernel has no output, input or kernel tensor to tile");
}

void SearchSpace::addValuesFromFile(const TpuGraph& g) {
    const int64_t rows = std::min(g.numConfigs(), limits::kSpaceSampleRows);
    if (rows == 0) return;
    std::vector<float> buf;
    const float* data = nullptr;
    if (m_layout) {
        buf.resize(static_cast<size_t>(rows * m_rowWidth));
        g.layoutConfigs()->read(0, rows, buf.data());
        data = buf.data();
    } else {
        data = g.tileConfig(0);
    }
    for (auto& c : m_coords) {
        const int rank = c.node >= 0 ? whatif::slotTensor(g, c.node, c.slot).rank() : 0;
        float maxBound = 0;  // tile: the whole dim, the largest size listed
        for (const auto& v : c.values) maxBound = std::max(maxBound, v.front());
        for (int64_t r = 0; r < rows; ++r) {
            const float* v = data + r * m_rowWidth + c.offset;
            if (c.node >= 0 ? isLayoutValue(v, rank) : (v[0] > 0 && v[0] <= maxBound))
                addUnique(c.values, std::vector<float>(v, v + c.width));
        }
    }
}

double SearchSpace::log10Size() const {
    double s = 0;
    for (const auto& c : m_coords) s += std::log10(static_cast<double>(c.values.size()));
    return s;
}

void SearchSpace::set(std::vector<float>& row, size_t c, size_t value) const {
    const Coordinate& k = m_coords[c];
    const std::vector<float>& v = k.values[value];
    if (m_layout) {
        std::copy(v.begin(), v.end(), row.begin() + k.offset);
        return;
    }
    whatif::applyTileEdit(row, whatif::TileEdit{k.column, v.front()});
}

int SearchSpace::valueOf(const std::vector<float>& row, size_t c) const {
    const Coordinate& k = m_coords[c];
    for (size_t i = 0; i < k.values.size(); ++i)
        if (std::equal(k.values[i].begin(), k.values[i].end(), row.begin() + k.offset)) return static_cast<int>(i);
    return -1;
}

}  // namespace tpg::tune
