#pragma once

#include <vector>

namespace tpg::metrics {

// A non-decreasing map from x to y fitted by least squares (pool-adjacent-violators), evaluated
// by linear interpolation between the fitted blocks and clamped beyond them. Maps a cost model's
// scores (lower = faster) to nanoseconds on a file's measured configurations.
class IsotonicFit {
public:
    IsotonicFit() = default;
    IsotonicFit(const std::vector<double>& x, const std::vector<double>& y);

    bool empty() const { return m_x.empty(); }
    double operator()(double x) const;

private:
    std::vector<double> m_x, m_y;  // block centres (mean x) and block values, x increasing
};

}  // namespace tpg::metrics
