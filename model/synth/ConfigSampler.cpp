#include "synth/ConfigSampler.h"

#include <algorithm>
#include <cmath>

#include "graph/Schema.h"

namespace tpg::synth {

const char* layoutSearchName(LayoutSearch s) {
    return s == LayoutSearch::Random ? "random" : "default";
}

ConfigSampler::ConfigSampler(const TpuCostModel& model,
                             const std::vector<int32_t>& configurableNodes)
    : m_model(model), m_nodes(configurableNodes) {
    for (int32_t v : m_nodes)
        m_ranks.push_back({model.slotRank(v, 0), model.slotRank(v, 1), model.slotRank(v, 2)});
}

void ConfigSampler::randomPermutation(int rank, Rng& rng, float* out6) {
    std::vector<int> p(static_cast<size_t>(std::max(rank, 0)));
    for (int i = 0; i < rank; ++i) p[static_cast<size_t>(i)] = i;
    rng.shuffle(p);
    for (int i = 0; i < schema::kMaxRank; ++i)
        out6[i] = i < rank ? static_cast<float>(p[static_cast<size_t>(i)]) : -1.0f;
}

std::vector<float> ConfigSampler::layout(LayoutSearch search, Rng& rng) const {
    constexpr int kW = schema::kLayoutConfigWidth;
    std::vector<float> c(m_nodes.size() * kW, -1.0f);
    auto setSlot = [&](size_t k, int slot) {
        const int r = m_ranks[k][static_cast<size_t>(slot)];
        if (r >= 1) randomPermutation(r, rng, &c[k * kW + static_cast<size_t>(slot) * 6]);
    };
    if (m_nodes.empty()) return c;
    if (search == LayoutSearch::Random) {
        // Each configuration randomises a random share of the slots, so the collection spans
        // near-default to fully random layouts.
        const double share = rng.uniform(0.05, 1.0);
        for (size_t k = 0; k < m_nodes.size(); ++k)
            for (int slot = 0; slot < 3; ++slot)
                if (rng.chance(share)) setSlot(k, slot);
    } else {
        // A few changed nodes (geometric count, mean ~2.5); sometimes none: the default itself.
        int changes = 0;
        while (rng.chance(0.6)) ++changes;
        if (rng.chance(0.9)) ++changes;
        for (int i = 0; i < changes; ++i) {
            const auto k = static_cast<size_t>(rng.below(static_cast<int64_t>(m_nodes.size())));
            setSlot(k, static_cast<int>(rng.below(3)));
        }
    }
    return c;
}

namespace {

// Share of tile configurations whose output tile may be narrower than the (8 x 128) vector
// registers in one of its two minor dims: an autotuner tries some, and the explorer's editor
// offers them, so a model trained on these files must have seen how slow they run.
constexpr double kNarrowTileShare = 0.125;

// Tile sizes the compiler proposes for one tensor: the most-minor dim (under its layout) in
// whole 128-lane multiples (or all of it when shorter), the second-most-minor in 8-row
// multiples, other dims any power of two; each log-uniformly, so small and large tiles are
// equally common. Quantum 1 lifts the lane and row multiples (a narrow tile).
int64_t tileSize(int64_t dim, int quantum, Rng& rng) {
    std::vector<int64_t> sizes;
    if (dim <= quantum) {
        sizes.push_back(dim);
    } else {
        for (int64_t s = quantum; s < dim; s *= 2) sizes.push_back(s);
        sizes.push_back(dim);
    }
    return rng.pick(sizes);
}

int quantumOf(const std::vector<int>& layout, size_t dim) {
    if (!layout.empty() && layout[0] == static_cast<int>(dim)) return 128;
    if (layout.size() > 1 && layout[1] == static_cast<int>(dim)) return 8;
    return 1;
}

void writeBounds(const std::vector<int64_t>& tile, float* out8) {
    if (tile.empty()) return;  // no such tensor: zeros, as in the real files
    double sum = 0, prod = 1;
    for (size_t i = 0; i < tile.size() && i < 6; ++i) {
        out8[i] = static_cast<float>(tile[i]);
        sum += static_cast<double>(tile[i]);
        prod *= static_cast<double>(tile[i]);
    }
    out8[6] = static_cast<float>(sum);
    out8[7] = static_cast<float>(prod);
}

// An operand tile sized for what one output tile reads (times 1/2, 1 or 2): the full tensor,
// shrunk from its most-major dim to valid tile sizes until it is about that size.
std::vector<int64_t> operandTile(const std::vector<int64_t>& dims, const std::vector<int>& layout,
                                 double share, Rng& rng) {
    std::vector<int64_t> t(dims);
    double vol = 1;
    for (int64_t d : dims) vol *= static_cast<double>(d);
    const double target =
        std::max(1.0, share * std::pow(2.0, static_cast<double>(rng.range(-1, 1))));
    for (size_t j = dims.size(); j-- > 0 && vol > target;) {
        const auto dim =
            static_cast<size_t>(layout.size() == dims.size() ? layout[j] : static_cast<int>(j));
        const int64_t d = dims[dim];
        const int quantum = quantumOf(layout, dim);
        int64_t best = d;
        for (int64_t s = std::min<int64_t>(quantum, d); s < d; s *= 2) {
            if (vol / static_cast<double>(d) * static_cast<double>(s) >= target) {
                best = s;
                break;
            }
        }
        vol = vol / static_cast<double>(d) * static_cast<double>(best);
        t[dim] = best;
    }
    return t;
}

}  // namespace

std::vector<float> ConfigSampler::tile(Rng& rng) const {
    const auto t = m_model.tileTensors();
    std::vector<float> c(schema::kTileConfigWidth, 0.0f);
    static const auto kernel = static_cast<size_t>(schema::tileConfigColumn("kernel_bounds_0")),
                      output = static_cast<size_t>(schema::tileConfigColumn("output_bounds_0")),
                      input = static_cast<size_t>(schema::tileConfigColumn("input_bounds_0"));
    std::vector<int64_t> out(t.output.size());
    double tiles = 1;
    // A narrow tile lifts the lane or the row multiple, not both (a tile of a few elements would
    // run thousands of times slower than any the compiler keeps).
    size_t narrowDim = out.size();
    if (!t.outputLayout.empty() && rng.chance(kNarrowTileShare)) {
        const bool rows = t.outputLayout.size() > 1 && rng.chance(0.5);
        narrowDim = static_cast<size_t>(t.outputLayout[rows ? 1 : 0]);
    }
    for (size_t i = 0; i < out.size(); ++i) {
        out[i] = tileSize(t.output[i], i == narrowDim ? 1 : quantumOf(t.outputLayout, i), rng);
        tiles *= std::ceil(static_cast<double>(t.output[i]) / static_cast<double>(out[i]));
    }
    writeBounds(out, &c[output]);
    auto volume = [](const std::vector<int64_t>& d) {
        double v = 1;
        for (int64_t x : d) v *= static_cast<double>(x);
        return v;
    };
    // Operand tiles follow the output tile, as the compiler's candidates do: the input's share
    // per output tile; the kernel's slice for the output tile's most-minor (feature) extent.
    if (!t.input.empty())
        writeBounds(operandTile(t.input, t.inputLayout, volume(t.input) / tiles, rng), &c[input]);
    if (!t.kernel.empty()) {
        double frac = 1;
        if (!t.outputLayout.empty()) {
            const auto m0 = static_cast<size_t>(t.outputLayout[0]);
            frac = static_cast<double>(out[m0]) / static_cast<double>(t.output[m0]);
        }
        writeBounds(operandTile(t.kernel, t.kernelLayout, volume(t.kernel) * frac, rng),
                    &c[kernel]);
    }
    return c;
}

}  // namespace tpg::synth
