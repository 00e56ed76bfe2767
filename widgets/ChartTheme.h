#pragma once

#include <QChart>
#include <QPalette>

namespace tpg {

// Qt Charts draws light cards whatever the palette; under a dark desktop theme a chart takes the
// dark theme instead. Call on a new chart before adding series: a theme recolours those it has.
inline void followPalette(QChart* chart, const QPalette& palette) {
    constexpr int kDarkBelow = 128;  // QColor lightness, 0-255: a window darker than mid grey
    if (palette.color(QPalette::Window).lightness() < kDarkBelow)
        chart->setTheme(QChart::ChartThemeDark);
}

}  // namespace tpg
