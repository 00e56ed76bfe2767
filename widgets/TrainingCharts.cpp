#include "TrainingCharts.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QCursor>
#include <QFontMetrics>
#include <QGraphicsLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QMenu>
#include <QMessageBox>
#include <QPen>
#include <QPixmap>
#include <QPushButton>
#include <QSaveFile>
#include <QScatterSeries>
#include <QSignalBlocker>
#include <QSlider>
#include <QSplitter>
#include <QTextStream>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>

#include "ChartTheme.h"
#include "CountText.h"
#include "FileKind.h"
#include "SceneExport.h"
#include "WidgetLimits.h"

namespace tpg {

namespace {

// The slider's 0..99 maps to weights 0.00..0.99: at 1 the average would never move.
constexpr int kSmoothingSteps = 99;
// About this many ticks per axis: readable in a dock a few hundred pixels wide.
constexpr double kTargetTicks = 5;
// The tick count an axis aims at, kept on the axis (vertical ones follow the chart's height).
const char* const kTargetTicksProperty = "targetTicks";
// Qt Charts lists a dynamic axis' labels by adding the tick interval to a value until it passes
// the range; an interval below the values' precision never advances, and the labels fill memory
// (a loss flat at log 2 but for one ulp did that). Ticks are never finer than this share of the
// values' magnitude.
constexpr double kMinRelativeTick = 1e-9;
// Hidden series keep a faint legend entry, still visible enough to click again.
constexpr double kHiddenMarkerAlpha = 0.25;
// Both charts' pictures and the CSV go to one folder, remembered between runs.
const QString kChartExportKey = QStringLiteral("chart-export");
// The raw loss is context for the smoothed curve, so it is drawn faint.
constexpr int kRawLossAlpha = 60;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

const QColor kLiveColor(0x1f, 0x77, 0xb4);
// Overlays take these in turn (Tableau 10 without the live run's blue).
const QColor kOverlayColors[] = {{0xff, 0x7f, 0x0e}, {0x2c, 0xa0, 0x2c}, {0xd6, 0x27, 0x28},
                                 {0x94, 0x67, 0xbd}, {0x8c, 0x56, 0x4b}, {0xe3, 0x77, 0xc2},
                                 {0x7f, 0x7f, 0x7f}, {0xbc, 0xbd, 0x22}, {0x17, 0xbe, 0xcf}};

// TensorBoard's smoothing, one value at a time, so appending never recomputes the whole curve.
class Ema {
public:
    explicit Ema(double weight = 0) : m_weight(weight) {}
    double push(double value) {
        // As TensorBoard: a NaN or infinite loss is shown as it is and does not poison the average.
        if (!std::isfinite(value)) return value;
        m_last = m_last * m_weight + (1 - m_weight) * value;
        ++m_count;
        // The average starts at 0: dividing by 1 - w^n removes that pull toward 0 early on.
        const double debias =
            m_weight >= 1 ? 1 : 1 - std::pow(m_weight, static_cast<double>(m_count));
        return m_last / debias;
    }

private:
    double m_weight;
    double m_last = 0;
    int64_t m_count = 0;
};

enum class Metric { Opa, Kendall, Slowdown1, Slowdown5, Score };

std::vector<Metric> metricsOf(Collection kind) {
    if (kind == Collection::Layout) return {Metric::Opa, Metric::Kendall};
    return {Metric::Slowdown1, Metric::Slowdown5, Metric::Score, Metric::Kendall};
}

// The figure the best epoch is marked on (the one model selection goes by: nn::isValidationGain).
Metric mainMetric(Collection kind, nn::TrainSettings::Selection selectBy) {
    if (selectBy == nn::TrainSettings::Selection::Kendall) return Metric::Kendall;
    return kind == Collection::Layout ? Metric::Kendall : Metric::Score;
}

bool isSlowdown(Metric m) {
    return m == Metric::Slowdown1 || m == Metric::Slowdown5;
}

QString metricName(Metric m) {
    switch (m) {
        case Metric::Opa:
            return QStringLiteral("OPA");
        case Metric::Kendall:
            return QStringLiteral("Kendall");
        case Metric::Slowdown1:
            return QStringLiteral("top-1 slowdown");
        case Metric::Slowdown5:
            return QStringLiteral("top-5 slowdown");
        case Metric::Score:
            return QStringLiteral("score");
    }
    return {};
}

double metricValue(Metric m, const nn::ValidationSummary& v) {
    switch (m) {
        case Metric::Opa:
            return v.opa;
        case Metric::Kendall:
            return v.kendall;
        case Metric::Slowdown1:
            return v.slowdown1;
        case Metric::Slowdown5:
            return v.slowdown5;
        case Metric::Score:
            return v.score;
    }
    return std::nan("");
}

const QString kRawLossName = QStringLiteral("loss");
const QString kSmoothedLossName = QStringLiteral("smoothed loss");
const QString kBestName = QStringLiteral("best epoch");

double targetTicksOf(const QAbstractAxis* axis) {
    const QVariant ticks = axis ? axis->property(kTargetTicksProperty) : QVariant();
    return ticks.isValid() ? ticks.toDouble() : kTargetTicks;
}

// A round tick interval (1, 2 or 5 times a power of ten) giving about `ticks` ticks over `span`.
double roundTickInterval(double span, double ticks) {
    const double raw = span / ticks;
    if (!(raw > 0) || !std::isfinite(raw)) return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double r = raw / magnitude;
    const double unit = r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10;
    return unit * magnitude;
}

// The tick interval for an axis over [lo, hi]: round, at least `minTick`, and coarse enough to
// advance at the values' magnitude (kMinRelativeTick).
double tickIntervalFor(double lo, double hi, double minTick, double ticks) {
    const double magnitude = std::max(std::abs(lo), std::abs(hi));
    const double finest = !std::isfinite(magnitude) ? 1.0
                          : magnitude > 0
                              ? roundTickInterval(magnitude * kMinRelativeTick * ticks, ticks)
                              : 0.0;
    return std::max({minTick, roundTickInterval(hi - lo, ticks), finest});
}

// Index of the value of ascending `xs` nearest to `x`; -1 when empty.
int nearestIndex(const std::vector<double>& xs, double x) {
    if (xs.empty()) return -1;
    const auto it = std::lower_bound(xs.begin(), xs.end(), x);
    auto i = static_cast<size_t>(it - xs.begin());
    if (i == xs.size() || (i > 0 && x - xs[i - 1] < xs[i] - x)) --i;
    return static_cast<int>(i);
}

// The mean of each of `buckets` runs of points: the smoothed curve is smooth already, so
// averaging loses nothing visible. All points when there are no more than `buckets`.
QList<QPointF> meanBuckets(const std::vector<double>& xs, const std::vector<double>& ys,
                           size_t buckets) {
    QList<QPointF> out;
    const size_t n = xs.size();
    if (n <= buckets) {
        out.reserve(static_cast<qsizetype>(n));
        for (size_t i = 0; i < n; ++i)
            if (std::isfinite(ys[i])) out.append({xs[i], ys[i]});
        return out;
    }
    out.reserve(static_cast<qsizetype>(buckets));
    for (size_t b = 0; b < buckets; ++b) {
        double sumX = 0, sumY = 0;
        size_t count = 0;
        for (size_t i = b * n / buckets; i < (b + 1) * n / buckets; ++i) {
            if (!std::isfinite(ys[i])) continue;
            sumX += xs[i];
            sumY += ys[i];
            ++count;
        }
        if (count > 0) out.append({sumX / count, sumY / count});
    }
    return out;
}

// The lowest and highest point of each bucket, in step order: a spike stays visible however
// many steps share its pixel. All points when there are no more than 2 * `buckets`.
QList<QPointF> minMaxBuckets(const std::vector<double>& xs, const std::vector<double>& ys,
                             size_t buckets) {
    const size_t n = xs.size();
    if (n <= 2 * buckets) return meanBuckets(xs, ys, n);
    QList<QPointF> out;
    out.reserve(static_cast<qsizetype>(buckets) * 2);
    for (size_t b = 0; b < buckets; ++b) {
        size_t lo = n, hi = n;
        for (size_t i = b * n / buckets; i < (b + 1) * n / buckets; ++i) {
            if (!std::isfinite(ys[i])) continue;
            if (lo == n || ys[i] < ys[lo]) lo = i;
            if (hi == n || ys[i] > ys[hi]) hi = i;
        }
        if (lo == n) continue;
        out.append({xs[std::min(lo, hi)], ys[std::min(lo, hi)]});
        if (lo != hi) out.append({xs[std::max(lo, hi)], ys[std::max(lo, hi)]});
    }
    return out;
}

QString csvField(const QString& text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

// Draws a legend marker faint while its series is hidden (the marker itself stays clickable).
void fadeMarker(QLegendMarker* marker, const QXYSeries* series) {
    const double alpha = series->isVisible() ? 1.0 : kHiddenMarkerAlpha;
    QColor label = series->chart()->legend()->labelColor();
    label.setAlphaF(label.alphaF() * alpha);
    marker->setLabelBrush(label);
    QColor fill = series->color();
    fill.setAlphaF(fill.alphaF() * alpha);
    marker->setBrush(fill);
    const auto* scatter = qobject_cast<const QScatterSeries*>(series);
    QColor edge = scatter ? scatter->borderColor() : series->pen().color();
    edge.setAlphaF(edge.alphaF() * alpha);
    QPen pen = marker->pen();
    pen.setColor(edge);
    marker->setPen(pen);
}

// Sets the range and its round tick interval in the order that never lays out a wide range with
// a narrow interval's labels (each label is a text item: thousands of them take seconds).
void setRangeAndTicks(QValueAxis* axis, double lo, double hi, double minTick) {
    if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo) return;  // keep the last good range
    const double tick = tickIntervalFor(lo, hi, minTick, targetTicksOf(axis));
    if (tick >= axis->tickInterval()) {
        axis->setTickInterval(tick);
        axis->setRange(lo, hi);
    } else {
        axis->setRange(lo, hi);
        axis->setTickInterval(tick);
    }
}

void removeSeries(QChart* chart, QXYSeries* series) {
    if (!series) return;
    chart->removeSeries(series);
    delete series;
}

// The extent of the points added; min > max before the first.
struct Bounds {
    double minX = kInfinity, maxX = -kInfinity, minY = kInfinity, maxY = -kInfinity;
    void add(const QPointF& p) {
        minX = std::min(minX, p.x());
        maxX = std::max(maxX, p.x());
        minY = std::min(minY, p.y());
        maxY = std::max(maxY, p.y());
    }
    bool empty() const { return minX > maxX; }
};

// The visible points of the series drawn against `valueAxis` (every series when null).
Bounds visiblePointBounds(const QChart* chart, const QAbstractAxis* valueAxis = nullptr) {
    Bounds bounds;
    for (QAbstractSeries* s : chart->series()) {
        auto* xy = qobject_cast<QXYSeries*>(s);  // attachedAxes() is not const
        if (!xy || !xy->isVisible()) continue;
        if (valueAxis && !xy->attachedAxes().contains(valueAxis)) continue;
        for (const QPointF& p : xy->points()) bounds.add(p);
    }
    return bounds;
}

// Whether a visible series is drawn against `valueAxis`, points or not.
bool drawsOn(const QChart* chart, const QAbstractAxis* valueAxis) {
    const auto series = chart->series();
    return std::any_of(series.begin(), series.end(), [valueAxis](QAbstractSeries* s) {
        return s->isVisible() && s->attachedAxes().contains(valueAxis);
    });
}

// Pads [lo, hi] by `fraction` of its span each side (of the value, or 0.05, for a single value).
std::pair<double, double> padded(double lo, double hi, double fraction) {
    const double pad = hi > lo ? (hi - lo) * fraction : std::max(std::abs(lo) * fraction, 0.05);
    return {lo - pad, hi + pad};
}

// [lo, hi] widened to the round ticks around it. Besides ending the axis on a label, this keeps
// the range unchanged while new data stays inside it: every range change redraws every curve.
// Repeated until the wider range keeps its tick: it may ask for a coarser one, whose labels
// would then fall inside the ends (0.75 to 0.95 labelled at 0.8 and 0.9 only).
std::pair<double, double> roundedOut(double lo, double hi, double minTick, double ticks) {
    if (hi <= lo) hi = lo + std::max({minTick, std::abs(lo) * 0.1, 1e-9});
    for (int round = 0; round < 8; ++round) {
        const double tick = tickIntervalFor(lo, hi, minTick, ticks);
        lo = std::floor(lo / tick + 1e-9) * tick;
        hi = std::ceil(hi / tick - 1e-9) * tick;
        if (tickIntervalFor(lo, hi, minTick, ticks) == tick) break;
    }
    return {lo, hi};
}

}  // namespace

struct TrainingCharts::Run {
    QString id;  // overlays: the caller's key
    QString name;
    Collection kind = Collection::Layout;
    nn::TrainSettings::Selection selectBy = nn::TrainSettings::Selection::Score;
    QColor color;
    bool isLive = false;
    bool visible = true;
    // Every value; the series draw a bucketed copy.
    std::vector<double> steps, losses, smoothedLosses;
    Ema ema;  // state after the last smoothed value
    double minPositiveLoss = kInfinity;
    std::vector<nn::EpochRecord> epochs;
    QLineSeries* raw = nullptr;  // the live run only: an overlay shows its smoothed curve alone
    QLineSeries* smooth = nullptr;
    std::vector<std::pair<Metric, QLineSeries*>> metrics;
    QScatterSeries* best = nullptr;

