// The configuration table's filter, ranks and runtime histogram: "<1.05" is within 5% of the best
// on layout and tile files alike, runtimes need their unit, a test split filters by predictions,
// ties share a rank, the histogram counts every configuration and marks the chosen one.
#include <QLineEdit>
#include <QSignalSpy>
#include <QtTest>

#include "ConfigFilter.h"
#include "ConfigPanel.h"
#include "ConfigTableModel.h"
#include "JobRunner.h"
#include "PredictedFile.h"
#include "RuntimeHistogram.h"
#include "synth/SyntheticDataset.h"

using namespace tpg;

namespace {

// The configurations a model shows, in id order.
std::vector<int64_t> shown(const ConfigTableModel& m) {
    std::vector<int64_t> out;
    for (int r = 0; r < m.rowCount(); ++r) out.push_back(m.configAt(r));
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<int64_t> expected(const TpuGraph& g, const std::function<bool(int64_t)>& keep) {
    std::vector<int64_t> out;
    for (int64_t c = 0; c < g.numConfigs(); ++c)
        if (keep(c)) out.push_back(c);
    return out;
}

TpuGraph withRuntimes(const TpuGraph& g, std::vector<double> runtimes) {
    TpuGraphData d = g.data();
    d.runtimes = std::move(runtimes);
    return TpuGraph(std::move(d));
}

}  // namespace

class TestConfigTable : public QObject {
    Q_OBJECT
    TpuGraph m_layout, m_tile;

private slots:
    void initTestCase() {
        m_layout = synth::makeLayoutGraph(synth::Recipe::ResNet, 3, 300, 80, synth::LayoutSearch::Random, "r");
        m_tile = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 60, "k");
    }

    void filterTextIsReadOrRefusedWithAReason() {
        QVERIFY(ConfigFilter::parse(QString()).isEmpty());
        QVERIFY(ConfigFilter::parse(QStringLiteral("#12")).accepts(12, 0, 0, 0));
        QVERIFY(!ConfigFilter::parse(QStringLiteral("12")).accepts(13, 0, 0, 0));
        const ConfigFilter top = ConfigFilter::parse(QStringLiteral("top 3"));
        QVERIFY(top.accepts(0, 0, 0, 3) && !top.accepts(0, 0, 0, 4) && top.needsRanks() && !top.needsRuntimes());
        const ConfigFilter ratio = ConfigFilter::parse(QStringLiteral("<1.05"));
        QVERIFY(ratio.accepts(0, 1e9, 1.04, 9) && !ratio.accepts(0, 1, 1.05, 1));
        for (const auto& [text, ns] : std::vector<std::pair<QString, double>>{
                 {QStringLiteral("<2.5ms"), 2.5e6}, {QStringLiteral("< 300 us"), 3e5}, {QStringLiteral("<300µs"), 3e5},
                 {QStringLiteral("<1200ns"), 1200}, {QStringLiteral("<1s"), 1e9}}) {
            const ConfigFilter f = ConfigFilter::parse(text);
            QVERIFY2(f.error().isEmpty(), qPrintable(text));
            QVERIFY(f.accepts(0, ns * 0.99, 99, 99) && !f.accepts(0, ns, 0, 0));
        }
        const ConfigFilter range = ConfigFilter::parse(QStringLiteral(">=2.1ms <2.3ms"));
        QVERIFY(range.accepts(0, 2.1e6, 0, 0) && range.accepts(0, 2.2e6, 0, 0) && !range.accepts(0, 2.3e6, 0, 0));
        const ConfigFilter bare = ConfigFilter::parse(QStringLiteral(">3000"));
        QVERIFY2(bare.error().contains(QStringLiteral("not a ratio")) && bare.error().contains(QStringLiteral(">3000ns")),
                 qPrintable(bare.error()));
        QVERIFY(!ConfigFilter::parse(QStringLiteral("fast")).error().isEmpty());
    }

