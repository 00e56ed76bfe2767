#include "SweepChart.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QGraphicsLayout>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "AxisLabels.h"
#include "ChartTheme.h"
#include "CountText.h"
#include "RuntimeText.h"
#include "WidgetLimits.h"

namespace tpg {

namespace {
constexpr qreal kBarLabelAngle = -60;  // slanted: a permutation's label is wider than its bar

QString sweepHeading(const QString& title, size_t shown, size_t total, bool modelInNs,
                     int64_t clamped) {
    QString heading = total > shown
                          ? SweepChart::tr("%1 — best %2 of %3").arg(title).arg(shown).arg(total)
                          : title;
    if (modelInNs && clamped > 1)
        heading += SweepChart::tr(" · %1 faster than all measured, in the model's order")
                       .arg(countText(clamped));
    return heading;
}

// A dashed level across all bars (the current value, the best measured runtime).
void addReferenceLine(QChart* chart, QAbstractAxis* x, QAbstractAxis* y, double value, size_t bars,
                      const QString& name, const QColor& color) {
    auto* line = new QLineSeries;
    line->setName(name);
    line->append(-0.5, value);
    line->append(static_cast<double>(bars) - 0.5, value);
    line->setPen(QPen(color, 1.5, Qt::DashLine));
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
}

// Differences between layouts are often a few percent: the axis starts near the smallest value.
void setValueRange(QValueAxis* y, double bottom, double top, bool runtimes) {
    const double span = std::max(top - bottom, std::abs(top) * 1e-3);
    // No runtime is negative: a sweep spanning 0.1 to 2 ms had its axis start at -1 ms.
    const double floor = runtimes ? std::max(0.0, bottom - 0.15 * span) : bottom - 0.15 * span;
    y->setRange(floor, top + 0.05 * span);
    y->applyNiceNumbers();  // ticks on a round step: 2.3, 2.4, ... not 2.311, 2.406, ...
    y->setLabelFormat(tickLabelFormat(y));
}

// The dock is short and wide: the legend goes beside the plot and the chart's frame is thin, or
// the title, a legend row and the slanted labels left the bars a quarter of its height.
void placeLegendBeside(QChart* chart, QBarSeries* bars, const QFont& font) {
    chart->legend()->setVisible(true);
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->legend()->setFont(font);
    chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);  // the references as lines
    // A bar set's marker "from the series" is drawn hollow: model and synthetic TPU looked alike.
    for (QLegendMarker* marker : chart->legend()->markers(bars))
        marker->setShape(QLegend::MarkerShapeRectangle);
    chart->setMargins(QMargins(2, 0, 2, 0));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
}
}  // namespace

SweepChart::SweepChart(QWidget* parent) : QChartView(parent) {
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(160);
    clear(tr("Sweep a slot: the ⇅ button beside it predicts every value."));
}

void SweepChart::clear(const QString& message) {
    m_points.clear();
    auto* chart = new QChart;
    followPalette(chart, palette());
    chart->setTitle(message);
    chart->legend()->hide();
    replaceChart(chart);
}

void SweepChart::replaceChart(QChart* chart) {
    // QChartView releases the chart it showed without deleting it: one chart leaked per sweep,
    // and an edit sweeps again.
    QChart* old = this->chart();
    setChart(chart);
    delete old;
}

void SweepChart::labelBars(QChart* chart, QBarSeries* bars, const QStringList& labels,
                           const QFont& font, const QBrush& brush) {
    std::vector<QGraphicsSimpleTextItem*> items;
    for (const QString& label : labels) {
        auto* item = new QGraphicsSimpleTextItem(label, chart);
        item->setFont(font);
        item->setBrush(brush);
        item->setTransformOriginPoint(item->boundingRect().center());
        item->setRotation(kBarLabelAngle);
        items.push_back(item);
    }
    // Each centred under its bar, its slanted box just below the plot, as Qt places them.
    auto place = [chart, bars, items] {
        constexpr double kPadding = 4;
        for (size_t i = 0; i < items.size(); ++i) {
            const QPointF tick = chart->mapToPosition(QPointF(static_cast<double>(i), 0), bars);
            const QRectF box = items[i]->mapRectToParent(items[i]->boundingRect());
            const QPointF centre = items[i]->mapToParent(items[i]->boundingRect().center());
            items[i]->moveBy(tick.x() - centre.x(),
                             chart->plotArea().bottom() + kPadding - box.top());
        }
    };
    connect(chart, &QChart::plotAreaChanged, chart, place);
    place();
}

