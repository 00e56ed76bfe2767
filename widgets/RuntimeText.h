#pragma once

#include <QLocale>
#include <QString>
#include <cmath>

// Runtimes and their changes as the what-if dock and its suggestions show them.
namespace tpg {

// 1234567.4 -> "1,234,567 ns"; `unknown` for a negative (unknown) runtime.
inline QString nsText(double v, const QString& unknown) {
    if (v < 0) return unknown;
    return QLocale(QLocale::English).toString(static_cast<qlonglong>(std::llround(v))) + QStringLiteral(" ns");
}

// "≤ " or "≥ " before a predicted runtime the fit clamped at its fastest or slowest end
// (WhatIfReport::beyondFit): the model scored the configuration beyond every measured one.
inline QString boundPrefix(int beyondFit) {
    return beyondFit < 0 ? QStringLiteral("≤ ") : beyondFit > 0 ? QStringLiteral("≥ ") : QString();
}

// "+12.3%" / "-4.0%": `now` against `reference`; "–" when either is not a runtime.
inline QString changeText(double now, double reference) {
    if (now < 0 || reference <= 0) return QStringLiteral("–");
    return QStringLiteral("%1%2%")
        .arg(now >= reference ? QStringLiteral("+") : QString())
        .arg(100.0 * (now / reference - 1.0), 0, 'f', 1);
}

}  // namespace tpg
