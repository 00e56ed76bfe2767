#pragma once

#include <QChartView>
#include <QString>
#include <vector>

namespace tpg {

// A knob swept: every value of one layout slot (or tile bound) with everything else fixed, as
// bars sorted by the model's prediction beside the synthetic TPU's, with the starting
// configuration and the file's best measured runtime as reference lines. Clicking a bar asks
// for that value to be applied.
class SweepChart : public QChartView {
    Q_OBJECT
public:
    struct Point {
        QString label;     // "{3,0,2,1}", "128"
        double model = 0;  // predicted ns (or score when runtimes are unknown)
        double synth = 0;  // synthetic TPU ns
        int candidate = 0;  // index into the caller's candidate list
    };

    explicit SweepChart(QWidget* parent = nullptr);
    // `points` in any order (sorted here); reference values < 0 are not drawn.
    void setSweep(const QString& title, std::vector<Point> points, double startValue, double bestMeasured,
                  bool modelInNs);
    void clear(const QString& message);
    const std::vector<Point>& points() const { return m_points; }

signals:
    void candidateClicked(int candidate);

private:
    std::vector<Point> m_points;  // as drawn (sorted, possibly cut)
};

}  // namespace tpg
