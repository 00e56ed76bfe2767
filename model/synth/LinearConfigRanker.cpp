#include "synth/LinearConfigRanker.h"

#include <cmath>
#include <numeric>
#include <stdexcept>

namespace tpg {

std::vector<float> configRows(const TpuGraph& graph, const std::vector<int64_t>& configs) {
    const int64_t width = graph.isLayout() ? graph.numConfigurable() * graph.configFeatureWidth()
                                           : graph.configFeatureWidth();
    std::vector<float> rows(static_cast<size_t>(width) * configs.size());
    for (size_t i = 0; i < configs.size(); ++i) {
        const int64_t c = configs[i];
        if (c < 0 || c >= graph.numConfigs())
            throw std::invalid_argument("configuration index out of range");
        float* dst = rows.data() + i * static_cast<size_t>(width);
        if (graph.isLayout()) {
            if (width) graph.layoutConfigs()->read(c, 1, dst);
        } else {
            std::copy(graph.tileConfig(c), graph.tileConfig(c) + width, dst);
        }
    }
    return rows;
}

int32_t LinearConfigRanker::featureOf(int64_t column, float value) const {
    for (const auto& [v, id] : m_columns[static_cast<size_t>(column)])
        if (v == value) return id;
    return -1;
}

void LinearConfigRanker::fit(const TpuGraph& graph, const std::vector<int64_t>& train) {
    if (train.size() < 2)
        throw std::invalid_argument(
            "LinearConfigRanker: needs at least two training configurations");
    std::vector<double> y(train.size());
    for (size_t i = 0; i < train.size(); ++i) {
        const double r = graph.normalizedRuntime(train[i]);
        if (!(r > 0))
            throw std::invalid_argument(
                "LinearConfigRanker: training runtimes must be known (> 0)");
        y[i] = std::log(r);
    }
    const std::vector<float> rows = configRows(graph, train);
    const auto n = static_cast<int64_t>(train.size());
    m_width = static_cast<int64_t>(rows.size()) / n;
    const auto width = static_cast<size_t>(m_width);

    // One feature per (column, value) seen; each row activates one feature per column.
    m_columns.assign(width, {});
    int32_t features = 0;
    std::vector<int32_t> active(rows.size());
    for (int64_t i = 0; i < n; ++i)
        for (size_t c = 0; c < width; ++c) {
            const float v = rows[static_cast<size_t>(i) * width + c];
            int32_t id = featureOf(static_cast<int64_t>(c), v);
            if (id < 0) {
                id = features++;
                m_columns[c].push_back({v, id});
            }
            active[static_cast<size_t>(i) * width + c] = id;
        }
    m_means.assign(static_cast<size_t>(features), 0.0);
    for (int32_t id : active) m_means[static_cast<size_t>(id)] += 1.0 / static_cast<double>(n);
    const double yMean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(n);
    for (double& v : y) v -= yMean;

    // Centred design Xc = X - 1 mu^T. Solve (Xc^T Xc + ridge I) w = Xc^T y by CG.
    auto xc = [&](const std::vector<double>& w, std::vector<double>& out) {  // out = Xc w (n)
        const double muW = std::inner_product(m_means.begin(), m_means.end(), w.begin(), 0.0);
        for (int64_t i = 0; i < n; ++i) {
            double s = -muW;
            const int32_t* a = active.data() + static_cast<size_t>(i) * width;
            for (size_t c = 0; c < width; ++c) s += w[static_cast<size_t>(a[c])];
            out[static_cast<size_t>(i)] = s;
        }
    };
    auto xct = [&](const std::vector<double>& r, std::vector<double>& out) {  // out = Xc^T r (d)
        std::fill(out.begin(), out.end(), 0.0);
        const double sumR = std::accumulate(r.begin(), r.end(), 0.0);
        for (int64_t i = 0; i < n; ++i) {
            const int32_t* a = active.data() + static_cast<size_t>(i) * width;
            for (size_t c = 0; c < width; ++c)
                out[static_cast<size_t>(a[c])] += r[static_cast<size_t>(i)];
        }
        for (size_t f = 0; f < out.size(); ++f) out[f] -= m_means[f] * sumR;
    };
    const auto d = static_cast<size_t>(features);
    std::vector<double> w(d, 0.0), r(d), p(d), ap(d), tmp(static_cast<size_t>(n));
    xct(y, r);
    p = r;
    double rr = std::inner_product(r.begin(), r.end(), r.begin(), 0.0);
    const double stop = rr * m_options.tolerance;
    m_iterations = 0;
    for (int it = 0; it < m_options.maxIterations && rr > stop && rr > 0; ++it) {
        xc(p, tmp);
        xct(tmp, ap);
        for (size_t f = 0; f < d; ++f) ap[f] += m_options.ridge * p[f];
        const double alpha = rr / std::inner_product(p.begin(), p.end(), ap.begin(), 0.0);
        for (size_t f = 0; f < d; ++f) {
            w[f] += alpha * p[f];
            r[f] -= alpha * ap[f];
        }
        const double rrNew = std::inner_product(r.begin(), r.end(), r.begin(), 0.0);
        for (size_t f = 0; f < d; ++f) p[f] = r[f] + rrNew / rr * p[f];
        rr = rrNew;
        m_iterations = it + 1;
    }
    m_weights = std::move(w);
    m_intercept =
        yMean - std::inner_product(m_means.begin(), m_means.end(), m_weights.begin(), 0.0);
}

double LinearConfigRanker::predictRow(const float* row) const {
    double s = m_intercept;
    for (int64_t c = 0; c < m_width; ++c) {
        const int32_t id = featureOf(c, row[c]);
        if (id >= 0) s += m_weights[static_cast<size_t>(id)];
    }
    return s;
}

std::vector<double> LinearConfigRanker::predict(const TpuGraph& graph,
                                                const std::vector<int64_t>& configs) const {
    if (!fitted()) throw std::invalid_argument("LinearConfigRanker: predict before fit");
    const std::vector<float> rows = configRows(graph, configs);
    if (!configs.empty() && static_cast<int64_t>(rows.size() / configs.size()) != m_width)
        throw std::invalid_argument(
            "LinearConfigRanker: the graph's configurations differ in width from the fitted one");
    std::vector<double> out(configs.size());
    for (size_t i = 0; i < configs.size(); ++i)
        out[i] = predictRow(rows.data() + i * static_cast<size_t>(m_width));
    return out;
}

}  // namespace tpg
