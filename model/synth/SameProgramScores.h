#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg::synth {

// Configurations the compiler turns into one program (a slot it cannot apply, a layout that moves
// only size-1 dims, an operand layout equal to the one arriving) are one executable and run the
// same, so a ranking should tie them: ordering them apart orders measurement noise. Replaces each
// of `scores` (one per entry of `configs`, configurations of `g`) by the mean over the entries
// whose program is the same, by the synthetic TPU's model of the compiler (TpuCostModel::
// programKey): exact on synthetic files, an estimate of XLA on real ones. Layout graphs only:
// sampled tile configurations seldom compile alike, and which tensors a tile bounds is the
// synthetic TPU's guess on a real kernel, so a wrong guess could tie configurations that differ.
// Returns false, scores untouched, for tile graphs and when the synthetic TPU cannot read `g`
// (node_feat or config widths off the schema), and when `stop` (asked before each configuration:
// a key takes a synthetic TPU pass, ~2 ms on 45,000 nodes) says so.
using StopRequested = std::function<bool()>;
bool shareScoresWithinPrograms(const TpuGraph& g, const std::vector<int64_t>& configs, std::vector<double>& scores,
                               const StopRequested& stop = {});
// Its two halves, for a caller that scores the same configs again (training's validation): the
// program key of each of `configs`, empty where the rule does not apply (as above); and the
// scores shared by key (`keys` and `scores` of one length). `progress` hears (done, total) after
// each key: on a big file they take minutes (a synthetic TPU pass each).
using KeyProgress = std::function<void(int64_t done, int64_t total)>;
std::vector<uint64_t> programKeys(const TpuGraph& g, const std::vector<int64_t>& configs,
                                  const StopRequested& stop = {}, const KeyProgress& progress = {});
void shareScoresWithinPrograms(const std::vector<uint64_t>& keys, std::vector<double>& scores);

}  // namespace tpg::synth
