// The configuration table's filter, ranks and runtime histogram: "<1.05" is within 5% of the best
// on layout and tile files alike, runtimes need their unit, a test split filters by predictions,
// ties share a rank, the histogram counts every configuration and marks the chosen one.
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QHeaderView>
#include <QImage>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSplitter>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>
#include <QTreeView>
#include <QtTest>
#include <atomic>
#include <cstdlib>

#include "ConfigFilter.h"
#include "ConfigPanel.h"
#include "ConfigTableModel.h"
#include "FileDialogAnswer.h"
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

// A test-split copy: every runtime 0, as in the competition's test files.
TpuGraph withoutRuntimes(const TpuGraph& g) {
    return withRuntimes(g, std::vector<double>(static_cast<size_t>(g.numConfigs()), 0.0));
}

// Clicks the middle of `bin`, as a user would.
void clickBin(RuntimeHistogram* h, int bin) {
    QTest::mouseClick(h, Qt::LeftButton, {}, h->binRect(bin).center().toPoint());
}

}  // namespace

class TestConfigTable : public QObject {
    Q_OBJECT
    TpuGraph m_layout, m_tile;

    // `panel` on `graph` (the generated layout file), shown as wide as a 1366-px screen's dock.
    bool showOnALaptop(ConfigPanel& panel, const TpuGraph* graph = nullptr) const {
        panel.resize(1366, 340);
        panel.setGraph(graph ? *graph : m_layout);
        panel.show();
        return QTest::qWaitForWindowExposed(&panel);
    }

