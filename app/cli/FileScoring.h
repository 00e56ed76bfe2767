#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "CostModel.h"

namespace tpg::cli {

// The share of a file's scoring time its program keys take, where configurations of one program
// share a score (a synthetic TPU pass each, about a tenth, as on the explorer's bar).
inline constexpr double kProgramKeyShare = 0.1;

// (share of the file done, 0-1; what is being done, "programs 120/1000" or "120/1000").
using FileProgress = std::function<void(double share, const std::string& what)>;

// `configs` of `g` scored by `model` (every one when `configs` is null), reporting as it goes:
// the program keys first where the model ties programs (they had run after the scores, minutes
// on a big file with the bar at 100%), then the scores.
std::vector<double> scoreFile(const nn::CostModel& model, const TpuGraph& g,
                              const std::vector<int64_t>* configs, const FileProgress& progress);

}  // namespace tpg::cli
