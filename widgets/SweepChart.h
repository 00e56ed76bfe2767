#pragma once

#include <QChartView>
#include <QString>
#include <QStringList>
#include <vector>

class QBarSeries;
class QBrush;
class QFont;

namespace tpg {

// A knob swept: every value of one layout slot (or tile bound) with everything else fixed, as
// bars sorted by the model's prediction beside the synthetic TPU's, with the current value's
// prediction and the file's best measured runtime as reference lines. Clicking a bar asks for
// that value to be applied.
class SweepChart : public QChartView {
    Q_OBJECT
public:
    struct Point {
        QString label;     // "{3,0,2,1}", "128"
        double model = 0;  // predicted ns (or score when runtimes are unknown)
        double synth = 0;  // synthetic TPU ns
        int candidate = 0;  // index into the caller's candidate list
        double score = 0;   // the model's score: orders values whose runtimes the fit clamped alike
        int beyondFit = 0;  // WhatIfReport::beyondFit: -1 / +1 where `model` is a bound
        bool outsideFile = false;  // a tile bound outside the range of the file's configurations
    };

    explicit SweepChart(QWidget* parent = nullptr);
    // `points` in any order (sorted here). The candidate `current` (the value the configuration
    // has now) is drawn as a reference line named after it, even when its bar is cut; -1 or a
    // `bestMeasured` < 0 draws no line. Values outside the file's range are starred, and
    // `outsideNote` says what the star means under the title.
    void setSweep(const QString& title, std::vector<Point> points, int current, double bestMeasured,
                  bool modelInNs, const QString& outsideNote = {});
    void clear(const QString& message);
    const std::vector<Point>& points() const { return m_points; }

signals:
    void candidateClicked(int candidate);

private:
    void replaceChart(QChart* chart);
    // One slanted label under each bar of `bars`, placed again whenever the plot moves.
    static void labelBars(QChart* chart, QBarSeries* bars, const QStringList& labels,
                          const QFont& font, const QBrush& brush);

    std::vector<Point> m_points;  // as drawn (sorted, possibly cut)
};

}  // namespace tpg
