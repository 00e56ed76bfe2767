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

// Size-matched steps, for data-parallel runs: a step's graphs are spread over the workers, and
// the step lasts as long as the slowest worker's share, so graphs of similar cost go together.
// Within windows of limits::kMatchWindowSteps global steps (each `workers` x graphsPerStep
// graphs) the visits are sorted by cost, cut into global steps, and those shuffled; each global
// step becomes `workers` consecutive plan steps dealt round-robin from the sorted graphs. A
// single process with graphsPerStep = workers x g and the same costs gets the same global steps.
struct StepMatching {
    int workers = 1;
    std::vector<int64_t> costs;  // per train file (e.g. its size); empty = no matching
};

int graphsPerStep(const TrainSettings& settings, Collection kind);
EpochPlan planEpoch(const std::vector<int64_t>& configCounts, const TrainSettings& settings,
                    int graphsPerStep, int epoch, const StepMatching& matching = {});

}  // namespace tpg::nn