    QString prefix() const { return isLive ? QString() : name + QStringLiteral(": "); }
    void clearData(double weight) {
        steps.clear();
        losses.clear();
        smoothedLosses.clear();
        ema = Ema(weight);
        minPositiveLoss = kInfinity;
        epochs.clear();
    }
    void appendSteps(const std::vector<nn::StepRecord>& records) {
        steps.reserve(steps.size() + records.size());
        losses.reserve(losses.size() + records.size());
        smoothedLosses.reserve(smoothedLosses.size() + records.size());
        for (const nn::StepRecord& r : records) {
            steps.push_back(static_cast<double>(r.step));
            losses.push_back(r.loss);
            smoothedLosses.push_back(ema.push(r.loss));
            for (double v : {r.loss, smoothedLosses.back()})
                if (v > 0) minPositiveLoss = std::min(minPositiveLoss, v);
        }
    }
    void resmooth(double weight) {
        ema = Ema(weight);
        minPositiveLoss = kInfinity;
        for (size_t i = 0; i < losses.size(); ++i) {
            smoothedLosses[i] = ema.push(losses[i]);
            for (double v : {losses[i], smoothedLosses[i]})
                if (v > 0) minPositiveLoss = std::min(minPositiveLoss, v);
        }
    }
    // The main figure at the best model's epoch (TrainingHistory::bestEpochIndex: the last
    // improved one); none before the first, or when that figure was not measured.
    QList<QPointF> bestPoint() const {
        for (auto e = epochs.rbegin(); e != epochs.rend(); ++e) {
            if (!e->improved) continue;
            const double v = metricValue(mainMetric(kind, selectBy), e->validation);
            if (!std::isfinite(v)) return {};
            return {QPointF(e->epoch, v)};
        }
        return {};
    }
    std::vector<QXYSeries*> lossSeries() const {
        std::vector<QXYSeries*> out;
        if (raw) out.push_back(raw);
        if (smooth) out.push_back(smooth);
        return out;
    }
    std::vector<QXYSeries*> validationSeries() const {
        std::vector<QXYSeries*> out;
        for (const auto& m : metrics) out.push_back(m.second);
        if (best) out.push_back(best);
        return out;
    }
};

struct TrainingCharts::SeriesRef {
    enum class Role { None, RawLoss, SmoothedLoss, Metric, Best };
    Run* run = nullptr;
    Role role = Role::None;
};

TrainingCharts::TrainingCharts(QWidget* parent) : QWidget(parent), m_live(std::make_unique<Run>()) {
    m_live->isLive = true;
    m_live->color = kLiveColor;
    m_live->ema = Ema(m_smoothing);
    m_redrawTimer = new QTimer(this);
    m_redrawTimer->setSingleShot(true);
    connect(m_redrawTimer, &QTimer::timeout, this, [this] {
        m_sinceRedraw.start();
        redrawLoss(false);
    });

    m_lossChart = new QChart;
    followPalette(m_lossChart, palette());
    m_lossChart->setTitle(tr("Training loss"));
    m_validationChart = new QChart;
    followPalette(m_validationChart, palette());
    m_validationChart->setTitle(tr("Validation (held out)"));
    m_lossView = makeChartView(m_lossChart);
    m_validationView = makeChartView(m_validationChart);

    m_lossX = addValueAxis(m_lossChart, Qt::AlignBottom, 1, QStringLiteral("%.0f"));
    m_lossX->setTitleText(tr("step"));
    installLossYAxis();
    m_validationX = addValueAxis(m_validationChart, Qt::AlignBottom, 1, QStringLiteral("%.0f"));
    m_validationX->setTitleText(tr("epoch"));
    m_validationY = addValueAxis(m_validationChart, Qt::AlignLeft, 0, QStringLiteral("%.3g"));
    m_slowdownY = addValueAxis(m_validationChart, Qt::AlignRight, 0, QStringLiteral("%.3g"));
    m_slowdownY->setTitleText(tr("slowdown (%)"));
    m_slowdownY->setVisible(false);  // until a tile run's slowdowns are drawn

    m_chartSplit = new QSplitter(Qt::Vertical);
    m_chartSplit->addWidget(m_lossView);
    m_chartSplit->addWidget(m_validationView);
    m_chartSplit->setChildrenCollapsible(false);
    m_toolbar = makeToolbar();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_toolbar);
    layout->addWidget(m_chartSplit, 1);
    // One chart's height, whichever way they stand (resizeEvent turns them side by side when
    // short).
    setMinimumHeight(m_toolbar->sizeHint().height() + layout->spacing() +
                     widgetlimits::kChartMinHeight);

