#include <QtTest>

#include <cmath>
#include <random>

#include "metrics/Metrics.h"

using namespace tpg::metrics;

namespace {

// O(n^2) definitions, straight from the papers, to check the O(n log n) versions against.
double naiveOpa(const std::vector<double>& p, const std::vector<double>& t) {
    double good = 0, total = 0;
    for (size_t i = 0; i < t.size(); ++i)
        for (size_t j = 0; j < t.size(); ++j)
            if (t[i] > t[j]) {
                total += 1;
                good += p[i] > p[j] ? 1 : 0;
            }
    return good / total;
}

double naiveTauB(const std::vector<double>& p, const std::vector<double>& t) {
    double conc = 0, disc = 0, tp = 0, tt = 0, n0 = 0;
    for (size_t i = 0; i < t.size(); ++i)
        for (size_t j = i + 1; j < t.size(); ++j) {
            n0 += 1;
            const double a = p[i] - p[j], b = t[i] - t[j];
            if (a == 0) tp += 1;
            if (b == 0) tt += 1;
            if (a * b > 0) conc += 1;
            if (a * b < 0) disc += 1;
        }
    return (conc - disc) / std::sqrt((n0 - tp) * (n0 - tt));
}

}  // namespace

class TestMetrics : public QObject {
    Q_OBJECT
private slots:
    void perfectAndReversed() {
        std::vector<double> t = {1, 2, 3, 4, 5};
        std::vector<double> rev = {5, 4, 3, 2, 1};
        QCOMPARE(orderedPairAccuracy(t, t), 1.0);
        QCOMPARE(kendallTau(t, t), 1.0);
        QCOMPARE(orderedPairAccuracy(rev, t), 0.0);
        QCOMPARE(kendallTau(rev, t), -1.0);
    }
    void matchesNaiveDefinitionsWithTies() {
        std::mt19937 rng(3);
        std::uniform_int_distribution<int> small(0, 6);  // many ties on both sides
        for (int trial = 0; trial < 50; ++trial) {
            const int n = 2 + trial * 3;
            std::vector<double> p(n), t(n);
            for (int i = 0; i < n; ++i) {
                p[i] = small(rng);
                t[i] = small(rng) + (trial % 2 ? 0.5 * i : 0);
            }
            if (std::isnan(kendallTau(p, t))) continue;
            QVERIFY(std::abs(orderedPairAccuracy(p, t) - naiveOpa(p, t)) < 1e-12);
            QVERIFY(std::abs(kendallTau(p, t) - naiveTauB(p, t)) < 1e-12);
        }
    }
    void degenerateInputsAreNaN() {
        QVERIFY(std::isnan(orderedPairAccuracy({1, 2, 3}, {4, 4, 4})));
        QVERIFY(std::isnan(kendallTau({1, 1}, {1, 2})));
        QVERIFY(std::isnan(kendallTau({}, {})));
    }
    void topK() {
        std::vector<double> truth = {10, 20, 12, 30};
        std::vector<double> pred = {3, 0, 1, 2};  // ranks: 1, 2, 3, 0
        QCOMPARE(rankByPrediction(pred), (std::vector<int64_t>{1, 2, 3, 0}));
        QCOMPARE(topKSlowdown(pred, truth, 1), 1.0);   // picks 20 vs best 10
        QCOMPARE(topKSlowdown(pred, truth, 2), 0.2);   // best of {20, 12}
        QCOMPARE(topKSlowdown(pred, truth, 4), 0.0);
        QCOMPARE(tileScore(pred, truth, 2), 0.8);
        QVERIFY(std::isnan(topKSlowdown(pred, {0, 0, 0, 0}, 1)));
    }
    void scalesToAHundredThousandConfigs() {
        std::vector<double> p(100000), t(100000);
        for (int i = 0; i < 100000; ++i) {
            t[i] = i % 977;
            p[i] = (i * 7919) % 100003;
        }
        const double tau = kendallTau(p, t);  // O(n^2) would be 5e9 pairs
        QVERIFY(std::abs(tau) < 0.05);
    }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "test_metrics.moc"
