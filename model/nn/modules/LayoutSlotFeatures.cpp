#include "LayoutSlotFeatures.h"

#include <algorithm>
#include <cmath>

#include "VectorTile.h"

namespace tpg::nn {

LayoutSlotTensors LayoutSlotTensors::rows(const torch::Tensor& index) const {
    auto pick = [&](const torch::Tensor& t) { return t.defined() ? t.index_select(0, index) : t; };
    return {pick(dims),   pick(defaults),  pick(rowMajor),   pick(reduced),     pick(rank),
            pick(preferred), pick(logVolume), pick(source), pick(layoutFree), pick(volumeShare),
            pick(programOutputShare), relayouts};
}

LayoutSlotTensors makeLayoutSlotTensors(const std::vector<LayoutSlotShape>& shapes,
                                        const std::vector<RelayoutOp>* relayouts) {
    const auto nc = static_cast<int64_t>(shapes.size()) / kLayoutSlots;
    std::vector<float> dims, logVolume, volumeShare, programOutputShare;
    std::vector<int64_t> defaults, rowMajor, rank, preferred, source;
    std::vector<uint8_t> reduced, layoutFree;
    for (const LayoutSlotShape& s : shapes) {
        source.push_back(s.source);
        layoutFree.push_back(static_cast<uint8_t>(s.layoutFree));
        volumeShare.push_back(s.volumeShare);
        programOutputShare.push_back(s.programOutputShare);
        double volume = 1;
        for (int d = 0; d < 6; ++d) {
            dims.push_back(s.dims[static_cast<size_t>(d)]);
            defaults.push_back(s.defaultLayout[static_cast<size_t>(d)]);
            rowMajor.push_back(d < s.rank ? s.rank - 1 - d : -1);
            reduced.push_back(static_cast<uint8_t>(s.reducedMask >> d & 1u));
            if (d < s.rank) volume *= s.dims[static_cast<size_t>(d)];
        }
        rank.push_back(s.rank);
        preferred.push_back(s.preferredMinor);
        logVolume.push_back(static_cast<float>(std::log(volume)));
    }
    auto longs = [](std::vector<int64_t>& v, torch::IntArrayRef shape) {
        return torch::from_blob(v.data(), shape, torch::kLong).clone();
    };
    LayoutSlotTensors t;
    t.dims = torch::from_blob(dims.data(), {nc, kLayoutSlots, 6}, torch::kFloat).clone();
    t.defaults = longs(defaults, {nc, kLayoutSlots, 6});
    t.rowMajor = longs(rowMajor, {nc, kLayoutSlots, 6});
    t.reduced = torch::from_blob(reduced.data(), {nc, kLayoutSlots, 6}, torch::kUInt8).to(torch::kBool);
    t.rank = longs(rank, {nc, kLayoutSlots});
    t.preferred = longs(preferred, {nc, kLayoutSlots});
    t.logVolume = torch::from_blob(logVolume.data(), {nc, kLayoutSlots}, torch::kFloat).clone();
    t.source = longs(source, {nc, kLayoutSlots});
    t.layoutFree = torch::from_blob(layoutFree.data(), {nc, kLayoutSlots}, torch::kUInt8).to(torch::kBool);
    t.volumeShare = torch::from_blob(volumeShare.data(), {nc, kLayoutSlots}, torch::kFloat).clone();
    t.programOutputShare = torch::from_blob(programOutputShare.data(), {nc, kLayoutSlots}, torch::kFloat).clone();
    if (relayouts) t.relayouts = std::make_shared<const std::vector<RelayoutOp>>(*relayouts);
    return t;
}

namespace {

// What a config makes of each slot: the layout in force and the padding it costs.
struct SlotLayouts {
    torch::Tensor layout;     // [C, nc, 3, 6] long: the config's values
    torch::Tensor given;      // [C, nc, 3] bool: an explicit layout
    torch::Tensor effective;  // [C, nc, 3, 6] long: given, else the default
    torch::Tensor changed;    // [C, nc, 3] bool: given and not the default
    torch::Tensor minor, hasMinor, hasSecond, minorSize, secondSize;  // [C, nc, 3]
    torch::Tensor lanePad, sublanePad;  // [C, nc, 3]: log of the padded / real size
};

SlotLayouts slotLayouts(const torch::Tensor& config, const LayoutSlotTensors& s) {
    const int64_t c = config.size(0), nc = config.size(1);
    TORCH_CHECK(config.size(2) == int64_t{kLayoutSlots} * 6 && s.rank.size(0) == nc,
                "slot features need [C, nc, 18] configs and the graph's nc slots");
    SlotLayouts l;
    l.layout = config.round().to(torch::kLong).view({c, nc, kLayoutSlots, 6});
    auto rank = s.rank.unsqueeze(0);  // [1, nc, 3]
    auto first = l.layout.select(3, 0);
    l.given = (first >= 0) & (first < rank);
    l.effective = torch::where(l.given.unsqueeze(3), l.layout, s.defaults.unsqueeze(0));
    l.changed = l.given & (l.effective != s.defaults.unsqueeze(0)).any(3);
    l.minor = l.effective.select(3, 0);
    auto second = l.effective.select(3, 1);
    l.hasMinor = (l.minor >= 0) & (l.minor < rank);
    l.hasSecond = (rank >= 2) & (second >= 0) & (second < rank);
    auto dims = s.dims.unsqueeze(0).expand({c, -1, -1, -1});
    auto sizeAt = [&](const torch::Tensor& dim, const torch::Tensor& has) {
        auto size = dims.gather(3, dim.clamp(0, 5).unsqueeze(3)).squeeze(3);
        return torch::where(has, size, torch::ones_like(size));  // [C, nc, 3]
    };
    l.minorSize = sizeAt(l.minor, l.hasMinor);
    l.secondSize = sizeAt(second, l.hasSecond);
    l.lanePad = torch::where(l.hasMinor, (torch::ceil(l.minorSize / kLanes) * kLanes / l.minorSize).log(),
                             torch::zeros_like(l.minorSize));
    l.sublanePad = torch::where(l.hasSecond, (torch::ceil(l.secondSize / kSublanes) * kSublanes / l.secondSize).log(),
                                torch::zeros_like(l.secondSize));
    return l;
}

// The dims other than size-1 ones, minor to major: two layouts of one tensor are the same physical
// layout when these agree (degenerate dims hold no data).
using DimOrder = std::array<int8_t, 6>;
DimOrder physicalOrder(const int64_t* layout, int rank, const std::array<float, 6>& dims) {
    DimOrder o;
    o.fill(-1);
    int k = 0;
    for (int i = 0; i < rank; ++i) {
        const int64_t d = layout[i];
        if (d >= 0 && d < rank && dims[static_cast<size_t>(d)] != 1.0f) o[static_cast<size_t>(k++)] = static_cast<int8_t>(d);
    }
    return o;
}

DimOrder rowMajorOrder(int rank, const std::array<float, 6>& dims) {
    std::array<int64_t, 6> layout{};
    for (int i = 0; i < rank; ++i) layout[static_cast<size_t>(i)] = rank - 1 - i;
    return physicalOrder(layout.data(), rank, dims);
}

// XLA's rule: a reshape is a bitcast when both sides keep row-major element order, a transpose when
// its output layout mapped through the permutation is the layout its operand arrives in.
bool isBitcast(const RelayoutOp& op, const int64_t* in, const int64_t* out) {
    if (!op.transpose)
        return physicalOrder(in, op.in.rank, op.in.dims) == rowMajorOrder(op.in.rank, op.in.dims) &&
               physicalOrder(out, op.out.rank, op.out.dims) == rowMajorOrder(op.out.rank, op.out.dims);
    std::array<int64_t, 6> mapped{};
    for (int j = 0; j < op.out.rank; ++j) {
        const int64_t d = out[j];
        mapped[static_cast<size_t>(j)] = d >= 0 && d < op.out.rank ? op.perm[static_cast<size_t>(d)] : -1;
    }
    return physicalOrder(mapped.data(), op.out.rank, op.in.dims) == physicalOrder(in, op.in.rank, op.in.dims);
}

// The (8 x 128) tile padding of a tensor under a layout, as the synthetic TPU pads it.
double tilePadding(const int64_t* layout, int rank, const std::array<float, 6>& dims) {
    if (rank == 0) return 1.0;
    const DimOrder o = physicalOrder(layout, rank, dims);
    auto padded = [&](int i, double tile) {
        const int8_t d = o[static_cast<size_t>(i)];
        const double size = d >= 0 ? std::max(1.0f, dims[static_cast<size_t>(d)]) : 1.0;
        return padTo(size, tile);
    };
    const double r = padded(0, kLanes) * (rank >= 2 ? padded(1, kSublanes) : 1.0);
    return std::min(r, kMaxTilePadding);
}

// The layouts a relayout op reads and writes under config k: its own slots when set, else its
// defaults, with its operand in the layout the operand's owner row gives it.
struct RelayoutLayouts {
    const int64_t* in;
    const int64_t* out;
};

// [C, nc, 3]: per row, the physical relayouts its layouts cause (count, element share, padded
// element share), before the log scaling.
torch::Tensor relayoutTotals(const SlotLayouts& l, const LayoutSlotTensors& s, int64_t c, int64_t nc) {
    auto totals = torch::zeros({c, nc, kRelayoutFeatureCount});
    if (!s.relayoutColumns() || s.relayouts->empty()) return totals;
    const torch::Tensor effective = l.effective.contiguous(), given = l.given.contiguous();
    const int64_t* eff = effective.data_ptr<int64_t>();
    const bool* giv = given.data_ptr<bool>();
    const auto rank = s.rank.accessor<int64_t, 2>();
    auto t = totals.accessor<float, 3>();
    auto slot = [&](int64_t k, int64_t row, int i) { return ((k * nc + row) * kLayoutSlots + i); };
    for (const RelayoutOp& op : *s.relayouts) {
        std::array<int64_t, 6> inDefault{}, outDefault{};
        std::copy(op.in.defaultLayout.begin(), op.in.defaultLayout.end(), inDefault.begin());
        std::copy(op.out.defaultLayout.begin(), op.out.defaultLayout.end(), outDefault.begin());
        const bool operandOwned = op.operandRow >= 0 && rank[op.operandRow][0] == op.in.rank;
        const int64_t row = op.selfRow >= 0 ? op.selfRow : op.operandRow;
        for (int64_t k = 0; k < c; ++k) {
            RelayoutLayouts x{inDefault.data(), outDefault.data()};
            if (op.selfRow >= 0 && giv[slot(k, op.selfRow, 0)]) x.out = eff + slot(k, op.selfRow, 0) * 6;
            if (op.selfRow >= 0 && giv[slot(k, op.selfRow, 1)])
                x.in = eff + slot(k, op.selfRow, 1) * 6;
            else if (operandOwned && giv[slot(k, op.operandRow, 0)])
                x.in = eff + slot(k, op.operandRow, 0) * 6;
            if (isBitcast(op, x.in, x.out)) continue;
            const double padding = tilePadding(x.in, op.in.rank, op.in.dims) + tilePadding(x.out, op.out.rank, op.out.dims);
            t[k][row][0] += 1;
            t[k][row][1] += op.volumeShare;
            t[k][row][2] += op.volumeShare * static_cast<float>(padding);
        }
    }
    return totals;
}

// [C, nc, 3, kRelayoutFeatureCount]: the relayout columns, on the output slot only.
torch::Tensor relayoutFeatures(const SlotLayouts& l, const LayoutSlotTensors& s, int64_t c, int64_t nc) {
    const torch::Tensor totals = relayoutTotals(l, s, c, nc);
    auto scaled = torch::stack({totals.select(2, 0).log1p(), (100 * totals.select(2, 1)).log1p(),
                                (100 * totals.select(2, 2)).log1p()},
                               2);  // [C, nc, 3]
    auto onOutput = torch::zeros({c, nc, kLayoutSlots, kRelayoutFeatureCount});
    onOutput.select(2, 0).copy_(scaled);
    return onOutput;
}

}  // namespace

torch::Tensor layoutSlotFeatures(const torch::Tensor& config, const LayoutSlotTensors& s) {
    const int64_t c = config.size(0), nc = config.size(1);
    const SlotLayouts l = slotLayouts(config, s);
    auto rank = s.rank.unsqueeze(0);  // [1, nc, 3]
    const auto& given = l.given;
    const auto& minor = l.minor;
    const auto& hasMinor = l.hasMinor;
    auto preferred = s.preferred.unsqueeze(0);
    auto notPreferred = hasMinor & (preferred >= 0) & (minor != preferred);
    auto reducedMinor = hasMinor & s.reduced.unsqueeze(0).expand({c, -1, -1, -1})
                                       .gather(3, minor.clamp(0, 5).unsqueeze(3)).squeeze(3);
    auto minorMoved = given & (minor != s.defaults.select(2, 0).unsqueeze(0));
    const auto& changed = l.changed;
    auto rowMajor = (rank > 0) & (l.effective == s.rowMajor.unsqueeze(0)).all(3);
    auto f = [](const torch::Tensor& b) { return b.to(torch::kFloat); };
    auto features = torch::stack({f(given), l.minorSize.log2() / 8, l.secondSize.log2() / 8, l.lanePad / 4,
                                  l.sublanePad / 2, f(notPreferred), f(reducedMinor), f(minorMoved),
                                  f(changed), f(rowMajor), f(changed) * s.logVolume.unsqueeze(0) / 20},
                                 3);  // [C, nc, 3, 11]
    return features.view({c, nc, kLayoutSlots * kSlotFeatureCount});
}

int64_t flowFeatureCount(bool relayoutColumns) {
    return kFlowFeatureCount + (relayoutColumns ? kRelayoutFeatureCount : 0);
}

torch::Tensor layoutFlowFeatures(const torch::Tensor& config, const LayoutSlotTensors& s) {
    const int64_t c = config.size(0), nc = config.size(1);
    TORCH_CHECK(s.source.defined(), "flow features need the graph's layout flow");
    const SlotLayouts l = slotLayouts(config, s);
    auto rank = s.rank.unsqueeze(0);  // [1, nc, 3]
    auto f = [](const torch::Tensor& b) { return b.to(torch::kFloat); };
    // Output slot: how far its layout reaches.
    auto share = s.volumeShare.unsqueeze(0).expand({c, -1, -1});  // [C, nc, 3]
    auto padExtra = (l.lanePad + l.sublanePad).exp() - 1;
    auto outputs = torch::stack({share, (10 * padExtra * share).log1p(),
                                 (100 * f(l.changed) * s.programOutputShare.unsqueeze(0)).log1p()},
                                3);  // [C, nc, 3, 3]
    // Operand slots: the layout arriving from the source row's output slot, else the default.
    auto hasSource = s.source >= 0;                                    // [nc, 3]
    auto sourceRow = s.source.clamp_min(0);                            // [nc, 3]
    auto sourceOut = l.effective.select(2, 0).index_select(1, sourceRow.flatten())
                         .view({c, nc, kLayoutSlots, 6});              // [C, nc, 3, 6]
    auto sourceGiven = l.given.select(2, 0).index_select(1, sourceRow.flatten()).view({c, nc, kLayoutSlots});
    auto sourceRank = s.rank.select(1, 0).index_select(0, sourceRow.flatten()).view({1, nc, kLayoutSlots});
    auto fromSource = hasSource.unsqueeze(0) & sourceGiven & (sourceRank == rank);
    auto arriving = torch::where(fromSource.unsqueeze(3), sourceOut, s.defaults.unsqueeze(0));
    auto inRank = torch::arange(6, torch::kLong).view({1, 1, 1, 6}) < rank.unsqueeze(3);
    auto differs = ((l.effective != arriving) & inRank).any(3);
    auto copy = l.given & differs & (rank >= 2) & ~s.layoutFree.unsqueeze(0);
    auto transposed = copy & (l.minor != arriving.select(3, 0));
    auto operands = torch::stack({f(copy), f(transposed), (100 * f(copy) * share).log1p()}, 3);
    auto isOutput = (torch::arange(kLayoutSlots, torch::kLong) == 0).view({1, 1, kLayoutSlots, 1});
    auto flow = torch::where(isOutput, outputs, operands);  // [C, nc, 3, kFlowFeatureCount]
    if (s.relayoutColumns()) flow = torch::cat({flow, relayoutFeatures(l, s, c, nc)}, 3);
    return flow.view({c, nc, kLayoutSlots * flowFeatureCount(s.relayoutColumns())});
}

}  // namespace tpg::nn
