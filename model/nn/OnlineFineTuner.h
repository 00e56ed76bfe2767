#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "CostModel.h"
#include "graph/TpuGraph.h"

namespace tpg::nn {

// Fine-tunes a private copy of a cost model on configurations measured during a search (as
// Ansor does between rounds): a few optimiser steps of the loss the model was trained with (its
// file records it) over the measured rows of ONE graph. The base model is never modified; model()
// scores with the tuned weights.
class OnlineFineTuner {
public:
    explicit OnlineFineTuner(const CostModel& base);
    ~OnlineFineTuner();
    OnlineFineTuner(const OnlineFineTuner&) = delete;
    OnlineFineTuner& operator=(const OnlineFineTuner&) = delete;

    const CostModel& model() const { return m_model; }

    // `count` rows of `g` (layout: numConfigurable x 18 values; tile: 24) with their measured
    // runtimes; `steps` steps over all of them. Returns the last step's loss (NaN: nothing to
    // learn, e.g. fewer than two distinct runtimes).
    double train(const TpuGraph& g, const float* rows, const std::vector<double>& runtimes, int steps);

private:
    struct Optimiser;
    CostModel m_model;
    std::unique_ptr<Optimiser> m_optimiser;
};

}  // namespace tpg::nn
