#include "RuntimeHistogram.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "CountText.h"
#include "explain/CostExplanation.h"

namespace tpg {

namespace {

constexpr int kBins = 48;             // fine enough to see modes, coarse enough to read counts
constexpr int kHeight = 72;           // a strip above the table, not a chart competing with it
constexpr int kCompactBarRows = 1;    // compact: bars one text line tall
constexpr double kLogSpan = 10;       // above this max / min the x axis is logarithmic
constexpr int kCaptionHeight = 14;
constexpr int kMargin = 4;
constexpr int kLabelPad = 3;          // between a marker line and its value
const QColor kBarColor(0x90, 0xa4, 0xae);
constexpr double kMinBarHeight = 2.0;  // px: a non-empty bin is never drawn as an empty one
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
    m_min = m_max = 0;
    m_log = false;
    m_predicted = predicted;
    m_fileOpen = true;
    const bool known = !values.empty() &&
                       std::all_of(values.begin(), values.end(), [](double v) { return v > 0 && std::isfinite(v); });
    if (known) {
        m_values = values;
        const auto [lo, hi] = std::minmax_element(m_values.begin(), m_values.end());
        m_min = *lo;
        m_max = *hi;
        m_best = lo - m_values.begin();
        m_log = m_max / m_min > kLogSpan;
        m_counts.assign(kBins, 0);
        for (double v : m_values) ++m_counts[static_cast<size_t>(binOf(v))];
    }
    update();
}

void RuntimeHistogram::clear() {
    setRuntimes({}, false);
    m_fileOpen = false;
}

int RuntimeHistogram::normalHeight() {
    return kHeight;
}

void RuntimeHistogram::setCompact(bool compact) {
    if (compact == m_compact) return;
    m_compact = compact;
    setFixedHeight(compact ? kCaptionHeight + kMargin + 2 + kCompactBarRows * fontMetrics().height()
                           : kHeight);
    update();
}

void RuntimeHistogram::setMarked(int64_t config) {
    m_marked = config;
    update();
}

void RuntimeHistogram::setBest(int64_t config) {
    m_best = config;
    update();
}

double RuntimeHistogram::edge(int i) const {
    if (i <= 0) return m_min;
    if (i >= kBins) return m_max;  // exactly, so the top value falls in the last bin
    return m_log ? m_min * std::pow(m_max / m_min, static_cast<double>(i) / kBins)
                 : m_min + (m_max - m_min) * i / kBins;  // multiplied first: round ranges give exact edges
}

double RuntimeHistogram::fractionOf(double v) const {
    if (m_max <= m_min) return 0.5;
    return m_log ? std::log(v / m_min) / std::log(m_max / m_min) : (v - m_min) / (m_max - m_min);
}

int RuntimeHistogram::binOf(double v) const {
    if (m_counts.empty() || v < m_min || v > m_max) return -1;
    // One value (or all alike): its bar in the middle, beside the markers drawn there (it stood at
    // the left edge, half a plot away from its own marker).
    if (m_max <= m_min) return kBins / 2;
    int bin = std::clamp(static_cast<int>(fractionOf(v) * kBins), 0, kBins - 1);
    // Agree with edge() to the last bit, so filtering a clicked bin's range shows exactly its count.
    while (bin > 0 && v < edge(bin)) --bin;
    while (bin + 1 < kBins && v >= edge(bin + 1)) ++bin;
    return bin;
}

QRectF RuntimeHistogram::plotRect() const {
    return {static_cast<double>(kMargin), 2.0, static_cast<double>(width() - 2 * kMargin),
            static_cast<double>(height() - kCaptionHeight - kMargin)};
}

QRectF RuntimeHistogram::binRect(int bin) const {
    const QRectF r = plotRect();
    const double w = r.width() / kBins;
    return {r.left() + bin * w, r.top(), w, r.height()};
}

int RuntimeHistogram::binAt(double x) const {
    const QRectF r = plotRect();
    if (m_counts.empty() || x < r.left() || x > r.right()) return -1;
    return std::clamp(static_cast<int>((x - r.left()) / r.width() * kBins), 0, kBins - 1);
}

QString RuntimeHistogram::caption() const {
    if (!m_fileOpen) return tr("No graph open.");
    if (m_counts.empty())
        return m_predicted ? tr("No predicted runtimes: without measured runtimes the model's scores are not in ns")
                           : tr("No runtimes to show (none measured: a test split)");
    const bool one = m_values.size() == 1;
    // One value, or all alike: that value, not "60.30 us to 60.30 us".
    const QString range = m_max > m_min ? tr("%1 to %2").arg(ns(m_min), ns(m_max))
                          : one         ? ns(m_min)
                                        : tr("all %1").arg(ns(m_min));
    QString text = tr("%1 of %2: %3%4")
                       .arg(m_predicted ? (one ? tr("Predicted runtime") : tr("Predicted runtimes"))
                                        : (one ? tr("Runtime") : tr("Runtimes")))
                       .arg(countOf(static_cast<int64_t>(m_values.size()), tr("configuration"),
                                    tr("configurations")))
                       .arg(range, m_log ? tr(" (log scale)") : QString());
    if (m_best >= 0 && static_cast<size_t>(m_best) < m_values.size())
        text += tr(" · green: best, configuration %1 (%2)").arg(m_best).arg(ns(m_values[static_cast<size_t>(m_best)]));
    if (m_marked >= 0 && static_cast<size_t>(m_marked) < m_values.size())
        text += tr(" · orange: configuration %1 (%2)").arg(m_marked).arg(ns(m_values[static_cast<size_t>(m_marked)]));
    return text;
}

QRectF RuntimeHistogram::captionRect() const {
    return {static_cast<double>(kMargin), static_cast<double>(height() - kCaptionHeight),
            static_cast<double>(width() - 2 * kMargin), static_cast<double>(kCaptionHeight)};
}

QString RuntimeHistogram::shownCaption() const {
    return fontMetrics().elidedText(caption(), Qt::ElideRight,
                                    static_cast<int>(captionRect().width()));
}

void RuntimeHistogram::paintEvent(QPaintEvent* /*event*/) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().color(QPalette::Text));
    p.drawText(captionRect(), Qt::AlignLeft | Qt::AlignVCenter, shownCaption());
    if (m_counts.empty()) return;
    const double tallest = static_cast<double>(*std::max_element(m_counts.begin(), m_counts.end()));
    for (int i = 0; i < kBins; ++i) {
        const QRectF column = binRect(i);
        const int64_t count = m_counts[static_cast<size_t>(i)];
        // A bin with a few configurations beside one with hundreds stays visible: a slow outlier
        // drew 0.2 px high, as if no configuration were there.
        const double h =
            count == 0
                ? 0.0
                : std::max(kMinBarHeight, column.height() * static_cast<double>(count) / tallest);
        p.fillRect(QRectF(column.left() + 0.5, column.bottom() - h, column.width() - 1, h), kBarColor);
    }
    // The best's label below the chosen one's; a compact strip's labels would hide its tallest
    // bars, and the caption names both.
    drawMarker(p, m_best, kBestColor, m_marked != m_best && !m_compact ? 1 : -1);
    drawMarker(p, m_marked, kMarkColor, m_compact ? -1 : 0);
}

