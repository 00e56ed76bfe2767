#include "SweepChart.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QGraphicsLayout>
#include <QLegend>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

#include "AxisLabels.h"
#include "RuntimeText.h"
#include "WidgetLimits.h"

namespace tpg {

SweepChart::SweepChart(QWidget* parent) : QChartView(parent) {
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(160);
    clear(tr("Sweep a slot: the ⇅ button beside it predicts every value."));
}

void SweepChart::clear(const QString& message) {
    m_points.clear();
    auto* chart = new QChart;
    chart->setTitle(message);
    chart->legend()->hide();
    setChart(chart);
}

void SweepChart::setSweep(const QString& title, std::vector<Point> points, double startValue, double bestMeasured,
                          bool modelInNs) {
    std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.model < b.model; });
    const size_t total = points.size();
    if (points.size() > widgetlimits::kSweepMaxBars) points.resize(widgetlimits::kSweepMaxBars);
    m_points = points;
    auto* chart = new QChart;
    chart->setTitle(total > points.size() ? tr("%1 — best %2 of %3").arg(title).arg(points.size()).arg(total) : title);
    // Nanoseconds are drawn in the unit of the largest runtime shown; scores as they are.
    double largestNs = std::max(startValue, bestMeasured);
    for (const Point& p : m_points) largestNs = std::max({largestNs, p.model, p.synth});
    const RuntimeUnit unit = runtimeUnitFor(largestNs);
    const double scale = modelInNs ? 1.0 / unit.nanoseconds : 1.0;
    auto* model = new QBarSet(modelInNs ? tr("model (%1)").arg(unit.name) : tr("model (score)"));
    auto* synth = new QBarSet(tr("synthetic TPU (%1)").arg(unit.name));
    QStringList categories;
    double top = 0, bottom = std::numeric_limits<double>::infinity();
    for (const Point& p : m_points) {
        *model << p.model * scale;
        *synth << p.synth * scale;
        categories << p.label;
        top = std::max({top, p.model * scale, modelInNs ? p.synth * scale : 0.0});
        bottom = std::min({bottom, p.model * scale, modelInNs ? p.synth * scale : bottom});
    }
    auto* bars = new QBarSeries;
    bars->append(model);
    if (modelInNs) bars->append(synth);  // on one axis only when both are nanoseconds
    chart->addSeries(bars);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    x->setLabelsAngle(-60);
    x->setTruncateLabels(false);
    QFont small = x->labelsFont();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    x->setLabelsFont(small);
    auto* y = new QValueAxis;
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    bars->attachAxis(x);
    bars->attachAxis(y);
    auto reference = [&](double v, const QString& name, const QColor& color) {
        if (v < 0) return;
        v *= scale;
        auto* line = new QLineSeries;
        line->setName(name);
        line->append(-0.5, v);
        line->append(static_cast<double>(m_points.size()) - 0.5, v);
        line->setPen(QPen(color, 1.5, Qt::DashLine));
        chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
        top = std::max(top, v);
        bottom = std::min(bottom, v);
    };
    reference(startValue, tr("start"), QColor(0x33, 0x66, 0xcc));
    if (modelInNs) reference(bestMeasured, tr("best measured"), QColor(0x22, 0x99, 0x44));
    // Differences between layouts are often a few percent: start the axis near the smallest value.
    const double span = std::max(top - bottom, std::abs(top) * 1e-3);
    y->setRange(bottom - 0.15 * span, top + 0.05 * span);
    y->applyNiceNumbers();  // ticks on a round step: 2.3, 2.4, ... not 2.311, 2.406, ...
    y->setLabelFormat(tickLabelFormat(y));
    y->setTitleText(modelInNs ? unit.name : tr("score"));
    // The dock is short and wide: the legend goes beside the plot and the chart's frame is thin,
    // or the title, a legend row and the slanted labels left the bars a quarter of its height.
    chart->legend()->setVisible(true);
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->legend()->setFont(small);
    chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);  // the references as lines
    chart->setMargins(QMargins(2, 0, 2, 0));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->setBackgroundRoundness(0);
    connect(bars, &QBarSeries::clicked, this, [this](int index, QBarSet*) {
        if (index >= 0 && index < static_cast<int>(m_points.size()))
            emit candidateClicked(m_points[static_cast<size_t>(index)].candidate);
    });
    setChart(chart);
}

}  // namespace tpg
