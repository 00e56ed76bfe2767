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
    // -1 below every fitted x, +1 above every one, 0 within: outside, the map is clamped to its
    // end value, an upper (below) or lower (above) bound rather than an estimate.
    int side(double x) const;

private:
    std::vector<double> m_x, m_y;  // block centres (mean x) and block values, x increasing
    double m_xMin = 0, m_xMax = 0;  // the fitted data's extent
};

}  // namespace tpg::metrics
