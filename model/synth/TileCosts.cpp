// Tile terms: what a tile configuration (the bounds of the kernel's output, input and kernel tiles)
// adds to the kernel's work: launches, per-tile overhead, exposed operand traffic, a spill beyond
// on-chip memory, and the work wasted on partial and lane-padded tiles. Also the compiler's own
// default tiles, the normaliser's configuration.
#include <cmath>

#include "synth/TpuCostModelImpl.h"

namespace tpg::synth {

namespace {

constexpr int kDefaultTileSteps =
    64;  // shrink steps the default heuristic tries (ranks <= 6, few divisors each)

int64_t ceilDiv(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

// Tile dims under a layout: the (8 x 128) padding ratio of the tile's two most-minor dims.
double tilePadRatio(const std::array<int64_t, 6>& t, int rank, LayoutCode l,
                    const TpuParameters& p) {
    if (rank == 0) return 1.0;
    auto pad = [](int64_t d, int q) {
        return static_cast<double>(ceilDiv(d, q) * q) / static_cast<double>(d);
    };
    double r = pad(t[static_cast<size_t>(dimAt(l, 0))], p.tileLanes);
    if (rank >= 2) r *= pad(t[static_cast<size_t>(dimAt(l, 1))], p.tileSublanes);
    return std::min(r, p.maxPaddingRatio);
}

// A bound against its dimension of `d` elements: below 1 (0 is "the whole dimension"), not
// finite or beyond `d`, the whole dimension.
int64_t boundSize(int64_t d, float b) {
    return b >= 1.0f && std::isfinite(b) ? std::min<int64_t>(d, static_cast<int64_t>(b)) : d;
}

double volumeOf(const std::array<int64_t, 6>& t, int rank) {
    double v = 1;
    for (int i = 0; i < rank; ++i) v *= static_cast<double>(t[static_cast<size_t>(i)]);
    return v;
}

}  // namespace

TpuCostModel::Impl::TileShape TpuCostModel::Impl::tileShape(const float* config,
                                                            std::vector<std::string>* notes) const {
    TileShape t;
    auto read = [&](int32_t node, int col, std::array<int64_t, 6>& dst, const char* what) {
        if (node < 0) return;
        const NodeInfo& x = at(node);
        for (int i = 0; i < x.rank; ++i) {
            const int64_t d = x.dims[static_cast<size_t>(i)];
            const float b = config[col + i];
            const int64_t v = boundSize(d, b);
            if (notes && b > static_cast<float>(d) && std::isfinite(b))
                notes->push_back(std::string(what) + fmt(" bound %g", b) + " on dim " +
                                 std::to_string(i) + " exceeds the dimension (" +
                                 std::to_string(d) + "): clamped");
            dst[static_cast<size_t>(i)] = v;
        }
    };
    read(tileOut, outputBounds, t.out, "output");
    read(tileIn, inputBounds, t.in, "input");
    read(tileKernel, kernelBounds, t.kernel, "kernel");
    return t;
}

TpuCostModel::Impl::TileTerms TpuCostModel::Impl::tileTerms(const TileShape& t) const {
    TileTerms r;
    const NodeInfo& o = at(tileOut);
    double padded = 1;
    for (int i = 0; i < o.rank; ++i) {
        const int64_t d = o.dims[static_cast<size_t>(i)], b = t.out[static_cast<size_t>(i)];
        r.numTiles *= ceilDiv(d, b);
        padded *= static_cast<double>(ceilDiv(d, b) * b) / static_cast<double>(d);
    }
    const double laneTile = tilePadRatio(t.out, o.rank, o.defaultLayout, p);
    const double laneTensor = padRatio(o, o.defaultLayout);
    r.utilisation = 1.0 / (padded * std::max(1.0, laneTile / laneTensor));
    const double tiles = static_cast<double>(r.numTiles);
    double loads = 0, moved = 0, buffers = volumeOf(t.out, o.rank) * o.elemBytes * laneTile;
    // An operand tile smaller than an output tile's share needs several fetches; a larger one
    // fetches data that tile does not use.
    auto operand = [&](int32_t node, const std::array<int64_t, 6>& b, double share) {
        if (node < 0) return;
        const NodeInfo& x = at(node);
        const double vol = volumeOf(b, x.rank);
        const double need = std::max(1.0, share);
        loads += tiles * std::ceil(need / vol);
        moved += tiles * std::max(vol, need) * x.elemBytes;
        buffers += vol * x.elemBytes * tilePadRatio(b, x.rank, x.defaultLayout, p);
    };
    if (tileIn >= 0) operand(tileIn, t.in, at(tileIn).volume / tiles);
    if (tileKernel >= 0) {
        // The kernel slice a tile needs scales with its share of the output's most-minor dim.
        const int m0 = o.rank ? dimAt(o.defaultLayout, 0) : 0;
        const double frac = o.rank ? static_cast<double>(t.out[static_cast<size_t>(m0)]) /
                                         static_cast<double>(o.dims[static_cast<size_t>(m0)])
                                   : 1.0;
        operand(tileKernel, t.kernel, at(tileKernel).volume * frac);
    }
    r.traffic = moved / p.hbmBytesPerNs + loads * p.dmaOverheadNs;
    r.workingSet = 2 * buffers;
    r.spills = r.workingSet > p.vmemBytes;
    r.tileOverhead = tiles * p.perTileOverheadNs;
    return r;
}

template <bool kExplain>
double TpuCostModel::Impl::tile(const float* config, CostBreakdown* out) const {
    const TileShape t = tileShape(config, kExplain ? &out->notes : nullptr);
    const TileTerms r = tileTerms(t);
    const double base = tileBaseNs;
    const double waste = base * (1.0 / r.utilisation - 1.0);
    // Double buffering hides operand traffic behind the previous tile's compute; a single tile
    // has nothing to overlap with, and the first tile's fetch is always exposed.
    const double tiles = static_cast<double>(r.numTiles);
    const double exposed =
        r.numTiles <= 1 ? r.traffic : std::max(0.0, r.traffic - (base + waste)) + r.traffic / tiles;
    const double spill = r.spills ? (p.spillFactor - 1.0) * (base + waste + exposed) : 0.0;
    const double tileNs = p.kernelLaunchNs + r.tileOverhead + exposed + spill + waste;
    if constexpr (kExplain) {
        uint64_t ignored = 0;
        const std::vector<float> unset(configurable.size() * static_cast<size_t>(configWidth),
                                       -1.0f);
        layout<true>(unset.data(), &ignored, out);
        TileCost& c = out->tile;
        c.numTiles = r.numTiles;
        c.utilisation = r.utilisation;
        c.workingSetBytes = r.workingSet;
        c.spills = r.spills;
        c.launchNs = p.kernelLaunchNs;
        c.tileOverheadNs = r.tileOverhead;
        c.trafficNs = exposed;
        c.spillNs = spill;
        c.wasteNs = waste;
        c.outputTile = t.out;
        c.inputTile = t.in;
        c.kernelTile = t.kernel;
        out->tileNs = tileNs;
        out->notes.push_back(
            std::to_string(r.numTiles) + (r.numTiles == 1 ? " output tile, " : " output tiles, ") +
            fmt("%.0f%% of computed elements useful", 100 * r.utilisation) +
            " (partial tiles and (8 x 128) lane padding): " + ns(waste) + " wasted");
        out->notes.push_back("working set " + bytesText(r.workingSet) +
                             " double-buffered against " + bytesText(p.vmemBytes) +
                             " of on-chip memory" +
                             (r.spills ? ": SPILLS, " + ns(spill) + " extra" : ": fits"));
        out->notes.push_back("operand traffic and DMA setup " + ns(r.traffic) + ", " + ns(exposed) +
                             (r.numTiles <= 1 ? " exposed (one tile: nothing to overlap with)"
                                              : " not hidden by double buffering") +
                             "; per-tile overhead " + ns(r.tileOverhead));
    }
    return base + tileNs;
}

template double TpuCostModel::Impl::tile<false>(const float*, CostBreakdown*) const;
template double TpuCostModel::Impl::tile<true>(const float*, CostBreakdown*) const;

// A tile configuration row (24 values) holding `t`'s bounds, with each group's sum and product.
std::vector<float> TpuCostModel::Impl::encodeTile(const TileShape& t) const {
    std::vector<float> c(static_cast<size_t>(schema::kTileConfigWidth), 0.0f);
    auto write = [&](size_t col, int32_t node, const std::array<int64_t, 6>& b) {
        if (node < 0) return;
        const int r = at(node).rank;
        double sum = 0, prod = 1;
        for (int i = 0; i < r; ++i) {
            c[col + static_cast<size_t>(i)] = static_cast<float>(b[static_cast<size_t>(i)]);
            sum += static_cast<double>(b[static_cast<size_t>(i)]);
            prod *= static_cast<double>(b[static_cast<size_t>(i)]);
        }
        c[col + 6] = static_cast<float>(sum);
        c[col + 7] = r ? static_cast<float>(prod) : 0.0f;
    };
    write(kernelBounds, tileKernel, t.kernel);
    write(outputBounds, tileOut, t.out);
    write(inputBounds, tileIn, t.in);
    return c;
}

// Operand tiles just covering what one output tile reads: the whole tensor, halved from its
// most-major dim down to about that share.
void TpuCostModel::Impl::cover(int32_t node, std::array<int64_t, 6>& b, double share) const {
    if (node < 0) return;
    const NodeInfo& x = at(node);
    double vol = x.volume;
    for (int i = 0; i < x.rank; ++i) b[static_cast<size_t>(i)] = x.dims[static_cast<size_t>(i)];
    for (int j = x.rank - 1; j >= 0 && vol > 2 * share; --j) {
        auto& d = b[static_cast<size_t>(dimAt(x.defaultLayout, j))];
        while (d > 1 && vol > 2 * share) {
            vol /= static_cast<double>(d);
            d = (d + 1) / 2;
            vol *= static_cast<double>(d);
        }
    }
}

std::vector<float> TpuCostModel::defaultTileConfig() const {
    const Impl& m = *m_impl;
    const NodeInfo& o = m.at(m.tileOut);
    // The compiler's heuristic, greedy and one-dimensional: start from the whole output and
    // shrink its most-major shrinkable dim to the next smaller divisor, step by step; keep the
    // step its own (noise-free) estimate likes best. It never explores other shapes, so sampled
    // configurations can beat it.
    Impl::TileShape t;
    for (int i = 0; i < o.rank; ++i) t.out[static_cast<size_t>(i)] = o.dims[static_cast<size_t>(i)];
    std::vector<float> best;
    double bestNs = 0;
    for (int step = 0; step < kDefaultTileSteps; ++step) {
        double tiles = 1;
        for (int i = 0; i < o.rank; ++i)
            tiles *= static_cast<double>(
                ceilDiv(o.dims[static_cast<size_t>(i)], t.out[static_cast<size_t>(i)]));
        if (m.tileIn >= 0) m.cover(m.tileIn, t.in, m.at(m.tileIn).volume / tiles);
        if (m.tileKernel >= 0) {
            const int m0 = o.rank ? dimAt(o.defaultLayout, 0) : 0;
            const double frac = o.rank ? static_cast<double>(t.out[static_cast<size_t>(m0)]) /
                                             static_cast<double>(o.dims[static_cast<size_t>(m0)])
                                       : 1.0;
            m.cover(m.tileKernel, t.kernel, m.at(m.tileKernel).volume * frac);
        }
        std::vector<float> c = m.encodeTile(t);
        const double ns = m.tile<false>(c.data(), nullptr);
        if (best.empty() || ns < bestNs) {
            best = std::move(c);
            bestNs = ns;
        }
        bool shrunk = false;
        for (int j = o.rank - 1; j >= 0 && !shrunk; --j) {
            const auto dim = static_cast<size_t>(dimAt(o.defaultLayout, j));
            const int64_t d = o.dims[dim];
            for (int64_t cand = t.out[dim] - 1; cand >= 1 && !shrunk; --cand)
                if (d % cand == 0) {
                    t.out[dim] = cand;
                    shrunk = true;
                }
        }
        if (!shrunk) break;
    }
    return best;
}

int64_t TpuCostModel::tileBoundDimension(int column) const {
    const Impl& m = *m_impl;
    if (m.configWidth != schema::kTileConfigWidth) return 0;  // a layout file
    for (const auto& [first, node] :
         {std::pair{m.outputBounds, m.tileOut}, std::pair{m.inputBounds, m.tileIn},
          std::pair{m.kernelBounds, m.tileKernel}}) {
        const int i = column - first;
        if (i < 0 || i >= schema::kMaxRank) continue;
        return node >= 0 && i < m.at(node).rank ? m.at(node).dims[static_cast<size_t>(i)] : -1;
    }
    return 0;
}

int64_t TpuCostModel::tileBoundSize(int column, float value) const {
    const int64_t d = tileBoundDimension(column);
    return d > 0 ? boundSize(d, value) : -1;
}

TpuCostModel::TileTensors TpuCostModel::tileTensors() const {
    const Impl& m = *m_impl;
    auto dims = [&](int32_t node) {
        std::vector<int64_t> d;
        if (node >= 0)
            for (int i = 0; i < m.at(node).rank; ++i)
                d.push_back(m.at(node).dims[static_cast<size_t>(i)]);
        return d;
    };
    TileTensors t;
    t.output = dims(m.tileOut);
    t.input = dims(m.tileIn);
    t.kernel = dims(m.tileKernel);
    t.outputNode = m.tileOut;
    t.inputNode = m.tileIn;
    t.kernelNode = m.tileKernel;
    t.outputLayout = decode(m.at(m.tileOut).defaultLayout);
    if (m.tileIn >= 0) t.inputLayout = decode(m.at(m.tileIn).defaultLayout);
    if (m.tileKernel >= 0) t.kernelLayout = decode(m.at(m.tileKernel).defaultLayout);
    return t;
}

}  // namespace tpg::synth
