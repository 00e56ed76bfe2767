#include "metrics/IsotonicFit.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tpg::metrics {

IsotonicFit::IsotonicFit(const std::vector<double>& x, const std::vector<double>& y) {
    std::vector<size_t> order;
    for (size_t i = 0; i < x.size() && i < y.size(); ++i)
        if (std::isfinite(x[i]) && std::isfinite(y[i])) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
    if (!order.empty()) {
        m_xMin = x[order.front()];
        m_xMax = x[order.back()];
    }
    struct Block {
        double sumX = 0, sumY = 0, n = 0;
        double mean() const { return sumY / n; }
    };
    std::vector<Block> blocks;
    for (size_t k = 0; k < order.size(); ++k) {
        const size_t i = order[k];
        // Equal x values share one block: the map is a function of x.
        if (!blocks.empty() && k > 0 && x[order[k - 1]] == x[i]) {
            blocks.back().sumX += x[i];
            blocks.back().sumY += y[i];
            blocks.back().n += 1;
        } else {
            blocks.push_back({x[i], y[i], 1});
        }
        while (blocks.size() > 1 && blocks[blocks.size() - 2].mean() > blocks.back().mean()) {
            Block last = blocks.back();
            blocks.pop_back();
            blocks.back().sumX += last.sumX;
            blocks.back().sumY += last.sumY;
            blocks.back().n += last.n;
        }
    }
    for (const Block& b : blocks) {
        m_x.push_back(b.sumX / b.n);
        m_y.push_back(b.mean());
    }
}

int IsotonicFit::side(double x) const {
    if (m_x.empty()) return 0;
    return x < m_xMin ? -1 : x > m_xMax ? 1 : 0;
}

double IsotonicFit::operator()(double x) const {
    if (m_x.empty()) return std::nan("");
    if (x <= m_x.front()) return m_y.front();
    if (x >= m_x.back()) return m_y.back();
    const auto hi = static_cast<size_t>(std::upper_bound(m_x.begin(), m_x.end(), x) - m_x.begin());
    const size_t lo = hi - 1;
    const double t = (x - m_x[lo]) / (m_x[hi] - m_x[lo]);
    return m_y[lo] + t * (m_y[hi] - m_y[lo]);
}

}  // namespace tpg::metrics