    createLossSeries(*m_live);
    createValidationSeries(*m_live);
    resetZoom();
}

TrainingCharts::~TrainingCharts() = default;

void TrainingCharts::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    const int chartsHeight = height() - m_toolbar->height() - layout()->spacing();
    const Qt::Orientation fits =
        chartsHeight >= 2 * widgetlimits::kStackedChartMinHeight + m_chartSplit->handleWidth()
            ? Qt::Vertical
            : Qt::Horizontal;
    if (fits == m_chartSplit->orientation()) return;
    m_chartSplit->setOrientation(fits);
    m_chartSplit->setSizes({1, 1});  // halves, as at first
}

Qt::Orientation TrainingCharts::chartOrientation() const {
    return m_chartSplit->orientation();
}

std::vector<double> TrainingCharts::smoothed(const std::vector<double>& values, double weight) {
    Ema ema(weight);
    std::vector<double> out;
    out.reserve(values.size());
    for (double v : values) out.push_back(ema.push(v));
    return out;
}

QWidget* TrainingCharts::makeToolbar() {
    auto* bar = new QWidget;
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(4, 2, 4, 0);
    m_smoothingSlider = new QSlider(Qt::Horizontal);
    m_smoothingSlider->setRange(0, kSmoothingSteps);
    m_smoothingSlider->setValue(static_cast<int>(std::lround(m_smoothing * 100)));
    m_smoothingSlider->setFixedWidth(110);
    m_smoothingSlider->setToolTip(tr("Weight of the running average (0 = raw values)"));
    m_smoothingLabel = new QLabel(QString::number(m_smoothing, 'f', 2));
    m_smoothingLabel->setMinimumWidth(
        m_smoothingLabel->fontMetrics().horizontalAdvance(QStringLiteral("0.00")));
    m_logScaleBox = new QCheckBox(tr("Log scale"));
    auto* reset = new QPushButton(tr("Reset zoom"));
    reset->setToolTip(tr("Drag a rectangle on a chart to zoom in; right-click zooms out"));
    auto* png = new QPushButton(tr("Export PNG…"));
    auto* pngMenu = new QMenu(png);
    pngMenu->addAction(tr("Loss chart…"), this, [this] { exportPngDialog(Loss); });
    pngMenu->addAction(tr("Validation chart…"), this, [this] { exportPngDialog(Validation); });
    png->setMenu(pngMenu);
    auto* csv = new QPushButton(tr("Export CSV…"));

    row->addWidget(new QLabel(tr("Smoothing")));
    row->addWidget(m_smoothingSlider);
    row->addWidget(m_smoothingLabel);
    row->addWidget(m_logScaleBox);
    row->addStretch(1);
    row->addWidget(reset);
    row->addWidget(png);
    row->addWidget(csv);

    connect(m_smoothingSlider, &QSlider::valueChanged, this, &TrainingCharts::onSmoothingSlider);
    connect(m_logScaleBox, &QCheckBox::toggled, this, &TrainingCharts::setLogScale);
    connect(reset, &QPushButton::clicked, this, &TrainingCharts::resetZoom);
    connect(csv, &QPushButton::clicked, this, &TrainingCharts::exportCsvDialog);
    return bar;
}

