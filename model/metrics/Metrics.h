#pragma once

#include <cstdint>
#include <vector>

// Ranking metrics over one graph's configurations, as the TpuGraphs paper and competition define
// them. Convention: `predicted` holds scores where LOWER means FASTER (a predicted runtime), and
// `truth` holds measured runtimes (tile: normalised by config_runtime_normalizers).
namespace tpg::metrics {

struct PairCounts {
    int64_t pairs = 0;        // n (n - 1) / 2
    int64_t concordant = 0;   // ordered the same way by both, no tie in either
    int64_t discordant = 0;   // ordered oppositely, no tie in either
    int64_t tiedTruth = 0;    // pairs tied in truth (including tied in both)
    int64_t tiedPredicted = 0;
    int64_t tiedBoth = 0;
};

// All pair statistics in O(n log n) (Knight's merge-sort algorithm).
PairCounts countPairs(const std::vector<double>& predicted, const std::vector<double>& truth);

// Ordered pair accuracy: among pairs with different true runtimes, the fraction whose predicted
// order is the true order (a predicted tie counts as wrong). NaN when every runtime is tied.
double orderedPairAccuracy(const std::vector<double>& predicted, const std::vector<double>& truth);

// Kendall's tau-b (tie-aware). NaN when either side is constant.
double kendallTau(const std::vector<double>& predicted, const std::vector<double>& truth);

// Configuration indices, best (lowest predicted) first; ties keep index order.
std::vector<int64_t> rankByPrediction(const std::vector<double>& predicted);

// min(truth of the k best-predicted configs) / min(truth) - 1: 0 when the best config is in the
// top k. Needs a positive minimum runtime; returns NaN otherwise.
double topKSlowdown(const std::vector<double>& predicted, const std::vector<double>& truth, int k);

// The competition's tile score for one kernel: 2 - min(top-5 truth) / min(truth).
double tileScore(const std::vector<double>& predicted, const std::vector<double>& truth, int k = 5);

// Mean of the finite values (NaN when none).
double finiteMean(const std::vector<double>& values);

}  // namespace tpg::metrics
