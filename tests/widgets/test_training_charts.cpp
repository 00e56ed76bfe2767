// The Training dock's charts (offscreen): smoothing, bucketing of long runs, validation figures
// per collection, the best-epoch marker, log scale, zoom, export, overlays, legend and tooltips.
#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPalette>
#include <QPushButton>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>
#include <cmath>
#include <limits>

#include "ChildWithText.h"
#include "FileDialogAnswer.h"
#include "SweepChart.h"
#include "TestSettings.h"
#include "TrainingCharts.h"
#include "WidgetLimits.h"

using namespace tpg;

namespace {

// A deterministic loss between 0.5 and 1.5 for step `s` (no two neighbours alike).
double wobblyLoss(int64_t s) {
    return 1.0 + 0.5 * std::sin(static_cast<double>(s) * 0.37);
}

std::vector<nn::StepRecord> stepRecords(int64_t first, int64_t count,
                                        double (*loss)(int64_t) = wobblyLoss) {
    std::vector<nn::StepRecord> out;
    for (int64_t s = first; s < first + count; ++s) {
        nn::StepRecord r;
        r.step = s;
        r.epoch = 1;
        r.loss = loss(s);
        out.push_back(r);
    }
    return out;
}

nn::EpochRecord epochRecord(int epoch, double kendall, bool improved) {
    nn::EpochRecord e;
    e.epoch = epoch;
    e.step = int64_t{epoch} * 100;
    e.improved = improved;
    e.validation.kendall = kendall;
    e.validation.opa = 0.5 + kendall / 2;
    e.validation.score = kendall;  // layout: the score is Kendall
    return e;
}

nn::EpochRecord tileEpochRecord(int epoch, double score, bool improved) {
    nn::EpochRecord e;
    e.epoch = epoch;
    e.improved = improved;
    e.validation.score = score;
    e.validation.slowdown1 = 0.3 - 0.01 * epoch;
    e.validation.slowdown5 = 0.1 - 0.005 * epoch;
    e.validation.kendall = 0.6 + 0.02 * epoch;
    return e;
}

nn::TrainingHistory history(Collection kind, int64_t steps, int epochs) {
    nn::TrainingHistory h;
    h.kind = kind;
    h.steps = stepRecords(1, steps);
    for (int e = 1; e <= epochs; ++e)
        h.epochs.push_back(kind == Collection::Layout ? epochRecord(e, 0.1 * e, e % 2 == 0)
                                                      : tileEpochRecord(e, 0.8 + 0.01 * e, e != 3));
    return h;
}

QStringList seriesNames(const QList<QXYSeries*>& series) {
    QStringList names;
    for (const QXYSeries* s : series) names << s->name();
    return names;
}

QStringList chartSeriesNames(const QChart* chart) {
    QStringList names;
    for (const QAbstractSeries* s : chart->series()) names << s->name();
    return names;
}

QXYSeries* seriesNamed(const QChart* chart, const QString& name) {
    for (QAbstractSeries* s : chart->series())
        if (s->name() == name) return qobject_cast<QXYSeries*>(s);
    return nullptr;
}

QLegendMarker* markerOf(const QChart* chart, const QString& name) {
    for (QLegendMarker* m : chart->legend()->markers())
        if (m->label() == name) return m;
    return nullptr;
}

QValueAxis* xAxis(const QChart* chart) {
    return qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).value(0));
}

// The left value axis (the validation chart's right one holds tile slowdowns).
QValueAxis* yAxis(const QChart* chart) {
    for (QAbstractAxis* a : chart->axes(Qt::Vertical))
        if (a->alignment() == Qt::AlignLeft) return qobject_cast<QValueAxis*>(a);
    return nullptr;
}

QChartView* viewOf(const TrainingCharts& charts, const QChart* chart) {
    for (QChartView* v : charts.findChildren<QChartView*>())
        if (v->chart() == chart) return v;
    return nullptr;
}

}  // namespace

