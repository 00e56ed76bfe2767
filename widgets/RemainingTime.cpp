#include "RemainingTime.h"

#include <algorithm>

#include "WidgetLimits.h"

namespace tpg {

QString clockText(double seconds) {
    const auto s = static_cast<qint64>(std::max(0.0, seconds));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

void RemainingTime::restart() {
    m_clock.start();
    m_startFraction = 0;
}

double RemainingTime::secondsLeft(double fraction) {
    if (!m_clock.isValid()) return -1;
    return secondsLeftAt(fraction, static_cast<double>(m_clock.elapsed()) / 1000.0);
}

double RemainingTime::secondsLeftAt(double fraction, double now) {
    if (m_startFraction <= 0 && fraction > 0) {
        m_startFraction = fraction;
        m_startSeconds = now;
    }
    return m_startFraction > 0 ? secondsLeft(m_startFraction, fraction, now - m_startSeconds) : -1;
}

double RemainingTime::secondsLeft(double startFraction, double fraction, double elapsedSeconds) {
    if (fraction >= 1) return 0.0;
    const double done = fraction - startFraction;
    if (done < widgetlimits::kRemainingTimeMinFraction ||
        elapsedSeconds < widgetlimits::kRemainingTimeMinSeconds)
        return -1;
    return elapsedSeconds / done * (1 - fraction);
}

}  // namespace tpg
