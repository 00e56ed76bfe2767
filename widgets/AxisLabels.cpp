#include "AxisLabels.h"

#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace tpg {

QString tickLabelFormat(const QValueAxis* axis) {
    const double step = (axis->max() - axis->min()) / std::max(1, axis->tickCount() - 1);
    const int decimals =
        step > 0 ? std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 9) : 0;
    return QStringLiteral("%.%1f").arg(decimals);
}

}  // namespace tpg