class TestTrainingCharts : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { useEmptyTestSettings(QStringLiteral("test_widgets_training_charts")); }

    // Under a dark desktop palette the charts are dark too (Qt Charts had drawn light cards
    // whatever the palette); What-if's sweep too.
    void chartsFollowADarkPalette() {
        const QPalette light = QApplication::palette();
        QPalette dark = light;
        dark.setColor(QPalette::Window, QColor(0x35, 0x35, 0x35));
        dark.setColor(QPalette::WindowText, QColor(0xdc, 0xdc, 0xdc));
        QApplication::setPalette(dark);
        {
            TrainingCharts charts;
            SweepChart sweep;
            QApplication::setPalette(light);
            QCOMPARE(charts.lossChart()->theme(), QChart::ChartThemeDark);
            QCOMPARE(charts.validationChart()->theme(), QChart::ChartThemeDark);
            QCOMPARE(sweep.chart()->theme(), QChart::ChartThemeDark);
        }
        TrainingCharts charts;
        QCOMPARE(charts.lossChart()->theme(), QChart::ChartThemeLight);
    }

    void smoothingIsTensorBoardsDebiasedEma() {
        // By hand, w = 0.5: last = 0.5, 1.25, 2.625, 5.3125; debias = 0.5, 0.75, 0.875, 0.9375.
        const std::vector<double> s = TrainingCharts::smoothed({1, 2, 4, 8}, 0.5);
        QCOMPARE(s.size(), size_t{4});
        QVERIFY(qFuzzyCompare(s[0], 1.0));
        QVERIFY(qFuzzyCompare(s[1], 1.25 / 0.75));
        QVERIFY(qFuzzyCompare(s[2], 2.625 / 0.875));
        QVERIFY(qFuzzyCompare(s[3], 5.3125 / 0.9375));
        const std::vector<double> raw{3, -1, 0.25, 7};
        QCOMPARE(TrainingCharts::smoothed(raw, 0), raw);
        // A NaN is passed through and leaves the average as it was.
        const std::vector<double> withNan =
            TrainingCharts::smoothed({1, std::numeric_limits<double>::quiet_NaN(), 3}, 0.5);
        QVERIFY(std::isnan(withNan[1]));
        QVERIFY(qFuzzyCompare(withNan[2], 1.75 / 0.75));
    }

    void liveCurveIsSmoothedIncrementallyAndOnSliderChange() {
        TrainingCharts charts;
        QCOMPARE(charts.smoothing(), 0.6);
        charts.startLive(QStringLiteral("run"), Collection::Layout);
        std::vector<double> values;
        for (int batch = 0; batch < 3; ++batch) {
            const auto steps = stepRecords(1 + batch * 100, 100);
            for (const auto& r : steps) values.push_back(r.loss);
            charts.appendSteps(steps);
        }
        QCOMPARE(charts.liveStepCount(), size_t{300});
        // Batches within kRedrawIntervalMs of a redraw are drawn together, a moment later.
        QTRY_COMPARE(charts.liveSmoothedLoss()->count(), 300);
        auto compareDrawn = [&](double weight) {
            const std::vector<double> expected = TrainingCharts::smoothed(values, weight);
            const QList<QPointF> drawn = charts.liveSmoothedLoss()->points();
            QCOMPARE(drawn.size(), qsizetype{300});  // under the limit: every step is drawn
            for (int i = 0; i < 300; ++i) {
                QCOMPARE(drawn[i].x(), i + 1.0);
                QCOMPARE(drawn[i].y(), expected[static_cast<size_t>(i)]);
            }
        };
        compareDrawn(0.6);
        charts.setSmoothing(0.9);
        QCOMPARE(charts.smoothing(), 0.9);
        compareDrawn(0.9);
        charts.setSmoothing(0);
        compareDrawn(0);
        QCOMPARE(charts.liveRawLoss()->points(), charts.liveSmoothedLoss()->points());
    }

    void longRunsAreBucketedWithSpikesKept() {
        TrainingCharts charts;
        charts.resize(700, 500);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        charts.startLive(QStringLiteral("long"), Collection::Layout);
        constexpr int64_t kSteps = 50000, kBatches = 100, kSpikeStep = 31337, kDipStep = 12345;
        auto loss = [](int64_t s) {
            return s == kSpikeStep ? 100.0 : s == kDipStep ? 0.001 : wobblyLoss(s);
        };
        std::vector<std::vector<nn::StepRecord>> batches;
        for (int64_t b = 0; b < kBatches; ++b) {
            auto records = stepRecords(1 + b * (kSteps / kBatches), kSteps / kBatches);
            for (auto& r : records) r.loss = loss(r.step);
            batches.push_back(std::move(records));
        }
        QElapsedTimer timer;
        timer.start();
        qint64 slowestBatch = 0;
        for (const auto& batch : batches) {
            const qint64 before = timer.nsecsElapsed();
            charts.appendSteps(batch);
            slowestBatch = std::max(slowestBatch, timer.nsecsElapsed() - before);
        }
        const double appendMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        // The pending batches are drawn once the redraw interval has passed.
        QTRY_VERIFY(charts.liveRawLoss()->points().contains(QPointF(kSpikeStep, 100.0)));
        // One full redraw: all 50,000 steps smoothed again, both curves bucketed and replaced.
        timer.restart();
        charts.setSmoothing(0.5);
        const double redrawMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        // As the dock sees it: each batch arrives by a queued signal and is painted before the
        // next.
        TrainingCharts painted;
        painted.resize(700, 500);
        painted.show();
        QVERIFY(QTest::qWaitForWindowExposed(&painted));
        timer.restart();
        for (const auto& batch : batches) {
            painted.appendSteps(batch);
            painted.repaint();
            QCoreApplication::processEvents();
        }
        qInfo(
            "appending %lld steps in %lld batches back to back (drawn at most every %d ms): "
            "%.1f ms (slowest batch %.2f ms); with a repaint after each batch: %.1f ms; "
            "one full redraw of 50k steps: %.1f ms",
            static_cast<long long>(kSteps), static_cast<long long>(kBatches),
            widgetlimits::kRedrawIntervalMs, appendMs, static_cast<double>(slowestBatch) / 1e6,
            static_cast<double>(timer.nsecsElapsed()) / 1e6, redrawMs);

        QCOMPARE(charts.liveStepCount(), size_t{kSteps});
        const QList<QPointF> raw = charts.liveRawLoss()->points();
        const QList<QPointF> smooth = charts.liveSmoothedLoss()->points();
        QVERIFY(raw.size() <= static_cast<qsizetype>(widgetlimits::kMaxDrawnPoints));
        QVERIFY(smooth.size() <= static_cast<qsizetype>(widgetlimits::kMaxDrawnPoints));
        QVERIFY(raw.size() > static_cast<qsizetype>(widgetlimits::kMaxDrawnPoints) / 2);
        // The spike and the dip are drawn at their own steps with their own values.
        QVERIFY(raw.contains(QPointF(kSpikeStep, 100.0)));
        QVERIFY(raw.contains(QPointF(kDipStep, 0.001)));
        // The axes cover every step and the spike, ending on round ticks.
        QCOMPARE(xAxis(charts.lossChart())->min(), 0.0);
        QCOMPARE(xAxis(charts.lossChart())->max(), double(kSteps));
        auto* y = qobject_cast<QValueAxis*>(charts.lossChart()->axes(Qt::Vertical).value(0));
        QVERIFY(y && y->max() >= 100.0 && y->min() <= 0.001);
    }

    // Before Start the legend named the layout figures (OPA, Kendall) whatever the form's
    // collection; a finished run's curves must not be cleared by a change of the form.
    void theLegendPreviewsTheNextRunsFigures() {
        TrainingCharts charts;
        charts.prepareLive(Collection::Tile, nn::TrainSettings::Selection::Score);
        QCOMPARE(seriesNames(charts.liveValidationSeries()),
                 QStringList({QStringLiteral("top-1 slowdown"), QStringLiteral("top-5 slowdown"),
                              QStringLiteral("score"), QStringLiteral("Kendall")}));
        charts.prepareLive(Collection::Layout, nn::TrainSettings::Selection::Score);
        QCOMPARE(seriesNames(charts.liveValidationSeries()),
                 QStringList({QStringLiteral("OPA"), QStringLiteral("Kendall")}));
        charts.startLive(QStringLiteral("layout run"), Collection::Layout);
        charts.appendEpoch(epochRecord(1, 0.4, true));
        charts.prepareLive(Collection::Tile, nn::TrainSettings::Selection::Score);
        QCOMPARE(seriesNames(charts.liveValidationSeries()),
                 QStringList({QStringLiteral("OPA"), QStringLiteral("Kendall")}));
        QCOMPARE(charts.liveEpochCount(), 1);
    }

    void validationFiguresFollowTheCollection() {
        TrainingCharts charts;
        charts.startLive(QStringLiteral("layout run"), Collection::Layout);
        QCOMPARE(seriesNames(charts.liveValidationSeries()),
                 QStringList({QStringLiteral("OPA"), QStringLiteral("Kendall")}));
        charts.appendEpoch(epochRecord(1, 0.4, true));
        nn::EpochRecord unmeasured = epochRecord(2, 0.5, false);
        unmeasured.validation.opa = std::numeric_limits<double>::quiet_NaN();
        charts.appendEpoch(unmeasured);
        QCOMPARE(charts.liveEpochCount(), 2);
        QCOMPARE(charts.liveValidationSeries()[0]->count(), 1);  // NaN: not drawn
        QCOMPARE(charts.liveValidationSeries()[1]->points(),
                 QList<QPointF>({QPointF(1, 0.4), QPointF(2, 0.5)}));
        QVERIFY(!charts.slowdownAxis()->isVisible());  // layout has no slowdowns

        charts.startLive(QStringLiteral("tile run"), Collection::Tile);
        QCOMPARE(charts.liveEpochCount(), 0);
        QCOMPARE(seriesNames(charts.liveValidationSeries()),
                 QStringList({QStringLiteral("top-1 slowdown"), QStringLiteral("top-5 slowdown"),
                              QStringLiteral("score"), QStringLiteral("Kendall")}));
        QCOMPARE(charts.validationChart()->series().size(), 5);  // 4 figures + best marker
        charts.appendEpoch(tileEpochRecord(1, 0.81, true));
        charts.appendEpoch(tileEpochRecord(2, 0.83, true));
        // Slowdowns in percent against their own axis on the right: on the left one, beside
        // Kendall and the score, a model's few tenths of a percent drew as a flat line at 0.
        QCOMPARE(charts.liveValidationSeries()[0]->at(0), QPointF(1, 29.0));
        QCOMPARE(charts.liveValidationSeries()[1]->at(1), QPointF(2, 9.0));
        QCOMPARE(charts.liveValidationSeries()[2]->at(0), QPointF(1, 0.81));
        QValueAxis* slowdown = charts.slowdownAxis();
        QVERIFY(slowdown->isVisible());
        QCOMPARE(slowdown->alignment(), Qt::AlignRight);
        for (int i : {0, 1}) {
            QVERIFY(charts.liveValidationSeries()[i]->attachedAxes().contains(slowdown));
            QVERIFY(!charts.liveValidationSeries()[i]->attachedAxes().contains(
                yAxis(charts.validationChart())));
        }
        for (int i : {2, 3})
            QVERIFY(!charts.liveValidationSeries()[i]->attachedAxes().contains(slowdown));
        QCOMPARE(slowdown->min(), 0.0);
        QVERIFY(slowdown->max() >= 29.0 && slowdown->max() < 40.0);
        QVERIFY(yAxis(charts.validationChart())->max() <
                2.0);  // score and Kendall keep their scale
        // Hovering names the unit; hiding both slowdowns hides their axis.
        QCOMPARE(charts.hoverText(charts.liveValidationSeries()[1], QPointF(2, 9)),
                 QStringLiteral("epoch 2 \u00b7 top-5 slowdown 9%"));
        charts.liveValidationSeries()[0]->setVisible(false);
        charts.liveValidationSeries()[1]->setVisible(false);
        charts.resetZoom();
        QVERIFY(!slowdown->isVisible());
    }

    void bestEpochIsTheLastImproved() {
        TrainingCharts charts;
        charts.startLive(QStringLiteral("layout"), Collection::Layout);
        QCOMPARE(charts.liveBestMarker()->count(), 0);
        const bool improved[] = {true, false, true, true, false, false};
        for (int e = 1; e <= 6; ++e) charts.appendEpoch(epochRecord(e, 0.1 * e, improved[e - 1]));
        QCOMPARE(charts.liveBestMarker()->points(), QList<QPointF>({QPointF(4, 0.4)}));
        QCOMPARE(charts.liveBestMarker()->markerShape(), QScatterSeries::MarkerShapeStar);

        // Tile: on the score; showHistory draws a saved run the same way.
        const nn::TrainingHistory tile = history(Collection::Tile, 10, 5);  // epoch 3 not improved
        charts.showHistory(QStringLiteral("saved"), tile);
        QCOMPARE(charts.liveEpochCount(), 5);
        QCOMPARE(charts.liveStepCount(), size_t{10});
        QCOMPARE(charts.liveBestMarker()->points(), QList<QPointF>({QPointF(5, 0.85)}));

        // A run that keeps the epoch of the best Kendall marks it there, drawn solid.
        nn::TrainingHistory byKendall = tile;
        byKendall.settings.selectBy = nn::TrainSettings::Selection::Kendall;
        charts.showHistory(QStringLiteral("by Kendall"), byKendall);
        QCOMPARE(charts.liveBestMarker()->points(), QList<QPointF>({QPointF(5, 0.7)}));
        const QList<QXYSeries*> figures = charts.liveValidationSeries();
        QCOMPARE(figures.back()->name(), QStringLiteral("Kendall"));
        QCOMPARE(figures.back()->pen().style(), Qt::SolidLine);
        QCOMPARE(figures[2]->pen().style(), Qt::DashDotLine);  // the score, now a secondary figure
    }

    void logScaleSwapsTheAxisAndClampsZero() {
        TrainingCharts charts;
        charts.startLive(QStringLiteral("run"), Collection::Layout);
        charts.setSmoothing(0);
        charts.appendSteps(stepRecords(1, 10, [](int64_t s) { return s == 5 ? 0.0 : 0.5 * s; }));
        auto yType = [&] { return charts.lossChart()->axes(Qt::Vertical).value(0)->type(); };
        QCOMPARE(charts.lossChart()->axes(Qt::Vertical).size(), 1);
        QCOMPARE(yType(), QAbstractAxis::AxisTypeValue);
        QCOMPARE(charts.liveRawLoss()->at(4).y(), 0.0);

        charts.setLogScale(true);
        QVERIFY(charts.logScale());
        QCOMPARE(charts.lossChart()->axes(Qt::Vertical).size(), 1);
        QCOMPARE(yType(), QAbstractAxis::AxisTypeLogValue);
        QVERIFY(charts.findChild<QCheckBox*>()->isChecked());
        // 0 cannot be drawn on a log axis: it sits at a tenth of the smallest positive value.
        QCOMPARE(charts.liveRawLoss()->at(4).y(), 0.05);
        for (QAbstractSeries* s : charts.lossChart()->series())
            QCOMPARE(s->attachedAxes().size(), 2);
        const QAbstractAxis* y = charts.lossChart()->axes(Qt::Vertical).value(0);
        QVERIFY(y->property("min").toDouble() <= 0.05 && y->property("max").toDouble() >= 5.0);

        charts.findChild<QCheckBox*>()->setChecked(false);  // the toolbar toggles it too
        QVERIFY(!charts.logScale());
        QCOMPARE(yType(), QAbstractAxis::AxisTypeValue);
        QCOMPARE(charts.liveRawLoss()->at(4).y(), 0.0);
    }

    void resetZoomRefitsTheData() {
        TrainingCharts charts;
        charts.resize(700, 500);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        charts.startLive(QStringLiteral("run"), Collection::Layout);
        charts.appendSteps(stepRecords(1, 1000));
        QTest::qWait(20);
        QChart* chart = charts.lossChart();
        // Steps 1..1000 on round ticks (every 200).
        QCOMPARE(xAxis(chart)->min(), 0.0);
        QCOMPARE(xAxis(chart)->max(), 1000.0);
        const QRectF plot = chart->plotArea();
        QVERIFY(!plot.isEmpty());
        chart->zoomIn(QRectF(plot.center(), plot.size() / 4));
        QVERIFY(chart->isZoomed());
        const double zoomedMin = xAxis(chart)->min(), zoomedMax = xAxis(chart)->max();
        QVERIFY(zoomedMin > 1.0 && zoomedMax < 1000.0);
        // New data does not undo the user's zoom...
        charts.appendSteps(stepRecords(1001, 500));
        QCOMPARE(xAxis(chart)->min(), zoomedMin);
        QCOMPARE(xAxis(chart)->max(), zoomedMax);
        // ...Reset zoom does, and fits what arrived meanwhile.
        charts.resetZoom();
        QVERIFY(!chart->isZoomed());
        QCOMPARE(xAxis(chart)->min(), 0.0);
        QCOMPARE(xAxis(chart)->max(), 1600.0);  // 1..1500, ticks every 200

        QChart* validation = charts.validationChart();
        for (int e = 1; e <= 4; ++e) charts.appendEpoch(epochRecord(e, 0.2 * e, true));
        validation->zoom(3);
        QVERIFY(xAxis(validation)->max() - xAxis(validation)->min() < 2);
        charts.resetZoom();
        QCOMPARE(xAxis(validation)->min(), 0.5);
        QCOMPARE(xAxis(validation)->max(), 4.5);
    }

    void exportsCsvWithEveryValue() {
        TrainingCharts charts;
        charts.setSmoothing(0);
        nn::TrainingHistory live = history(Collection::Layout, 20, 4);
        live.steps[6].loss = 0.125;  // step 7
        charts.showHistory(QStringLiteral("current, v2"), live);
        charts.setOverlay(QStringLiteral("a"), QStringLiteral("earlier"),
                          history(Collection::Layout, 30, 2));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("training.csv"));
        QVERIFY(charts.exportCsv(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines =
            QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), QStringLiteral("run,series,x,y"));
        // Live: 20 raw + 20 smoothed + 2 figures x 4 epochs + best; overlay: 30 + 2 x 2 + best.
        QCOMPARE(lines.size(), 1 + (20 + 20 + 8 + 1) + (30 + 4 + 1));
        QVERIFY(lines.contains(QStringLiteral("\"current, v2\",loss,7,0.125")));
        QVERIFY(lines.contains(QStringLiteral("\"current, v2\",Kendall,3,0.30000000000000004")));
        QVERIFY(lines.contains(QStringLiteral("\"current, v2\",best epoch,4,0.4")));
        QVERIFY(lines.contains(QStringLiteral("earlier,best epoch,2,0.2")));
        // Overlays have no raw series.
        QVERIFY(lines.filter(QStringLiteral("earlier,loss,")).isEmpty());
        QCOMPARE(lines.filter(QStringLiteral("earlier,smoothed loss,")).size(), 30);
        QVERIFY(!charts.exportCsv(dir.filePath(QStringLiteral("missing/dir/training.csv"))));
        // The button's dialog adds the suffix to a bare name (it wrote "mine").
        QPushButton* button = childWithText<QPushButton>(charts, QStringLiteral("Export CSV…"));
        QVERIFY(button);
        FileDialogSeen seen;
        answerNextFileDialog(dir.filePath(QStringLiteral("mine")), &seen);
        button->click();
        QCOMPARE(seen.offeredName, QStringLiteral("training.csv"));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("mine.csv"))).size() > 0);
    }

    void exportsPngAtTheViewsSize() {
        TrainingCharts charts;
        charts.resize(700, 500);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        charts.showHistory(QStringLiteral("run"), history(Collection::Layout, 300, 5));
        QTemporaryDir dir;
        for (auto which : {TrainingCharts::Loss, TrainingCharts::Validation}) {
            const QString path =
                dir.filePath(QStringLiteral("chart%1.png").arg(static_cast<int>(which)));
            QVERIFY(charts.exportPng(path, which));
            QVERIFY(QFileInfo(path).size() > 0);
            const QImage image(path);
            QVERIFY(!image.isNull());
            const QChart* chart =
                which == TrainingCharts::Loss ? charts.lossChart() : charts.validationChart();
            QCOMPARE(image.size(), viewOf(charts, chart)->size());
        }
        QVERIFY(!charts.exportPng(dir.filePath(QStringLiteral("missing/dir/a.png")),
                                  TrainingCharts::Loss));
    }

    void overlaysAreAddedHiddenAndRemoved() {
        TrainingCharts charts;
        charts.resize(900, 700);  // the legend shows only the markers that fit
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        charts.startLive(QStringLiteral("now"), Collection::Layout);
        const int lossSeries = static_cast<int>(charts.lossChart()->series().size());
        const int validationSeries = static_cast<int>(charts.validationChart()->series().size());
        QCOMPARE(lossSeries, 2);        // raw + smoothed
        QCOMPARE(validationSeries, 3);  // OPA, Kendall, best

        charts.setOverlay(QStringLiteral("id-a"), QStringLiteral("run-a"),
                          history(Collection::Layout, 500, 4));
        charts.setOverlay(QStringLiteral("id-b"), QStringLiteral("run-b"),
                          history(Collection::Tile, 200, 3));
        QCOMPARE(charts.overlayIds(),
                 QStringList({QStringLiteral("id-a"), QStringLiteral("id-b")}));
        QCOMPARE(charts.lossChart()->series().size(), lossSeries + 2);  // smoothed only
        QCOMPARE(charts.validationChart()->series().size(), validationSeries + 3 + 5);
        QXYSeries* aLoss = seriesNamed(charts.lossChart(), QStringLiteral("run-a: smoothed loss"));
        QXYSeries* aKendall =
            seriesNamed(charts.validationChart(), QStringLiteral("run-a: Kendall"));
        QXYSeries* bScore = seriesNamed(charts.validationChart(), QStringLiteral("run-b: score"));
        QVERIFY(aLoss && aKendall && bScore);
        QCOMPARE(aKendall->count(), 4);
        // A colour per run, the same in both charts.
        QCOMPARE(aLoss->color(), aKendall->color());
        QVERIFY(aLoss->color() != charts.liveSmoothedLoss()->color());
        QVERIFY(aLoss->color() != bScore->color());
        // In the legend by name (laid out on the next pass of the event loop).
        QCoreApplication::processEvents();
        QVERIFY(charts.lossChart()->legend()->isVisible());
        QVERIFY(markerOf(charts.lossChart(), QStringLiteral("run-a: smoothed loss"))->isVisible());
        QVERIFY(markerOf(charts.validationChart(), QStringLiteral("run-b: score"))->isVisible());
        // The x axis takes in the longer overlay.
        QCOMPARE(xAxis(charts.lossChart())->max(), 500.0);

        charts.setOverlayVisible(QStringLiteral("id-a"), false);
        QCoreApplication::processEvents();
        QVERIFY(!aLoss->isVisible() && !aKendall->isVisible());
        QVERIFY(!markerOf(charts.lossChart(), QStringLiteral("run-a: smoothed loss"))->isVisible());
        QCOMPARE(xAxis(charts.lossChart())->max(), 200.0);  // fitted to what is shown
        charts.setOverlayVisible(QStringLiteral("id-a"), true);
        QVERIFY(aLoss->isVisible() && aKendall->isVisible());

        // Replacing keeps one set of series and the run's colour.
        const QColor aColor = aLoss->color();
        charts.setOverlay(QStringLiteral("id-a"), QStringLiteral("run-a2"),
                          history(Collection::Layout, 100, 2));
        QCOMPARE(charts.overlayIds().size(), 2);
        QCOMPARE(charts.lossChart()->series().size(), lossSeries + 2);
        QXYSeries* a2 = seriesNamed(charts.lossChart(), QStringLiteral("run-a2: smoothed loss"));
        QVERIFY(a2);
        QCOMPARE(a2->color(), aColor);

        charts.removeOverlay(QStringLiteral("id-a"));
        charts.removeOverlay(QStringLiteral("id-b"));
        QVERIFY(charts.overlayIds().isEmpty());
        QCOMPARE(charts.lossChart()->series().size(), lossSeries);
        QCOMPARE(charts.validationChart()->series().size(), validationSeries);
        // startLive keeps overlays.
        charts.setOverlay(QStringLiteral("c"), QStringLiteral("run-c"),
                          history(Collection::Layout, 50, 2));
        charts.startLive(QStringLiteral("next"), Collection::Tile);
        QCOMPARE(charts.overlayIds(), QStringList{QStringLiteral("c")});
        QVERIFY(chartSeriesNames(charts.validationChart()).contains(QStringLiteral("run-c: OPA")));
        QVERIFY(seriesNamed(charts.lossChart(), QStringLiteral("run-c: smoothed loss"))->count() >
                0);
    }

    void clickingALegendMarkerTogglesItsSeries() {
        TrainingCharts charts;
        charts.resize(700, 500);  // the legend shows only the markers that fit
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        charts.showHistory(QStringLiteral("run"), history(Collection::Layout, 50, 3));
        QLegendMarker* marker = markerOf(charts.validationChart(), QStringLiteral("Kendall"));
        QVERIFY(marker);
        QXYSeries* kendall = charts.liveValidationSeries()[1];
        QCOMPARE(marker->series(), static_cast<QAbstractSeries*>(kendall));
        const QColor shownLabel = marker->labelBrush().color();
        emit marker->clicked();
        QVERIFY(!kendall->isVisible());
        QVERIFY(marker->isVisible());  // still there to click again, but faint
        QVERIFY(marker->labelBrush().color().alphaF() < shownLabel.alphaF());
        emit marker->clicked();
        QVERIFY(kendall->isVisible());
        QCOMPARE(marker->labelBrush().color().alphaF(), shownLabel.alphaF());
    }

    // A loss flat at log 2 but for one ulp (a run whose first scores are all equal) gave the axis a
    // tick interval below the values' precision: Qt Charts then listed labels without end, froze
    // the window and took all memory. The axes are checked before any layout runs.
    void aFlatLossStillGetsTicksThatAdvance() {
        const double flat = 0.6929565668106078, next = std::nextafter(flat, 1.0);
        const auto advances = [](const QValueAxis* axis) {
            return axis && axis->min() + axis->tickInterval() > axis->min() &&
                   (axis->max() - axis->min()) / axis->tickInterval() <= 100;
        };
        TrainingCharts charts;
        nn::TrainingHistory h;
        h.kind = Collection::Layout;
        h.steps = stepRecords(1, 6, [](int64_t s) {
            return s % 2 ? 0.6929565668106078 : std::nextafter(0.6929565668106078, 1.0);
        });
        h.epochs.push_back(epochRecord(1, 0.25, true));
        charts.showHistory(QStringLiteral("flat"), h);
        auto* lossY = qobject_cast<QValueAxis*>(charts.lossChart()->axes(Qt::Vertical).value(0));
        QVERIFY2(advances(lossY), qPrintable(QStringLiteral("%1 to %2 by %3")
                                                 .arg(lossY->min(), 0, 'g', 17)
                                                 .arg(lossY->max(), 0, 'g', 17)
                                                 .arg(lossY->tickInterval(), 0, 'g', 17)));
        QVERIFY(lossY->min() <= flat && lossY->max() >= next);
        // A rubber-band zoom down to one ulp: the interval follows the range, as coarse.
        lossY->setRange(flat, next);
        QVERIFY(advances(lossY));
        auto* validationY =
            qobject_cast<QValueAxis*>(charts.validationChart()->axes(Qt::Vertical).value(0));
        validationY->setRange(0.25, std::nextafter(0.25, 1.0));
        QVERIFY(advances(validationY));
    }

    // A short chart (the dock on a laptop's screen) gets fewer ticks: with the tall chart's five,
    // Qt Charts elided every value label to "...". A tall one keeps its five.
    void valueAxesTickByTheChartsHeight() {
        const auto ticks = [](const QValueAxis* axis) {
            return (axis->max() - axis->min()) / axis->tickInterval();
        };
        TrainingCharts charts;
        nn::TrainingHistory h;
        h.kind = Collection::Layout;
        h.steps = stepRecords(1, 200);
        for (int e = 1; e <= 8; ++e) h.epochs.push_back(epochRecord(e, 0.1 * e, e == 8));
        charts.showHistory(QStringLiteral("run"), h);
        charts.resize(900, 200);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        for (QChart* chart : {charts.lossChart(), charts.validationChart()}) {
            auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).value(0));
            const double most = std::max(2.0, std::floor(chart->plotArea().height() / 28));
            QTRY_VERIFY2(ticks(y) <= most + 1e-9, qPrintable(QStringLiteral("%1 ticks on %2 px")
                                                                 .arg(ticks(y))
                                                                 .arg(chart->plotArea().height())));
        }
        charts.resize(900, 900);
        for (QChart* chart : {charts.lossChart(), charts.validationChart()}) {
            auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).value(0));
            QTRY_VERIFY2(ticks(y) >= 4, qPrintable(QStringLiteral("%1 ticks on %2 px")
                                                       .arg(ticks(y))
                                                       .arg(chart->plotArea().height())));
        }
    }

    // Short, the charts stand side by side; tall enough for two readable charts, one above the
    // other. Stacked, the Training tab needed more height than the tabs beside it, and raising it
    // grew the docks (the tab row moved from under the mouse).
    void shortChartsStandSideBySide() {
        TrainingCharts charts;
        charts.resize(1000, 300);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        QVERIFY(charts.minimumHeight() < 2 * widgetlimits::kChartMinHeight);
        const auto onCharts =
            [&charts](QChart* chart) {  // the chart's view, in the widget's coordinates
                const QWidget* view = chart->scene()->views().value(0);
                return QRect(view->mapTo(&charts, QPoint(0, 0)), view->size());
            };
        for (const int height : {300, 700, 300}) {
            charts.resize(1000, height);
            const Qt::Orientation expected = height == 700 ? Qt::Vertical : Qt::Horizontal;
            QTRY_COMPARE(charts.chartOrientation(), expected);
            const QRect loss = onCharts(charts.lossChart());
            const QRect validation = onCharts(charts.validationChart());
            const int least = height == 700 ? widgetlimits::kStackedChartMinHeight
                                            : widgetlimits::kChartMinHeight;
            for (const QRect& r : {loss, validation})
                QVERIFY2(r.height() >= least && r.bottom() < charts.height(),
                         qPrintable(
                             QStringLiteral("%1 px tall, to %2").arg(r.height()).arg(r.bottom())));
            if (expected == Qt::Horizontal)
                QVERIFY(loss.top() == validation.top() && loss.right() < validation.left());
            else
                QVERIFY(loss.left() == validation.left() && loss.bottom() < validation.top());
        }
    }

    // The validation axis ends on labelled ticks on a short chart: a padded range alone could
    // hold one tick, and a run whose Kendall stayed below 0 (the sample's unseen graph) read "0"
    // and nothing else.
    void validationAxisEndsOnLabels() {
        const std::vector<std::pair<double, double>> kendalls{
            {-0.25, 0.05}, {0.785, 0.01}, {0.45, 0.35}};
        for (const auto& [centre, swing] : kendalls) {
            TrainingCharts charts;
            nn::TrainingHistory h;
            h.kind = Collection::Layout;
            h.steps = stepRecords(1, 200);
            for (int e = 1; e <= 29; ++e)
                h.epochs.push_back(epochRecord(e, centre + swing * std::sin(e), e == 1));
            charts.showHistory(QStringLiteral("run"), h);
            charts.resize(980, 370);  // the Training dock on a 1366 x 768 screen
            charts.show();
            QVERIFY(QTest::qWaitForWindowExposed(&charts));
            const QValueAxis* y = yAxis(charts.validationChart());
            const auto labelled = [y] {
                const double first = std::ceil(y->min() / y->tickInterval() - 1e-9);
                const double last = std::floor(y->max() / y->tickInterval() + 1e-9);
                return static_cast<int>(last - first) + 1;
            };
            const auto onTick = [y](double v) {
                const double k = v / y->tickInterval();
                return std::abs(k - std::round(k)) < 1e-6;
            };
            QTRY_VERIFY2(labelled() >= 2 && onTick(y->min()) && onTick(y->max()),
                         qPrintable(QStringLiteral("Kendall about %1: %2 to %3 by %4")
                                        .arg(centre)
                                        .arg(y->min())
                                        .arg(y->max())
                                        .arg(y->tickInterval())));
            for (const QPointF& p :
                 seriesNamed(charts.validationChart(), QStringLiteral("Kendall"))->points())
                QVERIFY(p.y() > y->min() && p.y() < y->max());
        }
    }

    void hoverShowsTheNearestExactValue() {
        QCOMPARE(TrainingCharts::tooltipText(QStringLiteral("step"), 1234, QStringLiteral("loss"),
                                             0.04213),
                 QStringLiteral("step 1,234 \u00b7 loss 0.04213"));
        QCOMPARE(TrainingCharts::tooltipText(QStringLiteral("epoch"), 5, QStringLiteral("Kendall"),
                                             0.8123),
                 QStringLiteral("epoch 5 \u00b7 Kendall 0.8123"));

        TrainingCharts charts;
        charts.resize(700, 500);
        charts.show();
        QVERIFY(QTest::qWaitForWindowExposed(&charts));
        nn::TrainingHistory h = history(Collection::Layout, 3000, 6);
        h.steps[1233].loss = 0.04213;             // step 1,234
        h.epochs[4].validation.kendall = 0.8123;  // epoch 5
        charts.showHistory(QStringLiteral("run"), h);
        QTest::qWait(20);
        QVERIFY(!charts.lossChart()->plotArea().isEmpty());

        // Raw: the drawn point under the cursor (a bucket keeps the dip), its exact value.
        QCOMPARE(charts.hoverText(charts.liveRawLoss(), QPointF(1234.4, 0.05)),
                 QStringLiteral("step 1,234 \u00b7 loss 0.04213"));
        // Smoothed: the nearest step's smoothed value, not a bucket mean.
        std::vector<double> losses;
        for (const auto& r : h.steps) losses.push_back(r.loss);
        const double smoothed = TrainingCharts::smoothed(losses, charts.smoothing())[2000];
        QCOMPARE(charts.hoverText(charts.liveSmoothedLoss(), QPointF(2000.8, 1.0)),
                 TrainingCharts::tooltipText(QStringLiteral("step"), 2001,
                                             QStringLiteral("smoothed loss"), smoothed));
        QCOMPARE(charts.hoverText(charts.liveValidationSeries()[1], QPointF(5.2, 0.7)),
                 QStringLiteral("epoch 5 \u00b7 Kendall 0.8123"));
        QCOMPARE(charts.hoverText(charts.liveBestMarker(), QPointF(6, 0.6)),
                 QStringLiteral("epoch 6 \u00b7 best epoch 0.6"));

        charts.setOverlay(QStringLiteral("o"), QStringLiteral("old"),
                          history(Collection::Layout, 40, 2));
        QXYSeries* old = seriesNamed(charts.lossChart(), QStringLiteral("old: smoothed loss"));
        QVERIFY(charts.hoverText(old, QPointF(10, 1))
                    .startsWith(QStringLiteral("step 10 \u00b7 old: smoothed loss ")));
    }
};

QTEST_MAIN(TestTrainingCharts)
#include "test_training_charts.moc"
