#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "CostModel.h"

namespace tpg::cli {

// (share of the file done, 0-1; what is being done, "programs 120/1000" or "120/1000").
using FileProgress = std::function<void(double share, const std::string& what)>;

// A file's scoring on one progress: its program keys first where `indexed` (the model ties
// programs; nn::limits::kProgramIndexShare of the file), then its scores.
struct ScoringPhases {
    nn::CostModel::Progress keys, scores;
};
ScoringPhases scoringPhases(bool indexed, const FileProgress& progress);

// `configs` of `g` scored by `model` (every one when `configs` is null), reporting as it goes:
// the program keys first where the model ties programs (they had run after the scores, minutes
// on a big file with the bar at 100%), then the scores.
std::vector<double> scoreFile(const nn::CostModel& model, const TpuGraph& g,
                              const std::vector<int64_t>* configs, const FileProgress& progress);

}  // namespace tpg::cli