QChartView* TrainingCharts::makeChartView(QChart* chart) {
    QFont title = chart->titleFont();
    title.setBold(true);
    chart->setTitleFont(title);
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    QLegend* legend = chart->legend();
    legend->setVisible(true);
    legend->setAlignment(Qt::AlignBottom);
    legend->setMarkerShape(QLegend::MarkerShapeFromSeries);
    QFont small = legend->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    legend->setFont(small);
    auto* view = new QChartView(chart);
    view->setRenderHint(QPainter::Antialiasing);
    view->setRubberBand(QChartView::RectangleRubberBand);
    view->setMinimumHeight(widgetlimits::kChartMinHeight);
    return view;
}

QValueAxis* TrainingCharts::addValueAxis(QChart* chart, Qt::Alignment side, double minTick,
                                         const QString& labelFormat) {
    auto* axis = new QValueAxis;
    axis->setLabelFormat(labelFormat);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(0);
    QFont small = axis->labelsFont();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    axis->setLabelsFont(small);
    axis->setTitleFont(small);
    // Round ticks at any zoom: the interval follows the visible span.
    connect(axis, &QValueAxis::rangeChanged, axis, [axis, minTick](qreal lo, qreal hi) {
        axis->setTickInterval(tickIntervalFor(lo, hi, minTick, targetTicksOf(axis)));
    });
    if (side & (Qt::AlignLeft | Qt::AlignRight))
        connect(
            chart, &QChart::plotAreaChanged, axis,
            [this, chart, axis, minTick](const QRectF& plot) {
                const double ticks = std::clamp(
                    std::floor(plot.height() / widgetlimits::kMinTickSpacingPx), 2.0, kTargetTicks);
                if (ticks == targetTicksOf(axis)) return;
                axis->setProperty(kTargetTicksProperty, ticks);
                axis->setTickInterval(tickIntervalFor(axis->min(), axis->max(), minTick, ticks));
                fitAxes(chart);  // a range rounded to the new ticks (not while zoomed)
            });
    chart->addAxis(axis, side);
    return axis;
}