    static bool columnsFit(const QTableView& table) {
        return table.horizontalHeader()->length() <= table.viewport()->width();
    }
    static QString columnsText(const QTableView& table) {
        return QStringLiteral("columns %1 px in a %2-px table")
            .arg(table.horizontalHeader()->length())
            .arg(table.viewport()->width());
    }

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
            QCOMPARE(m.rowCount(), static_cast<int>(test.numConfigs()));
        }
    }

    void aTestSplitWithoutPredictionsRefusesRatiosAndRuntimes() {
        ConfigTableModel m;
        m.setGraph(withoutRuntimes(m_tile));
        for (const QString& text : {QStringLiteral("<1.05"), QStringLiteral("<2.5ms")}) {
            QVERIFY2(!m.setFilter(text), qPrintable(text));
            QVERIFY2(m.filterError().contains(QStringLiteral("no measured runtimes")), qPrintable(m.filterError()));
            QCOMPARE(m.rowCount(), static_cast<int>(m_tile.numConfigs()));
        }
        // A unitless runtime is refused for what it is, before whether the file could apply it.
        QVERIFY(!m.setFilter(QStringLiteral(">3000")));
        QVERIFY(m.filterError().contains(QStringLiteral("not a ratio")));
    }

    // Predictions with runtimes on a test split (a model that can turn its scores into ns): a ratio
    // is to the best predicted runtime. The built-in models cannot without measurements, so the
    // runtimes are put in by hand.
    void aTestSplitRatioIsToTheBestPredictedRuntime() {
        const TpuGraph test = withoutRuntimes(m_tile);
        JobRunner runner(QStringLiteral("model"));
        const auto real = predictedFile(runner, QStringLiteral("t.npz"), test);
        QVERIFY(real);
        auto predictions = std::make_shared<FilePredictions>(*real);
        predictions->predictedNs = m_tile.runtimes();
        ConfigTableModel m;
        m.setGraph(test);
        m.setPredictions(predictions);
        QVERIFY2(m.setFilter(QStringLiteral("<1.05")), qPrintable(m.filterError()));
        const std::vector<double>& p = predictions->predictedNs;
        const double best = *std::min_element(p.begin(), p.end());
        QCOMPARE(shown(m), expected(test, [&](int64_t c) { return p[static_cast<size_t>(c)] / best < 1.05; }));
    }

    void runtimeThresholdsNeedAUnitAndHonourIt() {
        ConfigTableModel m;
        m.setGraph(m_layout);
        std::vector<double> sorted = m_layout.runtimes();
        std::sort(sorted.begin(), sorted.end());
        const double median = sorted[sorted.size() / 2];
        const std::vector<std::pair<QString, double>> units{{QStringLiteral("ns"), 1},
                                                            {QStringLiteral("us"), 1e3},
                                                            {QStringLiteral("µs"), 1e3},
                                                            {QStringLiteral("ms"), 1e6},
                                                            {QStringLiteral("s"), 1e9}};
        for (const auto& [unit, nsPer] : units) {
            for (const QString& op : {QStringLiteral("<"), QStringLiteral("<="), QStringLiteral(">"), QStringLiteral(">=")}) {
                const QString number = QString::number(median / nsPer, 'g', 17);
                const double bound = number.toDouble() * nsPer;  // as the filter reads it
                const QString text = op + number + unit;
                QVERIFY2(m.setFilter(text), qPrintable(text + QStringLiteral(": ") + m.filterError()));
                const auto want = expected(m_layout, [&](int64_t c) {
                    const double v = m_layout.runtimes()[static_cast<size_t>(c)];
                    return op == QLatin1String("<")    ? v < bound
                           : op == QLatin1String("<=") ? v <= bound
                           : op == QLatin1String(">")  ? v > bound
                                                       : v >= bound;
                });
                QVERIFY2(shown(m) == want, qPrintable(text));
            }
        }
        // A bare number too large for a ratio is refused with how to write it, and keeps every row.
        for (const QString& bare : {QStringLiteral(">3000"), QStringLiteral("<3000")}) {
            QVERIFY(!m.setFilter(bare));
            QVERIFY2(m.filterError().contains(QStringLiteral("unit")) && m.filterError().contains(QStringLiteral("<1.05")),
                     qPrintable(m.filterError()));
            QCOMPARE(m.rowCount(), static_cast<int>(m_layout.numConfigs()));
        }
    }

    void thePanelShowsWhyAFilterIsRefusedAndHowManyRowsAreShown() {
        ConfigPanel panel;
        panel.setGraph(m_layout);
        QVERIFY(panel.filterEdit()->placeholderText().contains(QStringLiteral("<2.5ms")));
        QVERIFY(!panel.filterEdit()->placeholderText().contains(QStringLiteral(">3000")));
        panel.filterEdit()->setText(QStringLiteral(">3000"));
        const QString error = panel.model()->filterError();
        QVERIFY(!error.isEmpty());
        QVERIFY(!panel.filterEdit()->styleSheet().isEmpty());
        QCOMPARE(panel.filterEdit()->toolTip(), error);
        QVERIFY2(panel.summaryText().contains(error), qPrintable(panel.summaryText()));
        panel.filterEdit()->setText(QStringLiteral("<1.05"));
        QVERIFY(panel.filterEdit()->styleSheet().isEmpty());
        QVERIFY2(panel.summaryText().startsWith(QStringLiteral("%1 of %2 configurations shown")
                                                     .arg(panel.model()->rowCount())
                                                     .arg(m_layout.numConfigs())),
                 qPrintable(panel.summaryText()));
        // A new file starts unfiltered and unmarked.
        panel.filterEdit()->setText(QStringLiteral("fast"));
        QVERIFY(!panel.filterEdit()->styleSheet().isEmpty());
        panel.setGraph(m_tile);
        QVERIFY(panel.filterEdit()->text().isEmpty() && panel.filterEdit()->styleSheet().isEmpty());
        QVERIFY(!panel.summaryText().contains(QStringLiteral("Cannot read")));
    }

    // A file of one configuration says so in the singular ("1 configurations" was written), and
    // its agreement line does not call its measured runtime unknown.
    void oneConfigurationIsSingular() {
        ConfigPanel panel;
        const TpuGraph one = synth::makeLayoutGraph(synth::Recipe::ResNet, 3, 300, 1,
                                                    synth::LayoutSearch::Random, "one");
        panel.setGraph(one);
        QVERIFY2(
            panel.summaryText().startsWith(QStringLiteral("1 configuration · best: config 0 · ")),
            qPrintable(panel.summaryText()));
        QVERIFY2(panel.summaryText().endsWith(QStringLiteral(" configurable nodes")),
                 qPrintable(panel.summaryText()));
        JobRunner runner(QStringLiteral("model"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("one.npz"), one));
        QVERIFY2(panel.agreementText().contains(QStringLiteral("No two measured runtimes differ")),
                 qPrintable(panel.agreementText()));
        const TpuGraph unmeasured = withoutRuntimes(one);
        panel.setGraph(unmeasured);
        panel.setPredictions(predictedFile(runner, QStringLiteral("one.npz"), unmeasured));
        QVERIFY2(panel.agreementText().contains(QStringLiteral("Runtimes unknown")),
                 qPrintable(panel.agreementText()));
    }

    void aRefusalClearsWhenPredictionsArrive() {
        const TpuGraph test = withoutRuntimes(m_layout);
        ConfigPanel panel;
        panel.setGraph(test);
        panel.filterEdit()->setText(QStringLiteral("top 5"));
        QVERIFY(!panel.filterEdit()->styleSheet().isEmpty());
        JobRunner runner(QStringLiteral("model"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("t.npz"), test));
        QVERIFY(panel.model()->filterError().isEmpty());
        QVERIFY(panel.filterEdit()->styleSheet().isEmpty());
        QVERIFY2(panel.summaryText().contains(QStringLiteral(" of %1 configurations shown").arg(test.numConfigs())),
                 qPrintable(panel.summaryText()));
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
        // The Rank column shows the shared rank on each tied row.
        for (int row = 0; row < m.rowCount(); ++row)
            if (m.configAt(row) <= 2)
                QCOMPARE(m.index(row, ConfigTableModel::RankColumn).data().toString(),
                         QString::number(below + 1));
    }

    // Ranks are counts, grouped as the runtimes beside them: under the C locale a 45,000-config
    // file's ranks read 45123 beside runtimes of 479,425,847.
    void ranksAreGroupedAsCounts() {
        const TpuGraph many = synth::makeLayoutGraph(synth::Recipe::ResNet, 5, 150, 1200,
                                                     synth::LayoutSearch::Random, "many");
        ConfigTableModel m;
        m.setGraph(many);
        int64_t worst = 0;
        for (int64_t c = 0; c < many.numConfigs(); ++c)
            if (m.rank(c) > m.rank(worst)) worst = c;
        QVERIFY(m.rank(worst) >= 1000);
        QCOMPARE(m.index(m.rowOf(worst), ConfigTableModel::RankColumn).data().toString(),
                 QLocale(QLocale::English).toString(static_cast<qlonglong>(m.rank(worst))));
    }

    void tiedScoresShareAPredictedRank() {
        QCOMPARE(sharedRanks({3.0, 1.0, 1.0, 2.0, 1.0}), (std::vector<int64_t>{5, 1, 1, 4, 1}));
        // Two tile configurations with the same features score the same.
        TpuGraphData d = m_tile.data();
        const auto w = static_cast<size_t>(d.configFeatureWidth);
        std::copy_n(d.tileConfigFeatures.begin(), w, d.tileConfigFeatures.begin() + static_cast<ptrdiff_t>(w));
        const TpuGraph twin{std::move(d)};
        JobRunner runner(QStringLiteral("model"));
        const auto predictions = predictedFile(runner, QStringLiteral("twin.npz"), twin);
        QVERIFY(predictions);
        QCOMPARE(predictions->scores()[1], predictions->scores()[0]);
        ConfigTableModel m;
        m.setGraph(twin);
        m.setPredictions(predictions);
        QCOMPARE(m.index(m.rowOf(1), ConfigTableModel::PredictedRankColumn).data(),
                 m.index(m.rowOf(0), ConfigTableModel::PredictedRankColumn).data());
        // The next distinct score skips the shared places.
        const int64_t r = predictions->predictedRank[0];
        int64_t below = 0;
        for (double s : predictions->scores()) below += s < predictions->scores()[0];
        QCOMPARE(r, below + 1);
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
        QCOMPARE(h->marked(), 5);
        QCOMPARE(h->best(), panel.model()->bestConfig());
        // Too long for a narrow panel, the caption is drawn elided (it had been cut off
        // mid-figure), and whole where it fits.
        h->resize(300, h->height());
        QVERIFY2(h->shownCaption().endsWith(QChar(0x2026)) &&
                     h->shownCaption().size() < h->caption().size(),
                 qPrintable(h->shownCaption()));
        h->resize(3000, h->height());
        QCOMPARE(h->shownCaption(), h->caption());
        RuntimeHistogram many;  // counts are grouped, as in the summary below the table
        many.setRuntimes(std::vector<double>(1500, 2.0e6), false);
        QVERIFY2(many.caption().startsWith(QStringLiteral("Runtimes of 1,500 configurations")),
                 qPrintable(many.caption()));
    }

    // One runtime (or all alike) is drawn in the middle, where its markers are (its bar stood at
    // the left edge), and the caption gives it once ("60.30 us to 60.30 us" was written).
    void oneRuntimeIsDrawnUnderItsMarker() {
        RuntimeHistogram one;
        one.setRuntimes({60298.0}, false);
        QCOMPARE(one.binOf(60298.0), one.binCount() / 2);
        QCOMPARE(one.countInBin(one.binCount() / 2), int64_t{1});
        QCOMPARE(one.caption(),
                 QStringLiteral("Runtime of 1 configuration: 60.30 us · green: best, "
                                "configuration 0 (60.30 us)"));
        RuntimeHistogram alike;
        alike.setRuntimes(std::vector<double>(3, 2.0e6), false);
        QVERIFY2(
            alike.caption().startsWith(QStringLiteral("Runtimes of 3 configurations: all 2.00 ms")),
            qPrintable(alike.caption()));
    }

    // A compact strip (a short dock) draws its bars one text line tall, under no marker label:
    // where the chosen one's label stood, the tallest bars (next to the best) were hidden.
    void aCompactHistogramDrawsItsBarsUnlabelled() {
        std::vector<double> runtimes;
        for (int i = 0; i < 960; ++i)
            runtimes.push_back(1.0e6 + 1.0e3 * i);  // every bar full height
        RuntimeHistogram h;
        h.setRuntimes(runtimes, false);
        h.setMarked(1);  // beside the best, so its label would start at the plot's left edge
        h.setCompact(true);
        QVERIFY(h.height() < RuntimeHistogram::normalHeight());
        QVERIFY(h.height() >= h.fontMetrics().height());
        h.resize(480, h.height());
        QImage shot(h.size(), QImage::Format_ARGB32);
        h.render(&shot);
        // Where a label's box would cover the first bars: their colour, not the box's.
        const QRectF first = h.binRect(0);
        const QColor bar = shot.pixelColor(static_cast<int>(h.binRect(30).center().x()),
                                           static_cast<int>(first.center().y()));
        int barPixels = 0, pixels = 0;
        for (int x = static_cast<int>(first.left()); x < static_cast<int>(first.left()) + 60; ++x)
            for (int y = static_cast<int>(first.top()) + 2;
                 y < static_cast<int>(first.bottom()) - 1; ++y, ++pixels)
                barPixels += shot.pixelColor(x, y) == bar ? 1 : 0;
        QVERIFY2(barPixels * 2 > pixels,
                 qPrintable(QStringLiteral("%1 of %2 pixels of the first bars drawn")
                                .arg(barPixels)
                                .arg(pixels)));
        h.setCompact(false);
        QCOMPARE(h.height(), RuntimeHistogram::normalHeight());
    }

    // A bin holding one slow configuration beside a bin of hundreds is drawn, not left blank (it
    // drew 0.2 px high: transformer_003's slowest configurations looked absent).
    void aLoneOutlierIsDrawn() {
        std::vector<double> runtimes(999, 1.0e6);
        runtimes.push_back(2.0e6);
        RuntimeHistogram h;
        h.setRuntimes(runtimes, false);
        h.resize(480, 70);
        QImage shot(h.size(), QImage::Format_ARGB32);
        h.render(&shot);
        const int last = h.binCount() - 1;
        QCOMPARE(h.countInBin(last), int64_t{1});
        const QRectF column = h.binRect(last);
        const QColor bottom = shot.pixelColor(static_cast<int>(column.center().x()),
                                              static_cast<int>(column.bottom()) - 1);
        QVERIFY2(bottom != h.palette().color(QPalette::Base),
                 qPrintable(QStringLiteral("blank at the last bin: %1").arg(bottom.name())));
        QCOMPARE(h.countInBin(last - 1), int64_t{0});  // an empty bin stays empty
        const QRectF empty = h.binRect(last - 1);
        QCOMPARE(shot.pixelColor(static_cast<int>(empty.center().x()),
                                 static_cast<int>(empty.bottom()) - 1),
                 h.palette().color(QPalette::Base));
    }

    // Whole-nanosecond runtimes sit exactly on the edges of round bins, and the last bin holds the
    // slowest: every bin's click must show exactly the configurations it counts, on either scale.
    void everyBinClickedShowsExactlyItsCount() {
        std::vector<double> linear, spread;
        for (int64_t c = 0; c < m_layout.numConfigs(); ++c) {
            linear.push_back(1000.0 + 100.0 * static_cast<double>(c % 49));  // edges every 100 ns
            spread.push_back(std::round(1000.0 * std::pow(1.06, static_cast<double>(c))));  // > 10x: log
        }
        for (const auto& runtimes : {linear, spread}) {
            const TpuGraph g = withRuntimes(m_layout, runtimes);
            ConfigPanel panel;
            panel.setGraph(g);
            RuntimeHistogram* h = panel.histogram();
            h->resize(480, h->height());
            QCOMPARE(h->isLogScale(), runtimes == spread);
            for (int bin = 0; bin < h->binCount(); ++bin) {
                if (h->countInBin(bin) == 0) continue;
                clickBin(h, bin);
                QVERIFY2(panel.model()->filterError().isEmpty(), qPrintable(panel.model()->filterError()));
                QVERIFY2(panel.model()->rowCount() == h->countInBin(bin),
                         qPrintable(QStringLiteral("bin %1 (%2): %3 rows, %4 counted")
                                        .arg(bin)
                                        .arg(panel.filterEdit()->text())
                                        .arg(panel.model()->rowCount())
                                        .arg(h->countInBin(bin))));
            }
        }
    }

    void aTileHistogramMarksTheNormalisedBest() {
        ConfigPanel panel;
        panel.setGraph(m_tile);
        RuntimeHistogram* h = panel.histogram();
        int64_t total = 0;
        for (int b = 0; b < h->binCount(); ++b) total += h->countInBin(b);
        QCOMPARE(total, m_tile.numConfigs());
        QCOMPARE(h->best(), panel.model()->bestConfig());  // by runtime / normaliser, as the table ranks
        panel.chooseConfig(7);
        QCOMPARE(h->marked(), 7);
        QVERIFY(!h->caption().contains(QStringLiteral("Predicted")));
    }

    // The chosen configuration's row stays in view when the predictions' agreement line appears
    // above the table and shortens it (at start-up the fastest one's row ended up just below).
    void theChosenRowStaysInViewWhenPredictionsArrive() {
        ConfigPanel panel;
        panel.resize(700, 330);
        panel.setGraph(m_layout);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const int64_t chosen = m_layout.numConfigs() - 12;
        panel.chooseConfig(chosen);
        QTableView* table = panel.table();
        const auto inView = [table] {
            const QRect row = table->visualRect(table->currentIndex());
            return row.isValid() && table->viewport()->rect().contains(row);
        };
        QVERIFY(inView());
        JobRunner runner(QStringLiteral("model"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("t.npz"), m_layout));
        QVERIFY(
            QTest::qWaitFor([&] { return panel.agreementText().size() > 0 && panel.isVisible(); }));
        QTest::qWait(50);  // the layout settles
        QCOMPARE(panel.model()->configAt(table->currentIndex().row()), chosen);
        QVERIFY2(inView(), qPrintable(QStringLiteral("row at y %1, view %2 high")
                                          .arg(table->visualRect(table->currentIndex()).y())
                                          .arg(table->viewport()->height())));
    }

    // Copy Row (Ctrl+C on the table) puts the chosen row on the clipboard with the column names,
    // tab-separated and unformatted, so it pastes into a spreadsheet's columns as numbers.
    void copyRowGivesTheRowUnformatted() {
        ConfigPanel panel;
        QVERIFY(showOnALaptop(panel));
        JobRunner runner(QStringLiteral("model"));
        const auto predictions = predictedFile(runner, QStringLiteral("r.npz"), m_layout);
        panel.setPredictions(predictions);
        const int64_t chosen = 7;
        panel.chooseConfig(chosen);
        panel.table()->setFocus();
        QGuiApplication::clipboard()->clear();
        QTest::keySequence(panel.table(), QKeySequence::Copy);
        const QStringList lines =
            QGuiApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        const QStringList names = lines[0].split(QLatin1Char('\t'));
        const QStringList values = lines[1].split(QLatin1Char('\t'));
        QCOMPARE(values.size(), names.size());
        const auto value = [&](const char* name) {
            return values.value(static_cast<int>(names.indexOf(QLatin1String(name))));
        };
        QCOMPARE(value("Config"), QStringLiteral("7"));
        QVERIFY(std::abs(value("Runtime (ns)").toDouble() - m_layout.runtimes()[chosen]) < 0.5);
        QCOMPARE(value("Rank").toLongLong(), panel.model()->rank(chosen));
        QCOMPARE(value("Predicted rank").toLongLong(), predictions->predictedRank[chosen]);
        QVERIFY2(!value("vs best").contains(QLatin1Char('x')) && value("vs best").toDouble() >= 1.0,
                 qPrintable(lines[1]));
        QVERIFY2(!lines[1].contains(QLatin1Char(',')), qPrintable(lines[1]));  // no digit grouping
    }

    // Export Table as CSV writes every row shown, filtered and in the table's order.
    void exportWritesTheRowsShownInOrder() {
        ConfigPanel panel;
        QVERIFY(showOnALaptop(panel));
        panel.filterEdit()->setText(QStringLiteral("top 10"));
        panel.table()->sortByColumn(ConfigTableModel::RuntimeColumn, Qt::DescendingOrder);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("t.csv"));
        QString error;
        QVERIFY2(panel.exportTable(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines =
            QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + panel.model()->rowCount());
        QVERIFY(lines[0].startsWith(QStringLiteral("Config,Runtime (ns),")));
        double previous = std::numeric_limits<double>::infinity();
        for (int r = 1; r < lines.size(); ++r) {
            const QStringList cells = lines[r].split(QLatin1Char(','));
            QCOMPARE(cells[0].toLongLong(), panel.model()->configAt(r - 1));
            QVERIFY(cells[1].toDouble() <= previous);
            previous = cells[1].toDouble();
        }
        QVERIFY(!panel.exportTable(dir.filePath(QStringLiteral("missing/t.csv")), &error));
        QVERIFY2(error.startsWith(QStringLiteral("Could not write ")), qPrintable(error));

        // As a user does it: the menu's action, a name typed in the dialog, the file written on a
        // worker (the table changing meanwhile does not change it), the status bar told.
        QSignalSpy told(&panel, &ConfigPanel::statusMessage);
        // The exports wait behind a job that holds the panel's export worker, so the second is
        // asked for while the first is still to be written (it had cancelled the first).
        auto* worker = panel.findChild<JobRunner*>();
        QVERIFY(worker);
        std::atomic<bool> hold{true};
        worker->submit(QStringLiteral("test-hold"), [&hold](JobControl&) {
            while (hold.load()) QThread::msleep(5);
            return QVariant();
        });
        FileDialogSeen seen;
        answerNextFileDialog(dir.filePath(QStringLiteral("typed")), &seen);
        panel.exportTableAction()->trigger();
        panel.filterEdit()->clear();
        QCOMPARE(seen.offeredName, QStringLiteral("r-configurations.csv"));
        // A second export at once, of every row, to another file: both are written.
        answerNextFileDialog(dir.filePath(QStringLiteral("all")));
        panel.exportTableAction()->trigger();
        hold = false;
        QTRY_COMPARE_WITH_TIMEOUT(told.size(), 2, 10000);
        QFile typed(dir.filePath(QStringLiteral("typed.csv")));
        QVERIFY(typed.open(QIODevice::ReadOnly));
        QCOMPARE(typed.readAll().count('\n'), static_cast<qsizetype>(lines.size()));
        QFile all(dir.filePath(QStringLiteral("all.csv")));
        QVERIFY(all.open(QIODevice::ReadOnly));
        QCOMPARE(all.readAll().count('\n'), static_cast<qsizetype>(1 + m_layout.numConfigs()));
        QVERIFY2(told.first().at(0).toString().startsWith(
                     QStringLiteral("Exported 10 configurations to ")),
                 qPrintable(told.first().at(0).toString()));
    }

    // Another file opens with its table at its first rows: it had kept the last file's scroll
    // position (the rows around that file's chosen configuration, which means nothing here).
    void anotherFileOpensAtItsFirstRows() {
        ConfigPanel panel;
        QVERIFY(showOnALaptop(panel));
        QTableView* table = panel.table();
        panel.chooseConfig(m_layout.numConfigs() - 5);
        QTRY_VERIFY(table->verticalScrollBar()->value() > 0);
        const TpuGraph other = synth::makeLayoutGraph(
            synth::Recipe::Mlp, 5, 200, m_layout.numConfigs(), synth::LayoutSearch::Default, "m");
        panel.setGraph(other);
        QCOMPARE(table->verticalScrollBar()->value(), 0);
        QVERIFY(!table->currentIndex().isValid());
        // A configuration chosen in the new file is brought into view as before.
        panel.chooseConfig(other.numConfigs() - 3);
        QTRY_VERIFY(table->viewport()->rect().contains(table->visualRect(table->currentIndex())));
    }

    // On a laptop's screen the table shows every column once predictions add theirs, and the
    // chosen configuration's layouts keep the rest: the table had been cut at "Predicted ra…"
    // (a 545-px pane by Qt's 2:3 split) beside an 800-px pane of mostly empty space.
    void theTableShowsEveryColumnOnALaptopScreen() {
        ConfigPanel panel;
        QVERIFY(showOnALaptop(panel));
        JobRunner runner(QStringLiteral("model"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("t.npz"), m_layout));
        panel.chooseConfig(3);
        QTableView* table = panel.table();
        QTRY_VERIFY2(columnsFit(*table), qPrintable(columnsText(*table)));
        int shown = 0;
        for (int c = 0; c < ConfigTableModel::ColumnCount; ++c) shown += !table->isColumnHidden(c);
        QVERIFY(shown >=
                8);  // predicted runtime and rank, the synthetic TPU and violation ratio too
        auto* details = panel.findChild<QTreeView*>();
        QVERIFY(details != nullptr);
        QVERIFY2(details->width() >= 0.3 * panel.width(),
                 qPrintable(QString::number(details->width())));
        // The user's split stays: a resize gives the change to the details.
        auto* split = panel.findChild<QSplitter*>();
        QSplitterHandle* handle = split->handle(1);
        const QPoint grip = handle->rect().center();
        QTest::mousePress(handle, Qt::LeftButton, {}, grip);
        QTest::mouseMove(handle, grip - QPoint(80, 0));
        QTest::mouseRelease(handle, Qt::LeftButton, {}, grip - QPoint(80, 0));
        const int dragged = split->sizes().value(0);
        panel.resize(1300, 340);
        QTRY_COMPARE(split->sizes().value(0), dragged);
    }

    // A tile file's table has two more columns (the default runtime and the normalised one); its
    // details are 24 short name-value rows, so the table takes more of the panel and shows every
    // column: it had been cut at "Synthetic TP…" beside a details pane of mostly empty space.
    void aTileTableShowsEveryColumnOnALaptopScreen() {
        ConfigPanel panel;
        QVERIFY(showOnALaptop(panel, &m_tile));
        JobRunner runner(QStringLiteral("model"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("k.npz"), m_tile));
        panel.chooseConfig(3);
        QTableView* table = panel.table();
        QTRY_VERIFY2(columnsFit(*table), qPrintable(columnsText(*table)));
        // The details still show their names and values whole.
        auto* details = panel.findChild<QTreeView*>();
        QVERIFY(details != nullptr);
        const QAbstractItemView* view = details;  // QTreeView hides sizeHintForColumn
        const int needed = view->sizeHintForColumn(0) + view->sizeHintForColumn(1);
        QVERIFY2(details->viewport()->width() >= needed,
                 qPrintable(QStringLiteral("details %1 px for %2 px of columns")
                                .arg(details->viewport()->width())
                                .arg(needed)));
    }

    // Before predictions arrive (a 45,000-node file's take minutes) the table's four columns
    // read whole too: the table was as wide as their sum and cut "Rank" to "Ran".
    void theTableFitsBeforePredictions() {
        ConfigPanel panel;
        QVERIFY(showOnALaptop(panel));
        QTableView* table = panel.table();
        QTRY_VERIFY2(columnsFit(*table), qPrintable(columnsText(*table)));
    }

    // While a model scores the file (minutes on a 45,000-node or 100,000-configuration one) its
    // columns are shown with "…", so the table has its final width at once: it had opened four
    // columns wide (about 330 px) beside an empty pane and widened to about 850 px when the
    // predictions came. Predictions that will not come (failed, cancelled) take the columns away.
    void predictedColumnsWaitWithAPlaceholder() {
        ConfigPanel panel;
        QVERIFY(showOnALaptop(panel));
        QTableView* table = panel.table();
        const int before = table->width();
        panel.setPredictionsPending(true);
        const int predicted[] = {ConfigTableModel::PredictedColumn,
                                 ConfigTableModel::PredictedRankColumn,
                                 ConfigTableModel::SynthColumn, ConfigTableModel::ViolationColumn};
        for (int c : predicted) {
            QVERIFY(!table->isColumnHidden(c));
            QCOMPARE(panel.model()->index(0, c).data().toString(), QStringLiteral("…"));
        }
        QCOMPARE(
            panel.model()->headerData(ConfigTableModel::PredictedColumn, Qt::Horizontal).toString(),
            QStringLiteral("Predicted (ns)"));
        QTRY_VERIFY2(columnsFit(*table), qPrintable(columnsText(*table)));
        const int waiting = table->width();
        QVERIFY2(waiting > before + 200,
                 qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(waiting)));
        JobRunner runner(QStringLiteral("model"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("t.npz"), m_layout));
        QVERIFY(panel.model()->index(0, ConfigTableModel::PredictedColumn).data().toString() !=
                QStringLiteral("…"));
        QTRY_VERIFY2(columnsFit(*table), qPrintable(columnsText(*table)));
        // The width it took while waiting is about the one the numbers take.
        QVERIFY2(std::abs(table->width() - waiting) <= waiting / 10,
                 qPrintable(QStringLiteral("%1 waiting, %2 with the predictions")
                                .arg(waiting)
                                .arg(table->width())));
        panel.setPredictionsPending(false);  // predictions already here: nothing changes
        QVERIFY(!table->isColumnHidden(ConfigTableModel::PredictedColumn));

        panel.setGraph(m_layout);  // another open: no placeholders until asked for
        QVERIFY(table->isColumnHidden(ConfigTableModel::PredictedColumn));
        panel.setPredictionsPending(true);
        QVERIFY(!table->isColumnHidden(ConfigTableModel::PredictedColumn));
        panel.setPredictionsPending(false);  // failed or cancelled
        for (int c : predicted) QVERIFY(table->isColumnHidden(c));
    }

    // With no file open the histogram says so, not that a test split has no runtimes; a failed
    // open leaves the panel that way.
    void withNoFileTheHistogramSaysSo() {
        ConfigPanel panel;
        QCOMPARE(panel.histogram()->caption(), QStringLiteral("No graph open."));
        panel.setPredictions(nullptr);
        QCOMPARE(panel.histogram()->caption(), QStringLiteral("No graph open."));
        panel.setGraph(withoutRuntimes(m_tile));
        QVERIFY2(panel.histogram()->caption().contains(QStringLiteral("test split")),
                 qPrintable(panel.histogram()->caption()));
        panel.setGraph(TpuGraph());
        QCOMPARE(panel.histogram()->caption(), QStringLiteral("No graph open."));
        QCOMPARE(panel.summaryText(), QStringLiteral("No graph open."));
    }

    void aTestSplitHistogramSaysWhatItShows() {
        const TpuGraph test = withoutRuntimes(m_tile);
        ConfigPanel panel;
        panel.setGraph(test);
        RuntimeHistogram* h = panel.histogram();
        QCOMPARE(h->binCount(), 0);
        QVERIFY2(h->caption().contains(QStringLiteral("test split")), qPrintable(h->caption()));
        JobRunner runner(QStringLiteral("model"));
        const auto real = predictedFile(runner, QStringLiteral("t.npz"), test);
        QVERIFY(real);
        auto predictions = std::make_shared<FilePredictions>(*real);
        predictions->predictedNs = m_tile.runtimes();  // as a model able to predict runtimes would
        panel.chooseConfig(3);
        panel.setPredictions(predictions);
        int64_t total = 0;
        for (int b = 0; b < h->binCount(); ++b) total += h->countInBin(b);
        QCOMPARE(total, test.numConfigs());
        QVERIFY2(h->caption().startsWith(QStringLiteral("Predicted runtimes")), qPrintable(h->caption()));
        QCOMPARE(h->marked(), 3);
        panel.setPredictions(nullptr);
        QCOMPARE(h->binCount(), 0);
    }
};

QTEST_MAIN(TestConfigTable)
#include "test_config_table.moc"
