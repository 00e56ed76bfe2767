#pragma once

#include <QString>

class QValueAxis;

namespace tpg {

// A printf format with as many decimals as the axis's tick step needs and no more: ticks a few
// percent apart stay distinct ("%.4g" wrote 13.997 and 14.001 both as "14"), and round ticks read
// round (Qt's default wrote "200.0").
QString tickLabelFormat(const QValueAxis* axis);

}  // namespace tpg