void TrainingCharts::installLossYAxis() {
    if (m_lossY) {
        m_lossChart->removeAxis(m_lossY);
        delete m_lossY;
    }
    if (m_logScale) {
        auto* axis = new QLogValueAxis;
        axis->setLabelFormat(QStringLiteral("%g"));
        axis->setMinorTickCount(-1);  // 2..9 within each decade
        axis->setRange(0.1, 1);       // positive before any series sees it (the caller fits it)
        QFont small = axis->labelsFont();
        small.setPointSizeF(small.pointSizeF() * 0.85);
        axis->setLabelsFont(small);
        m_lossChart->addAxis(axis, Qt::AlignLeft);
        m_lossY = axis;
    } else {
        m_lossY = addValueAxis(m_lossChart, Qt::AlignLeft, 0, QStringLiteral("%.3g"));
    }
    for (QAbstractSeries* s : m_lossChart->series()) s->attachAxis(m_lossY);
}

void TrainingCharts::attach(QChart* chart, QXYSeries* series, bool inLegend,
                            QAbstractAxis* valueAxis) {
    chart->addSeries(series);
    for (QAbstractAxis* axis : chart->axes(Qt::Horizontal)) series->attachAxis(axis);
    series->attachAxis(valueAxis ? valueAxis : chart == m_lossChart ? m_lossY : m_validationY);
    for (QLegendMarker* marker : chart->legend()->markers(series)) {
        connect(marker, &QLegendMarker::clicked, this,
                [this, marker] { onLegendMarkerClicked(marker); });
        marker->setVisible(inLegend);
    }
    connect(series, &QXYSeries::hovered, this,
            [this, series](const QPointF& at, bool entered) { onHovered(series, at, entered); });
}

void TrainingCharts::createLossSeries(Run& run) {
    if (run.isLive) {
        run.raw = new QLineSeries;
        run.raw->setName(kRawLossName);
        QColor faint = run.color;
        faint.setAlpha(kRawLossAlpha);
        run.raw->setPen(QPen(faint, 1));
        attach(m_lossChart, run.raw, true);
    }
    run.smooth = new QLineSeries;
    run.smooth->setName(run.prefix() + kSmoothedLossName);
    run.smooth->setPen(QPen(run.color, run.isLive ? 2 : 1.5));
    attach(m_lossChart, run.smooth, true);
}

