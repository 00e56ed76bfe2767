#include "RemainingTime.h"

#include <algorithm>

#include "WidgetLimits.h"

namespace tpg {

QString clockText(double seconds) {
    const auto s = static_cast<qint64>(std::max(0.0, seconds));
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

double RemainingTime::secondsLeft(double fraction) const {
    if (!m_clock.isValid()) return -1;
    return secondsLeft(fraction, static_cast<double>(m_clock.elapsed()) / 1000.0);
}

double RemainingTime::secondsLeft(double fraction, double elapsedSeconds) {
    if (fraction < widgetlimits::kRemainingTimeMinFraction ||
        elapsedSeconds < widgetlimits::kRemainingTimeMinSeconds)
        return -1;
    return fraction >= 1 ? 0.0 : elapsedSeconds / fraction * (1 - fraction);
}

}  // namespace tpg
