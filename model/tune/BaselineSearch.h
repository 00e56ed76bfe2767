#pragma once

#include <cstdint>
#include <vector>

#include "CancelToken.h"
#include "graph/TpuGraph.h"
#include "synth/TpuCostModel.h"

// The searches the model-guided one is measured against. Both measure every configuration they
// try on the synthetic TPU: on real hardware that would cost seconds per configuration, here it
// costs what the model does, which makes them strong baselines.
namespace tpg::tune {

struct BaselineResult {
    std::vector<float> row;  // the fastest configuration found
    double ns = 0;           // its synthetic-TPU runtime
    int64_t evaluations = 0;
    double seconds = 0;
    bool converged = false;  // greedy: a full pass over every coordinate gained nothing
};

// Random configurations drawn as the dataset's `random` search draws them (layout: a random
// permutation or the default for every slot; tile: valid tile sizes), for `budgetSeconds`; the
// start row counts as the first.
BaselineResult randomSearch(const TpuGraph& g, const synth::TpuCostModel& tpu, const std::vector<float>& start,
                            double budgetSeconds, uint64_t seed, const nn::CancelToken* cancel = nullptr);

// Coordinate descent on the synthetic TPU alone, the oracle's upper bound for a local search:
// from `start`, every coordinate of the SearchSpace, heaviest tensor first, is set to its fastest
// value, pass after pass, until a pass gains nothing or the budget ends.
BaselineResult oracleGreedySearch(const TpuGraph& g, const synth::TpuCostModel& tpu, const std::vector<float>& start,
                                  double budgetSeconds, const nn::CancelToken* cancel = nullptr);

}  // namespace tpg::tune
