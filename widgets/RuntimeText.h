#pragma once

#include <QObject>
#include <QString>
#include <cmath>

#include "CountText.h"

// Runtimes and their changes as the what-if dock and its suggestions show them.
namespace tpg {

// 1234567.4 -> "1,234,567 ns"; `unknown` for a negative (unknown) runtime.
inline QString nsText(double v, const QString& unknown) {
    if (v < 0) return unknown;
    return countText(std::llround(v)) + QStringLiteral(" ns");
}

// "≤ " or "≥ " before a predicted runtime the fit clamped at its fastest or slowest end
// (WhatIfReport::beyondFit): the model scored the configuration beyond every measured one.
inline QString boundPrefix(int beyondFit) {
    return beyondFit < 0 ? QStringLiteral("≤ ") : beyondFit > 0 ? QStringLiteral("≥ ") : QString();
}

// Who gives a synthetic-TPU runtime: "by the synthetic TPU" on a file it timed (its ground truth),
// "by the synthetic TPU's estimate" on any other.
inline QString bySynthTpuText(bool groundTruth) {
    return groundTruth ? QObject::tr("by the synthetic TPU")
                       : QObject::tr("by the synthetic TPU's estimate");
}

// A report evaluated before the file was scored shows the model's score: "score 8.5914".
inline QString scoreText(double score) {
    return QObject::tr("score %1").arg(score, 0, 'f', 4);
}

// "+12.3%" / "-4.0%": `now` against `reference`; "–" when either is not a runtime.
inline QString changeText(double now, double reference) {
    if (now < 0 || reference <= 0) return QStringLiteral("–");
    return QStringLiteral("%1%2%")
        .arg(now >= reference ? QStringLiteral("+") : QString())
        .arg(100.0 * (now / reference - 1.0), 0, 'f', 1);
}

// The unit a chart of runtimes up to `largestNs` reads in, with the thresholds of the explain
// texts (explain::nsText): a tile kernel's 14 us is not drawn as 0.014 ms.
struct RuntimeUnit {
    QString name;        // "ms", "us" or "ns"
    double nanoseconds;  // per unit
};
inline RuntimeUnit runtimeUnitFor(double largestNs) {
    if (largestNs >= 1e6) return {QStringLiteral("ms"), 1e6};
    if (largestNs >= 1e3) return {QStringLiteral("us"), 1e3};
    return {QStringLiteral("ns"), 1.0};
}

}  // namespace tpg
