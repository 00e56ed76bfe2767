#pragma once

#include <cstdint>
#include <vector>

#include "Trainer.h"

namespace tpg::nn {

// Phase 2 of a training run (see TrainingRun.h): one epoch = every train graph's configurations
// sampled about once (at most limits::kEpochConfigsPerGraph per graph, so one 100k-config graph
// does not drown the rest), as optimiser steps of `graphsPerStep` graph visits, shuffled by the
// epoch's seed. Each step lists indices into the train files.
struct EpochPlan {
    std::vector<std::vector<size_t>> steps;
    int64_t configs = 0;  // configurations the plan samples
};

int graphsPerStep(const TrainSettings& settings, Collection kind);
EpochPlan planEpoch(const std::vector<int64_t>& configCounts, const TrainSettings& settings,
                    int graphsPerStep, int epoch);

}  // namespace tpg::nn