void RuntimeHistogram::drawMarker(QPainter& p, int64_t config, const QColor& colour, int labelRow) const {
    if (config < 0 || static_cast<size_t>(config) >= m_values.size()) return;
    const QRectF r = plotRect();
    const double v = m_values[static_cast<size_t>(config)];
    const double x = r.left() + fractionOf(v) * r.width();
    p.setPen(QPen(colour, 2));
    p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
    if (labelRow < 0) return;
    const QString label = QStringLiteral("%1: %2").arg(config).arg(ns(v));
    const double w = p.fontMetrics().horizontalAdvance(label) + 2.0 * kLabelPad;
    const double h = p.fontMetrics().height();
    // Right of the line when it fits, else left of it.
    const double left = x + w + kLabelPad <= r.right() ? x + kLabelPad : x - kLabelPad - w;
    const QRectF box(left, r.top() + labelRow * h, w, h);
    p.fillRect(box, palette().base());
    p.drawText(box, Qt::AlignCenter, label);
}

void RuntimeHistogram::mouseMoveEvent(QMouseEvent* event) {
    const int bin = binAt(event->position().x());
    if (captionRect().contains(event->position()) && shownCaption() != caption()) {
        QToolTip::showText(event->globalPosition().toPoint(), caption(), this);
        return;
    }
    if (bin < 0) {
        QToolTip::hideText();
        return;
    }
    const int64_t n = m_counts[static_cast<size_t>(bin)];
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("%1 – %2: %3%4")
                           .arg(ns(edge(bin)), ns(edge(bin + 1)))
                           .arg(n == 1 ? tr("1 configuration") : tr("%1 configurations").arg(n))
                           .arg(n > 0 ? tr("; click to filter the table to them") : QString()),
                       this);
}

void RuntimeHistogram::mousePressEvent(QMouseEvent* event) {
    const int bin = binAt(event->position().x());
    if (bin >= 0 && m_counts[static_cast<size_t>(bin)] > 0) emit binClicked(edge(bin), edge(bin + 1));
}

}  // namespace tpg