void SweepChart::setSweep(const QString& title, std::vector<Point> points, int current,
                          double bestMeasured, bool modelInNs, const QString& outsideNote) {
    if (points.empty()) {
        clear(tr("%1: no values to sweep").arg(title));
        return;
    }
    // By prediction, then score: values beyond the fit's fastest measured runtime all draw at it.
    std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
        return a.model != b.model ? a.model < b.model : a.score < b.score;
    });
    const auto clamped =
        std::count_if(points.begin(), points.end(), [](const Point& p) { return p.beyondFit < 0; });
    const auto now = std::find_if(points.begin(), points.end(),
                                  [current](const Point& p) { return p.candidate == current; });
    // A score may be negative: the current value is optional, not "< 0 means none".
    const std::optional<double> currentValue =
        now != points.end() ? std::optional(now->model) : std::nullopt;
    const QString currentName =
        now != points.end() ? tr("current (%1)").arg(now->label) : QString();
    const size_t total = points.size();
    if (points.size() > widgetlimits::kSweepMaxBars) points.resize(widgetlimits::kSweepMaxBars);
    m_points = points;
    auto* chart = new QChart;
    followPalette(chart, palette());
    const bool anyOutside =
        std::any_of(m_points.begin(), m_points.end(), [](const Point& p) { return p.outsideFile; });
    QString heading = sweepHeading(title, points.size(), total, modelInNs, clamped).toHtmlEscaped();
    if (anyOutside && !outsideNote.isEmpty())
        heading += QStringLiteral("<br><small>* %1</small>").arg(outsideNote.toHtmlEscaped());
    chart->setTitle(heading);
    // Nanoseconds are drawn in the unit of the largest runtime shown; scores as they are.
    double largestNs = std::max(currentValue.value_or(0.0), bestMeasured);
    for (const Point& p : m_points) largestNs = std::max({largestNs, p.model, p.synth});
    const RuntimeUnit unit = runtimeUnitFor(largestNs);
    const double scale = modelInNs ? 1.0 / unit.nanoseconds : 1.0;
    auto* model = new QBarSet(modelInNs ? tr("model (%1)").arg(unit.name) : tr("model (score)"));
    auto* synth = new QBarSet(tr("synthetic TPU (%1)").arg(unit.name));
    QStringList categories;
    double top = -std::numeric_limits<double>::infinity(),
           bottom = std::numeric_limits<double>::infinity();
    for (const Point& p : m_points) {
        *model << p.model * scale;
        *synth << p.synth * scale;
        categories << (p.outsideFile ? p.label + QLatin1Char('*') : p.label);
        top = std::max({top, p.model * scale, modelInNs ? p.synth * scale : top});
        bottom = std::min({bottom, p.model * scale, modelInNs ? p.synth * scale : bottom});
    }
    auto* bars = new QBarSeries;
    bars->append(model);
    if (modelInNs) bars->append(synth);  // on one axis only when both are nanoseconds
    chart->addSeries(bars);
    // Outlined in their own colour: the dark theme's white outline paled the narrow bars.
    for (QBarSet* set : bars->barSets()) set->setBorderColor(set->color());
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    x->setLabelsAngle(kBarLabelAngle);
    x->setTruncateLabels(false);
    QFont small = x->labelsFont();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    x->setLabelsFont(small);
    auto* y = new QValueAxis;
    chart->addAxis(x, Qt::AlignBottom);
    // Qt hides a slanted label whose box reaches left of the plot: always the first bar's, the
    // fastest value's. Its labels keep their room, unseen, and labelBars draws them all in the
    // theme's colour (set once the axis is in the chart).
    const QBrush labelBrush = x->labelsBrush();
    x->setLabelsColor(Qt::transparent);
    chart->addAxis(y, Qt::AlignLeft);
    bars->attachAxis(x);
    bars->attachAxis(y);
    auto reference = [&](std::optional<double> value, const QString& name, const QColor& color) {
        if (!value) return;
        const double v = *value * scale;
        addReferenceLine(chart, x, y, v, m_points.size(), name, color);
        top = std::max(top, v);
        bottom = std::min(bottom, v);
    };
    reference(currentValue, currentName, QColor(0x33, 0x66, 0xcc));
    if (modelInNs && bestMeasured >= 0)
        reference(bestMeasured, tr("best measured"), QColor(0x22, 0x99, 0x44));
    setValueRange(y, bottom, top, modelInNs);
    y->setTitleText(modelInNs ? unit.name : tr("score"));
    placeLegendBeside(chart, bars, small);
    connect(bars, &QBarSeries::clicked, this, [this](int index, QBarSet*) {
        if (index >= 0 && index < static_cast<int>(m_points.size()))
            emit candidateClicked(m_points[static_cast<size_t>(index)].candidate);
    });
    replaceChart(chart);
    labelBars(chart, bars, categories, small, labelBrush);
}

}  // namespace tpg
