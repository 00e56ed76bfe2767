#pragma once

// Internal to tpgnn (includes torch): what a training loop does differently as one replica of a
// data-parallel run. Every call is collective (DataParallelGroup.h).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "DataParallelGroup.h"
#include "EpochPlan.h"
#include "TrainingRun.h"

namespace tpg::nn {

class DataParallelTraining {
public:
    explicit DataParallelTraining(DataParallelGroup& group) : m_group(group) {}

    int rank() const { return m_group.rank(); }
    int workers() const { return m_group.worldSize(); }

    // Every replica starts from rank 0's weights, optimiser state and place in the run (a
    // resumed checkpoint included). Throws DistributedError when a rank's data or settings differ.
    void startAlike(TrainingRun& run);

    // One optimiser step covers plan steps [first, first + workers): this rank's graphs (plan step
    // first + rank, none past the end) and the step's graph count over all ranks.
    struct StepShare {
        std::vector<size_t> files;
        double graphs = 0;
    };
    StepShare share(const EpochPlan& plan, int64_t first) const;

    // Before an epoch's first step, in one collective: whether any rank wants to stop, and rank
    // 0's learning rate (clocks differ a little; replicas must apply the same rate).
    std::pair<bool, double> agree(bool stop, double learningRate);

    // The step's only collective: one flat all-reduce of every gradient, the step's tally, each
    // rank's wish to stop after this step, rank 0's learning rate and each rank's time in the last
    // one. Afterwards each rank holds the sums (the gradients are already divided by the global
    // graph count), the global tally and rank 0's rate in `learningRate`; returns whether any
    // rank wants to stop.
    bool allReduceGradients(TrainingRun& run, StepTally& tally, bool stopAfter, double& learningRate);

    ValidationSummary reduceValidation(const MetricSums& local, Collection kind);

    // Throws DistributedError when the replicas' weights differ in any bit.
    void checkReplicasIdentical(const TrainingRun& run, int epoch);

    // Every rank waits here at the end: rank 0 hosts the store, so it must leave last.
    void barrier() { m_group.barrier("the final barrier"); }

    double allReduceSeconds() const { return m_allReduceSeconds; }
    int64_t allReduces() const { return m_allReduces; }
    // The gradient all-reduce's time on the rank that reached it last (the least over the ranks,
    // learnt a step late, through the next all-reduce): moving and adding the data without
    // waiting for a slower worker. Summed over `settledSteps` steps: all but the last.
    double settledSeconds() const { return m_settledSeconds; }
    int64_t settledSteps() const { return std::max<int64_t>(0, m_allReduces - 1); }
    int replicaChecks() const { return m_replicaChecks; }

private:
    DataParallelGroup& m_group;
    double m_allReduceSeconds = 0;
    int64_t m_allReduces = 0;
    double m_lastAllReduceSeconds = 0;
    double m_settledSeconds = 0;
    int m_replicaChecks = 0;
};

}  // namespace tpg::nn