void TrainingCharts::createValidationSeries(Run& run) {
    const Metric main = mainMetric(run.kind, run.selectBy);
    // Colour tells runs apart, line style the figures of one run.
    const Qt::PenStyle secondary[] = {Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
    size_t nextStyle = 0;
    for (Metric m : metricsOf(run.kind)) {
        auto* line = new QLineSeries;
        line->setName(run.prefix() + metricName(m));
        const Qt::PenStyle style =
            m == main ? Qt::SolidLine : secondary[nextStyle++ % std::size(secondary)];
        line->setPen(QPen(run.color, m == main ? 2 : 1.5, style));
        line->setMarkerSize(3);  // a radius
        attach(m_validationChart, line, true, isSlowdown(m) ? m_slowdownY : nullptr);
        run.metrics.emplace_back(m, line);
    }
    run.best = new QScatterSeries;
    run.best->setName(run.prefix() + kBestName);
    run.best->setMarkerShape(QScatterSeries::MarkerShapeStar);
    run.best->setMarkerSize(run.isLive ? 18 : 14);
    run.best->setColor(run.isLive ? QColor(0xf2, 0xb7, 0x05) : run.color.lighter(130));
    run.best->setBorderColor(run.color.darker(150));
    // One star per overlay would crowd the legend; its colour says whose it is.
    attach(m_validationChart, run.best, run.isLive);
}

void TrainingCharts::rebuildValidationSeries() {
    for (Run* run : runs()) {
        for (QXYSeries* s : run->validationSeries()) removeSeries(m_validationChart, s);
        run->metrics.clear();
        run->best = nullptr;
        createValidationSeries(*run);
        drawValidation(*run);
        applyVisibility(*run);
    }
    fitAxes(m_validationChart);
}

void TrainingCharts::deleteSeries(Run& run) {
    for (QXYSeries* s : run.lossSeries()) removeSeries(m_lossChart, s);
    for (QXYSeries* s : run.validationSeries()) removeSeries(m_validationChart, s);
    run.raw = nullptr;
    run.smooth = nullptr;
    run.metrics.clear();
    run.best = nullptr;
}

void TrainingCharts::applyVisibility(Run& run) {
    auto apply = [&](QChart* chart, QXYSeries* s) {
        s->setVisible(run.visible);
        for (QLegendMarker* marker : chart->legend()->markers(s)) {
            marker->setVisible(run.visible && (run.isLive || s != run.best));
            fadeMarker(marker, s);
        }
    };
    for (QXYSeries* s : run.lossSeries()) apply(m_lossChart, s);
    for (QXYSeries* s : run.validationSeries()) apply(m_validationChart, s);
}

// --- drawing ---------------------------------------------------------------------------------

double TrainingCharts::logFloor() const {
    // A log axis cannot show values <= 0: they are drawn at a tenth of the smallest positive
    // value, below everything else but on the chart.
    double smallest = kInfinity;
    for (const Run* run : runs()) smallest = std::min(smallest, run->minPositiveLoss);
    return std::isfinite(smallest) ? smallest / 10 : 1e-3;
}

void TrainingCharts::drawLoss(Run& run) {
    const double floor = m_logScale ? logFloor() : -kInfinity;
    auto clamped = [floor](QList<QPointF> points) {
        for (QPointF& p : points) p.setY(std::max(p.y(), floor));
        return points;
    };
    // The same buckets for both curves: two points each for the raw one, one for the smoothed
    // one (a smooth curve needs no more, and each point costs time on every redraw).
    constexpr size_t kBuckets = widgetlimits::kMaxDrawnPoints / 2;
    if (run.raw) run.raw->replace(clamped(minMaxBuckets(run.steps, run.losses, kBuckets)));
    run.smooth->replace(clamped(meanBuckets(run.steps, run.smoothedLosses, kBuckets)));
}

void TrainingCharts::drawValidation(Run& run) {
    for (const auto& [metric, series] : run.metrics) {
        QList<QPointF> points;
        points.reserve(static_cast<qsizetype>(run.epochs.size()));
        for (const nn::EpochRecord& e : run.epochs) {
            const double v = metricValue(metric, e.validation) * (isSlowdown(metric) ? 100 : 1);
            if (std::isfinite(v))
                points.append({static_cast<double>(e.epoch), v});  // NaN: not measured
        }
        series->setPointsVisible(run.epochs.size() <= widgetlimits::kMaxEpochDots);
        series->replace(points);
    }
    run.best->replace(run.bestPoint());
}

void TrainingCharts::redrawLoss(bool allRuns) {
    m_redrawTimer->stop();  // this draws the pending steps too
    const double floor = m_logScale ? logFloor() : 0;
    // A new smallest value moves the log floor, and with it every clamped point.
    if (allRuns || floor != m_drawnLogFloor) {
        for (Run* run : runs()) drawLoss(*run);
    } else {
        drawLoss(*m_live);
    }
    m_drawnLogFloor = floor;
    fitAxes(m_lossChart);
}

void TrainingCharts::fitValidationAxes() {
    m_slowdownY->setVisible(drawsOn(m_validationChart, m_slowdownY));
    // Every series is drawn against one of the two value axes.
    const Bounds left = visiblePointBounds(m_validationChart, m_validationY);
    const Bounds right = visiblePointBounds(m_validationChart, m_slowdownY);
    if (left.empty() && right.empty()) {
        setRangeAndTicks(m_validationX, 0.5, 5.5, 1);
        setRangeAndTicks(m_validationY, 0, 1, 0);
        setRangeAndTicks(m_slowdownY, 0, 1, 0);
        return;
    }
    // Half an epoch each side keeps the first and last markers whole.
    setRangeAndTicks(m_validationX, std::min(left.minX, right.minX) - 0.5,
                     std::max(left.maxX, right.maxX) + 0.5, 1);
    // Padded for the markers, then out to round ticks: a padded range alone could hold a single
    // tick (Kendall about -0.3 to 0.48 on a short chart read "0" and nothing else).
    const auto [paddedLo, paddedHi] =
        left.empty() ? std::pair{0.0, 1.0} : padded(left.minY, left.maxY, 0.08);
    const auto [lo, hi] = roundedOut(paddedLo, paddedHi, 0, targetTicksOf(m_validationY));
    setRangeAndTicks(m_validationY, lo, hi, 0);
    // From 0, the best a slowdown can be.
    setRangeAndTicks(m_slowdownY, 0, right.empty() ? 1.0 : padded(0, right.maxY, 0.08).second, 0);
}

void TrainingCharts::fitAxes(QChart* chart) {
    if (chart->isZoomed()) return;  // the user's zoom stays until Reset zoom
    if (chart == m_validationChart) {
        fitValidationAxes();
        return;
    }
    const Bounds drawn = visiblePointBounds(chart);
    // The x range is the steps' range, whichever points the buckets kept.
    double firstStep = kInfinity, lastStep = -kInfinity;
    for (const Run* run : runs()) {
        if (!run->visible || run->steps.empty()) continue;
        firstStep = std::min(firstStep, run->steps.front());
        lastStep = std::max(lastStep, run->steps.back());
    }
    if (firstStep > lastStep) {
        firstStep = 0;
        lastStep = 1;
    }
    const auto [left, right] = roundedOut(firstStep, lastStep, 1, targetTicksOf(m_lossX));
    setRangeAndTicks(m_lossX, left, right, 1);
    if (m_logScale) {
        // Whole decades, so that the axis always has labelled ticks.
        const double lo = drawn.empty() ? 0.1 : std::pow(10, std::floor(std::log10(drawn.minY)));
        double hi = drawn.empty() ? 1 : std::pow(10, std::ceil(std::log10(drawn.maxY)));
        if (hi <= lo) hi = lo * 10;
        m_lossY->setRange(lo, hi);
    } else {
        const auto [lo, hi] = drawn.empty()
                                  ? std::pair{0.0, 1.0}
                                  : roundedOut(drawn.minY, drawn.maxY, 0, targetTicksOf(m_lossY));
        setRangeAndTicks(qobject_cast<QValueAxis*>(m_lossY), lo, hi, 0);
    }
}

// --- live run --------------------------------------------------------------------------------

void TrainingCharts::startLive(const QString& name, Collection kind,
                               nn::TrainSettings::Selection selectBy) {
    m_live->name = name;
    clearLive();
    setLiveFigures(kind, selectBy);
}

void TrainingCharts::prepareLive(Collection kind, nn::TrainSettings::Selection selectBy) {
    if (liveStepCount() > 0 || liveEpochCount() > 0) return;
    setLiveFigures(kind, selectBy);
}

void TrainingCharts::setLiveFigures(Collection kind, nn::TrainSettings::Selection selectBy) {
    if (kind == m_live->kind && selectBy == m_live->selectBy) return;
    m_live->kind = kind;
    m_live->selectBy = selectBy;
    rebuildValidationSeries();
}

void TrainingCharts::clearLive() {
    m_live->clearData(m_smoothing);
    redrawLoss(false);
    drawValidation(*m_live);
    resetZoom();
}

void TrainingCharts::appendSteps(const std::vector<nn::StepRecord>& steps) {
    if (steps.empty()) return;
    m_live->appendSteps(steps);
    scheduleLiveRedraw();
}

void TrainingCharts::scheduleLiveRedraw() {
    if (m_redrawTimer->isActive()) return;  // these steps are drawn with the pending ones
    const qint64 since =
        m_sinceRedraw.isValid() ? m_sinceRedraw.elapsed() : widgetlimits::kRedrawIntervalMs;
    if (since >= widgetlimits::kRedrawIntervalMs) {
        m_sinceRedraw.start();
        redrawLoss(false);
    } else {
        m_redrawTimer->start(static_cast<int>(widgetlimits::kRedrawIntervalMs - since));
    }
}

void TrainingCharts::flushPendingRedraw() {
    if (m_redrawTimer->isActive()) redrawLoss(false);
}

void TrainingCharts::appendEpoch(const nn::EpochRecord& epoch) {
    m_live->epochs.push_back(epoch);
    drawValidation(*m_live);
    fitAxes(m_validationChart);
}

void TrainingCharts::showHistory(const QString& name, const nn::TrainingHistory& history) {
    startLive(name, history.kind, history.settings.selectBy);
    m_live->appendSteps(history.steps);
    m_live->epochs = history.epochs;
    redrawLoss(false);
    drawValidation(*m_live);
    fitAxes(m_validationChart);
}

size_t TrainingCharts::liveStepCount() const {
    return m_live->steps.size();
}
int TrainingCharts::liveEpochCount() const {
    return static_cast<int>(m_live->epochs.size());
}
QLineSeries* TrainingCharts::liveRawLoss() const {
    return m_live->raw;
}
QLineSeries* TrainingCharts::liveSmoothedLoss() const {
    return m_live->smooth;
}
QScatterSeries* TrainingCharts::liveBestMarker() const {
    return m_live->best;
}

QList<QXYSeries*> TrainingCharts::liveValidationSeries() const {
    QList<QXYSeries*> out;
    for (const auto& m : m_live->metrics) out.append(m.second);
    return out;
}

// --- overlays --------------------------------------------------------------------------------

TrainingCharts::Run* TrainingCharts::overlay(const QString& id) const {
    for (const auto& run : m_overlays)
        if (run->id == id) return run.get();
    return nullptr;
}

std::vector<TrainingCharts::Run*> TrainingCharts::runs() const {
    std::vector<Run*> out{m_live.get()};
    for (const auto& run : m_overlays) out.push_back(run.get());
    return out;
}

void TrainingCharts::setOverlay(const QString& id, const QString& name,
                                const nn::TrainingHistory& history) {
    Run* run = overlay(id);
    if (run) {
        deleteSeries(*run);
    } else {
        m_overlays.push_back(std::make_unique<Run>());
        run = m_overlays.back().get();
        run->id = id;
        const size_t colors = std::size(kOverlayColors);
        run->color = kOverlayColors[static_cast<size_t>(m_overlaysCreated++) % colors];
    }
    run->name = name;
    run->kind = history.kind;
    run->selectBy = history.settings.selectBy;
    run->clearData(m_smoothing);
    run->appendSteps(history.steps);
    run->epochs = history.epochs;
    createLossSeries(*run);
    createValidationSeries(*run);
    drawLoss(*run);
    drawValidation(*run);
    applyVisibility(*run);
    redrawLoss(false);  // the others too when its values move the log floor
    fitAxes(m_validationChart);
}

void TrainingCharts::setOverlayVisible(const QString& id, bool visible) {
    Run* run = overlay(id);
    if (!run) return;
    run->visible = visible;
    applyVisibility(*run);
    redrawLoss(false);
    fitAxes(m_validationChart);
}

void TrainingCharts::removeOverlay(const QString& id) {
    const auto it = std::find_if(m_overlays.begin(), m_overlays.end(),
                                 [&](const std::unique_ptr<Run>& run) { return run->id == id; });
    if (it == m_overlays.end()) return;
    deleteSeries(**it);
    m_overlays.erase(it);
    redrawLoss(false);
    fitAxes(m_validationChart);
}

QStringList TrainingCharts::overlayIds() const {
    QStringList ids;
    for (const auto& run : m_overlays) ids.append(run->id);
    return ids;
}

// --- view ------------------------------------------------------------------------------------

void TrainingCharts::setSmoothing(double weight) {
    const double clamped = std::clamp(weight, 0.0, kSmoothingSteps / 100.0);
    m_smoothingSlider->setValue(static_cast<int>(std::lround(clamped * 100)));
}

void TrainingCharts::onSmoothingSlider(int value) {
    m_smoothing = value / 100.0;
    m_smoothingLabel->setText(QString::number(m_smoothing, 'f', 2));
    for (Run* run : runs()) run->resmooth(m_smoothing);
    redrawLoss(true);
}

void TrainingCharts::setLogScale(bool on) {
    if (on == m_logScale) return;
    m_logScale = on;
    const QSignalBlocker block(m_logScaleBox);
    m_logScaleBox->setChecked(on);
    m_lossChart->zoomReset();  // the zoom belongs to the axis being replaced
    // A log axis must never see values <= 0: it comes after the clamped points, and goes before
    // the unclamped ones return.
    if (!on) installLossYAxis();
    m_redrawTimer->stop();
    for (Run* run : runs()) drawLoss(*run);
    m_drawnLogFloor = m_logScale ? logFloor() : 0;
    if (on) installLossYAxis();
    fitAxes(m_lossChart);
}

void TrainingCharts::resetZoom() {
    flushPendingRedraw();
    for (QChart* chart : {m_lossChart, m_validationChart}) {
        chart->zoomReset();
        fitAxes(chart);
    }
}

void TrainingCharts::onLegendMarkerClicked(QLegendMarker* marker) {
    QAbstractSeries* series = marker->series();
    series->setVisible(!series->isVisible());
    marker->setVisible(true);  // hiding a series hides its marker: keep it, to click again
    if (const auto* xy = qobject_cast<const QXYSeries*>(series)) fadeMarker(marker, xy);
    fitAxes(series->chart());
}

// --- hover -----------------------------------------------------------------------------------

QString TrainingCharts::tooltipText(const QString& xName, double x, const QString& seriesName,
                                    double y) {
    return QStringLiteral("%1 %2 \u00b7 %3 %4")
        .arg(xName, countText(std::llround(x)), seriesName, QString::number(y, 'g', 6));
}

TrainingCharts::SeriesRef TrainingCharts::findSeries(const QXYSeries* series) const {
    using Role = SeriesRef::Role;
    for (Run* run : runs()) {
        if (series == run->raw) return {run, Role::RawLoss};
        if (series == run->smooth) return {run, Role::SmoothedLoss};
        if (series == run->best) return {run, Role::Best};
        for (const auto& m : run->metrics)
            if (series == m.second) return {run, Role::Metric};
    }
    return {};
}

namespace {
// The drawn point of `series` nearest to `at` on screen (by x alone before the chart is laid out).
QPointF nearestDrawnPoint(QXYSeries* series, const QPointF& at) {
    const QList<QPointF> points = series->points();
    QChart* chart = series->chart();
    const bool laidOut = chart && !chart->plotArea().isEmpty();
    const QPointF target = laidOut ? chart->mapToPosition(at, series) : at;
    QPointF nearest = at;
    double bestDistance = kInfinity;
    for (const QPointF& p : points) {
        const QPointF d = (laidOut ? chart->mapToPosition(p, series) : p) - target;
        const double distance = laidOut ? QPointF::dotProduct(d, d) : std::abs(d.x());
        if (distance < bestDistance) {
            bestDistance = distance;
            nearest = p;
        }
    }
    return nearest;
}
}  // namespace

QString TrainingCharts::hoverText(QXYSeries* series, const QPointF& at) const {
    using Role = SeriesRef::Role;
    const SeriesRef ref = findSeries(series);
    if (ref.role == Role::None) return {};
    const Run& run = *ref.run;
    if (ref.role == Role::RawLoss || ref.role == Role::SmoothedLoss) {
        // Raw: the drawn points are real steps (a bucket's lowest and highest), so the one under
        // the cursor is taken; smoothed: drawn points are bucket means, so the nearest step.
        const double x = ref.role == Role::RawLoss ? nearestDrawnPoint(series, at).x() : at.x();
        const int i = nearestIndex(run.steps, x);
        if (i < 0) return {};
        const auto& values = ref.role == Role::RawLoss ? run.losses : run.smoothedLosses;
        return tooltipText(tr("step"), run.steps[static_cast<size_t>(i)], series->name(),
                           values[static_cast<size_t>(i)]);
    }
    if (series->count() == 0) return {};
    const QPointF p = nearestDrawnPoint(series, at);  // validation points are drawn as they are
    const bool percent = series->attachedAxes().contains(m_slowdownY);
    return tooltipText(tr("epoch"), p.x(), series->name(), p.y()) +
           (percent ? QStringLiteral("%") : QString());
}

void TrainingCharts::onHovered(QXYSeries* series, const QPointF& at, bool entered) {
    if (!entered) {
        QToolTip::hideText();
        return;
    }
    QWidget* view = series->chart() == m_lossChart ? m_lossView : m_validationView;
    QToolTip::showText(QCursor::pos(), hoverText(series, at), view);
}

// --- export ----------------------------------------------------------------------------------

bool TrainingCharts::exportPng(const QString& path, Which chart) {
    flushPendingRedraw();
    return savePngWhole((chart == Loss ? m_lossView : m_validationView)->grab().toImage(), path);
}

bool TrainingCharts::exportCsv(const QString& path) const {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
    QTextStream out(&file);
    out << "run,series,x,y\n";
    auto row = [&out](const QString& run, const QString& series, double x, double y) {
        out << run << ',' << series << ',' << static_cast<qlonglong>(std::llround(x)) << ','
            << QString::number(y, 'g', QLocale::FloatingPointShortest) << '\n';
    };
    for (const Run* run : runs()) {
        const QString name = csvField(run->name);
        for (size_t i = 0; run->raw && i < run->steps.size(); ++i)
            row(name, kRawLossName, run->steps[i], run->losses[i]);
        for (size_t i = 0; i < run->steps.size(); ++i)
            row(name, kSmoothedLossName, run->steps[i], run->smoothedLosses[i]);
        for (const auto& m : run->metrics)
            for (const nn::EpochRecord& e : run->epochs)
                if (std::isfinite(metricValue(m.first, e.validation)))
                    row(name, metricName(m.first), e.epoch, metricValue(m.first, e.validation));
        for (const QPointF& p : run->bestPoint()) row(name, kBestName, p.x(), p.y());
    }
    out.flush();
    return out.status() == QTextStream::Ok && file.commit();
}

void TrainingCharts::exportPngDialog(Which chart) {
    const QString path = chooseFileToSave(
        this, tr("Export chart"),
        {kChartExportKey, tr("PNG images (*.png)"), QStringLiteral("png")},
        chart == Loss ? QStringLiteral("training-loss.png") : QStringLiteral("validation.png"));
    if (!path.isEmpty() && !exportPng(path, chart))
        QMessageBox::warning(this, tr("Export chart"), tr("Could not write %1.").arg(path));
}

void TrainingCharts::exportCsvDialog() {
    const QString path = chooseFileToSave(
        this, tr("Export CSV"), {kChartExportKey, tr("CSV files (*.csv)"), QStringLiteral("csv")},
        QStringLiteral("training.csv"));
    if (!path.isEmpty() && !exportCsv(path))
        QMessageBox::warning(this, tr("Export CSV"), tr("Could not write %1.").arg(path));
}

}  // namespace tpg
