#pragma once

// The scenario of "Learn: how tile sizes affect runtime", read off the open tile kernel rather
// than scripted for one file: its output tile from a start configuration (the compiler's default,
// else the fastest measured one that cuts the output into several tiles), made one lane wide, so
// the vector registers' other lanes compute for nothing, then made the whole output, one tile with
// no step of its loop to overlap its operand traffic with. Every figure is the synthetic TPU's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"
#include "synth/TpuCostModel.h"

namespace tpg::lesson {

// The lane bound the narrow step sets: one lane of a register's 128.
constexpr float kNarrowLanes = 1;

struct TileLesson {
    int32_t output = -1;             // the kernel's output node
    std::vector<int64_t> dims;       // its dimensions
    int laneDim = -1;                // its most-minor dimension under its layout
    int laneColumn = -1;             // the config column that bounds it (output_bounds_<laneDim>)
    std::vector<int> outputColumns;  // the config columns of its dimensions' bounds, in order
    std::string start;  // "the compiler's default configuration", "configuration 12, …"
    std::vector<float> startRow, narrowRow, wholeRow;
    synth::CostBreakdown startCost, narrowCost, wholeCost;
};

// The config column of output_bounds_<dim>.
int outputBoundColumn(int dim);
// The tile `row` gives the output's dimension `dim`, as the synthetic TPU reads it.
int64_t outputTileSize(const synth::TpuCostModel& tpu, const std::vector<float>& row, int dim);

// The lesson on `g` (a tile file), or nullopt when its kernel cannot show it: an output without
// a dimension of two or more elements to narrow, or no configuration of several tiles to start
// from.
std::optional<TileLesson> findTileLesson(const TpuGraph& g, const synth::TpuCostModel& tpu);

}  // namespace tpg::lesson
