#include "metrics/Metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tpg::metrics {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Sum of t (t - 1) / 2 over runs of equal values in sorted order.
template <typename Equal>
int64_t tiedPairs(const std::vector<int64_t>& order, Equal eq) {
    int64_t total = 0, run = 1;
    for (size_t i = 1; i <= order.size(); ++i) {
        if (i < order.size() && eq(order[i - 1], order[i])) {
            ++run;
        } else {
            total += run * (run - 1) / 2;
            run = 1;
        }
    }
    return total;
}

// Sorts `idx` by key, returning the number of strict inversions it removed.
int64_t mergeSortCount(std::vector<int64_t>& idx, const std::vector<double>& key) {
    std::vector<int64_t> buf(idx.size());
    int64_t swaps = 0;
    for (size_t width = 1; width < idx.size(); width *= 2) {
        for (size_t lo = 0; lo < idx.size(); lo += 2 * width) {
            const size_t mid = std::min(lo + width, idx.size());
            const size_t hi = std::min(lo + 2 * width, idx.size());
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (key[static_cast<size_t>(idx[j])] < key[static_cast<size_t>(idx[i])]) {
                    swaps += static_cast<int64_t>(mid - i);
                    buf[k++] = idx[j++];
                } else {
                    buf[k++] = idx[i++];
                }
            }
            while (i < mid) buf[k++] = idx[i++];
            while (j < hi) buf[k++] = idx[j++];
        }
        idx.swap(buf);
    }
    return swaps;
}

}  // namespace

PairCounts countPairs(const std::vector<double>& predicted, const std::vector<double>& truth) {
    PairCounts c;
    const auto n = static_cast<int64_t>(std::min(predicted.size(), truth.size()));
    c.pairs = n * (n - 1) / 2;
    std::vector<int64_t> idx(static_cast<size_t>(n));
    std::iota(idx.begin(), idx.end(), 0);
    auto p = [&](int64_t i) { return predicted[static_cast<size_t>(i)]; };
    auto t = [&](int64_t i) { return truth[static_cast<size_t>(i)]; };
    std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return p(a) != p(b) ? p(a) < p(b) : t(a) < t(b); });
    c.tiedPredicted = tiedPairs(idx, [&](int64_t a, int64_t b) { return p(a) == p(b); });
    c.tiedBoth = tiedPairs(idx, [&](int64_t a, int64_t b) { return p(a) == p(b) && t(a) == t(b); });
    // Sorted by prediction (then truth), inversions in truth are exactly the discordant pairs.
    const int64_t swaps = mergeSortCount(idx, truth);
    c.tiedTruth = tiedPairs(idx, [&](int64_t a, int64_t b) { return t(a) == t(b); });
    c.discordant = swaps;
    c.concordant = c.pairs - c.tiedPredicted - c.tiedTruth + c.tiedBoth - swaps;
    return c;
}

double orderedPairAccuracy(const std::vector<double>& predicted, const std::vector<double>& truth) {
    const PairCounts c = countPairs(predicted, truth);
    const int64_t untied = c.pairs - c.tiedTruth;
    return untied == 0 ? kNaN : static_cast<double>(c.concordant) / static_cast<double>(untied);
}

double kendallTau(const std::vector<double>& predicted, const std::vector<double>& truth) {
    const PairCounts c = countPairs(predicted, truth);
    const double a = static_cast<double>(c.pairs - c.tiedPredicted);
    const double b = static_cast<double>(c.pairs - c.tiedTruth);
    if (a <= 0 || b <= 0) return kNaN;
    return static_cast<double>(c.concordant - c.discordant) / std::sqrt(a * b);
}

std::vector<int64_t> rankByPrediction(const std::vector<double>& predicted) {
    std::vector<int64_t> idx(predicted.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
        return predicted[static_cast<size_t>(a)] < predicted[static_cast<size_t>(b)];
    });
    return idx;
}

double topKSlowdown(const std::vector<double>& predicted, const std::vector<double>& truth, int k) {
    if (truth.empty() || k <= 0) return kNaN;
    const double best = *std::min_element(truth.begin(), truth.end());
    if (!(best > 0)) return kNaN;
    const auto order = rankByPrediction(predicted);
    double bestOfTop = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < order.size() && i < static_cast<size_t>(k); ++i)
        bestOfTop = std::min(bestOfTop, truth[static_cast<size_t>(order[i])]);
    return bestOfTop / best - 1.0;
}

double tileScore(const std::vector<double>& predicted, const std::vector<double>& truth, int k) {
    return 1.0 - topKSlowdown(predicted, truth, k);
}

double finiteMean(const std::vector<double>& values) {
    double sum = 0;
    int n = 0;
    for (double v : values)
        if (std::isfinite(v)) {
            sum += v;
            ++n;
        }
    return n ? sum / n : kNaN;
}

}  // namespace tpg::metrics
