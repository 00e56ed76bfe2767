#include "TileLesson.h"

#include <algorithm>

#include "graph/Schema.h"
#include "whatif/ConfigEdit.h"

namespace tpg::lesson {

int outputBoundColumn(int dim) {
    return schema::tileConfigColumn("output_bounds_" + std::to_string(dim));
}

int64_t outputTileSize(const synth::TpuCostModel& tpu, const std::vector<float>& row, int dim) {
    const int column = outputBoundColumn(dim);
    if (column < 0 || column >= static_cast<int>(row.size())) return -1;
    return tpu.tileBoundSize(column, row[static_cast<size_t>(column)]);
}

namespace {

std::vector<float> withBound(std::vector<float> row, int column, float value) {
    whatif::applyTileEdit(row, whatif::TileEdit{column, value});
    return row;
}

// Where the lesson starts: the compiler's default tile, else the fastest measured configuration
// of several tiles whose lane tile is wider than the narrow step's; nullopt when there is none.
std::optional<std::pair<std::vector<float>, std::string>> startOf(const TpuGraph& g,
                                                                  const synth::TpuCostModel& tpu,
                                                                  const std::vector<int64_t>& dims,
                                                                  int laneDim) {
    // Several output tiles (counted from the bounds, as the synthetic TPU counts them: no
    // breakdown of each configuration needed), wider than the narrow step's.
    const auto usable = [&](const std::vector<float>& row) {
        int64_t tiles = 1;
        for (size_t d = 0; d < dims.size(); ++d) {
            const int64_t size = outputTileSize(tpu, row, static_cast<int>(d));
            tiles *= size > 0 ? (dims[d] + size - 1) / size : 1;
        }
        return tiles > 1 && outputTileSize(tpu, row, laneDim) > static_cast<int64_t>(kNarrowLanes);
    };
    const std::vector<float> fallback = tpu.defaultTileConfig();
    if (usable(fallback))
        return std::pair{fallback, std::string("the compiler's default configuration")};
    std::vector<int64_t> order(static_cast<size_t>(g.numConfigs()));
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
    if (g.runtimesKnown())
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
            return g.runtimes()[static_cast<size_t>(a)] < g.runtimes()[static_cast<size_t>(b)];
        });
    for (int64_t c : order) {
        std::vector<float> row(g.tileConfig(c), g.tileConfig(c) + g.configFeatureWidth());
        if (usable(row))
            return std::pair{
                row, "configuration " + std::to_string(c) +
                         (g.runtimesKnown() ? ", the fastest measured with several tiles" : "")};
    }
    return std::nullopt;
}

}  // namespace

std::optional<TileLesson> findTileLesson(const TpuGraph& g, const synth::TpuCostModel& tpu) {
    if (g.isLayout() || g.configFeatureWidth() != schema::kTileConfigWidth) return std::nullopt;
    const synth::TpuCostModel::TileTensors t = tpu.tileTensors();
    if (t.output.empty() || t.outputLayout.empty()) return std::nullopt;
    TileLesson s;
    s.output = t.outputNode;
    s.dims = t.output;
    s.laneDim = t.outputLayout.front();
    s.laneColumn = outputBoundColumn(s.laneDim);
    if (s.laneColumn < 0 || s.dims[static_cast<size_t>(s.laneDim)] < 2) return std::nullopt;
    auto start = startOf(g, tpu, s.dims, s.laneDim);
    if (!start) return std::nullopt;
    s.startRow = std::move(start->first);
    s.start = std::move(start->second);
    s.narrowRow = withBound(s.startRow, s.laneColumn, kNarrowLanes);
    s.wholeRow = s.startRow;
    for (size_t d = 0; d < s.dims.size(); ++d) {
        const int column = outputBoundColumn(static_cast<int>(d));
        s.outputColumns.push_back(column);
        s.wholeRow = withBound(s.wholeRow, column, static_cast<float>(s.dims[d]));
    }
    s.startCost = tpu.explainTile(s.startRow.data());
    s.narrowCost = tpu.explainTile(s.narrowRow.data());
    s.wholeCost = tpu.explainTile(s.wholeRow.data());
    // A narrow tile that costs nothing more has nothing to teach (its lanes were idle already).
    if (s.narrowCost.totalNs <= s.startCost.totalNs) return std::nullopt;
    return s;
}

}  // namespace tpg::lesson
