#include "RuntimeHistogram.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "explain/CostExplanation.h"

namespace tpg {

namespace {

constexpr int kBins = 48;             // fine enough to see modes, coarse enough to read counts
constexpr int kHeight = 72;           // a strip above the table
constexpr double kLogSpan = 10;       // above this max / min the x axis is logarithmic
constexpr int kCaptionHeight = 14;
const QColor kBarColor(0x90, 0xa4, 0xae);
const QColor kBestColor(0x2e, 0x7d, 0x32);
const QColor kMarkColor(0xe6, 0x5c, 0x00);

QString ns(double v) { return QString::fromStdString(explain::nsText(v)); }

}  // namespace

RuntimeHistogram::RuntimeHistogram(QWidget* parent) : QWidget(parent) {
    setFixedHeight(kHeight);
    setMouseTracking(true);
    setCursor(Qt::PointingHandCursor);
}

void RuntimeHistogram::setRuntimes(const std::vector<double>& values, bool predicted) {
    m_values.clear();
    m_counts.clear();
    m_best = -1;
    m_predicted = predicted;
    for (double v : values)
        if (v > 0 && std::isfinite(v)) m_values.push_back(v);
    if (m_values.size() != values.size() || m_values.empty()) m_values.clear();  // unknown runtimes
    if (!m_values.empty()) {
        const auto [lo, hi] = std::minmax_element(m_values.begin(), m_values.end());
        m_min = *lo;
        m_max = *hi;
        m_best = lo - m_values.begin();
        m_log = m_max / m_min > kLogSpan;
        m_counts.assign(kBins, 0);
        for (double v : m_values) ++m_counts[static_cast<size_t>(std::max(0, binOf(v)))];
    }
    update();
}

void RuntimeHistogram::setMarked(int64_t config) {
    m_marked = config;
    update();
}

double RuntimeHistogram::edge(int i) const {
    const double f = static_cast<double>(i) / kBins;
    return m_log ? m_min * std::pow(m_max / m_min, f) : m_min + (m_max - m_min) * f;
}

int RuntimeHistogram::binOf(double v) const {
    if (m_counts.empty() || v < m_min || v > m_max) return -1;
    if (m_max <= m_min) return 0;
    const double f = m_log ? std::log(v / m_min) / std::log(m_max / m_min) : (v - m_min) / (m_max - m_min);
    return std::clamp(static_cast<int>(f * kBins), 0, kBins - 1);
}

QRectF RuntimeHistogram::plotRect() const {
    return QRectF(4, 2, width() - 8, height() - kCaptionHeight - 4);
}

int RuntimeHistogram::binAt(double x) const {
    const QRectF r = plotRect();
    if (m_counts.empty() || x < r.left() || x > r.right()) return -1;
    return std::clamp(static_cast<int>((x - r.left()) / r.width() * kBins), 0, kBins - 1);
}

QString RuntimeHistogram::caption() const {
    if (m_counts.empty()) return tr("No runtimes to show");
    QString text = tr("%1 of %2 configurations: %3 to %4%5")
                       .arg(m_predicted ? tr("Predicted runtimes") : tr("Runtimes"))
                       .arg(m_values.size())
                       .arg(ns(m_min), ns(m_max), m_log ? tr(" (log scale)") : QString());
    text += tr(" · green: best");
    if (m_marked >= 0 && static_cast<size_t>(m_marked) < m_values.size())
        text += tr(" · orange: configuration %1 (%2)").arg(m_marked).arg(ns(m_values[static_cast<size_t>(m_marked)]));
    return text;
}

void RuntimeHistogram::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRectF r = plotRect();
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(4, height() - kCaptionHeight, width() - 8, kCaptionHeight), Qt::AlignLeft | Qt::AlignVCenter,
               caption());
    if (m_counts.empty()) return;
    const double tallest = static_cast<double>(*std::max_element(m_counts.begin(), m_counts.end()));
    const double w = r.width() / kBins;
    for (int i = 0; i < kBins; ++i) {
        const double h = r.height() * static_cast<double>(m_counts[static_cast<size_t>(i)]) / tallest;
        p.fillRect(QRectF(r.left() + i * w + 0.5, r.bottom() - h, w - 1, h), kBarColor);
    }
    auto mark = [&](int64_t config, const QColor& colour) {
        if (config < 0 || static_cast<size_t>(config) >= m_values.size()) return;
        const double v = m_values[static_cast<size_t>(config)];
        const double f = m_max <= m_min ? 0.5
                         : m_log        ? std::log(v / m_min) / std::log(m_max / m_min)
                                        : (v - m_min) / (m_max - m_min);
        p.setPen(QPen(colour, 2));
        p.drawLine(QPointF(r.left() + f * r.width(), r.top()), QPointF(r.left() + f * r.width(), r.bottom()));
    };
    mark(m_best, kBestColor);
    mark(m_marked, kMarkColor);
}

void RuntimeHistogram::mouseMoveEvent(QMouseEvent* event) {
    const int bin = binAt(event->position().x());
    if (bin < 0) return;
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("%1 – %2: %3; click to filter the table")
                           .arg(ns(edge(bin)), ns(edge(bin + 1)))
                           .arg(m_counts[static_cast<size_t>(bin)] == 1
                                    ? tr("1 configuration")
                                    : tr("%1 configurations").arg(m_counts[static_cast<size_t>(bin)])),
                       this);
}

void RuntimeHistogram::mousePressEvent(QMouseEvent* event) {
    const int bin = binAt(event->position().x());
    if (bin >= 0) emit binClicked(edge(bin), edge(bin + 1));
}

}  // namespace tpg