    void withinFivePercentOnEveryKindOfFile() {
        for (const TpuGraph* g : {&m_layout, &m_tile}) {
            ConfigTableModel m;
            m.setGraph(*g);
            QVERIFY(m.setFilter(QStringLiteral("<1.05")));
            double best = 1e300;
            for (int64_t c = 0; c < g->numConfigs(); ++c) best = std::min(best, g->normalizedRuntime(c));
            const auto want = expected(*g, [&](int64_t c) { return g->normalizedRuntime(c) / best < 1.05; });
            QVERIFY(!want.empty() && want.size() < static_cast<size_t>(g->numConfigs()));
            QCOMPARE(shown(m), want);
        }
        // A runtime threshold with its unit, on the raw runtimes.
        ConfigTableModel m;
        m.setGraph(m_layout);
        std::vector<double> sorted = m_layout.runtimes();
        std::sort(sorted.begin(), sorted.end());
        const double median = sorted[sorted.size() / 2];
        QVERIFY(m.setFilter(QStringLiteral("<%1us").arg(median / 1e3, 0, 'f', 3)));
        QCOMPARE(shown(m), expected(m_layout, [&](int64_t c) { return m_layout.runtimes()[static_cast<size_t>(c)] < median; }));
        QVERIFY(!m.setFilter(QStringLiteral(">3000")));
        QCOMPARE(m.rowCount(), static_cast<int>(m_layout.numConfigs()));  // refused: every row kept
    }

    void aTestSplitFiltersByItsPredictions() {
        const TpuGraph test = withRuntimes(m_layout, std::vector<double>(static_cast<size_t>(m_layout.numConfigs()), 0.0));
        QVERIFY(!test.runtimesKnown());
        ConfigTableModel m;
        m.setGraph(test);
        QVERIFY(m.setFilter(QStringLiteral("7")));  // ids need no runtimes
        QVERIFY(!m.setFilter(QStringLiteral("top 5")));
        QVERIFY(m.filterError().contains(QStringLiteral("test split")));
        JobRunner runner(QStringLiteral("model"));
        const auto predictions = predictedFile(runner, QStringLiteral("t.npz"), test);
        QVERIFY(predictions && !predictions->predictedRank.empty());
        m.setPredictions(predictions);  // the typed filter applies now, by the model's ranks
        QVERIFY(m.filterError().isEmpty());
        QVERIFY(m.rowCount() >= 5);
        for (int r = 0; r < m.rowCount(); ++r) QVERIFY(predictions->predictedRank[static_cast<size_t>(m.configAt(r))] <= 5);
        // No measured runtimes to turn scores into runtimes: a ratio says why it cannot apply.
        if (predictions->predictedNs.empty()) {
            QVERIFY(!m.setFilter(QStringLiteral("<1.05")));
            QVERIFY(m.filterError().contains(QStringLiteral("no ratio or runtime")));
        }
    }

    void tiedRuntimesShareARank() {
        std::vector<double> r = m_layout.runtimes();
        r[1] = r[0];
        r[2] = r[0];
        const TpuGraph tied = withRuntimes(m_layout, r);
        ConfigTableModel m;
        m.setGraph(tied);
        QCOMPARE(m.rank(1), m.rank(0));
        QCOMPARE(m.rank(2), m.rank(0));
        int64_t below = 0;
        for (double v : r) below += v < r[0];
        QCOMPARE(m.rank(0), below + 1);
        QVERIFY(m.setFilter(QStringLiteral("top %1").arg(below + 1)));
        QCOMPARE(m.rowCount(), static_cast<int>(below + 3));  // the tie comes in whole
    }

    void theHistogramCountsEveryConfigurationAndMarksTheChosenOne() {
        ConfigPanel panel;
        panel.setGraph(m_layout);
        RuntimeHistogram* h = panel.histogram();
        int64_t total = 0;
        for (int b = 0; b < h->binCount(); ++b) total += h->countInBin(b);
        QCOMPARE(total, m_layout.numConfigs());
        panel.chooseConfig(5);
        QVERIFY2(h->caption().contains(QStringLiteral("configuration 5")), qPrintable(h->caption()));
        // A bin clicked filters the table to it.
        const int bin = h->binOf(m_layout.runtimes()[5]);
        QVERIFY(bin >= 0);
        QSignalSpy clicked(h, &RuntimeHistogram::binClicked);
        h->resize(480, h->height());
        const QRectF plot(4, 2, h->width() - 8, h->height() - 18);
        QTest::mouseClick(h, Qt::LeftButton, {},
                          QPoint(static_cast<int>(plot.left() + (bin + 0.5) * plot.width() / h->binCount()), 20));
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(panel.model()->rowCount(), static_cast<int>(h->countInBin(bin)));
        QVERIFY2(panel.summaryText().contains(QStringLiteral("of %1 configurations shown").arg(m_layout.numConfigs())),
                 qPrintable(panel.summaryText()));
    }
};

QTEST_MAIN(TestConfigTable)
#include "test_config_table.moc"
