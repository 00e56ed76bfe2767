#pragma once

#include <QWidget>
#include <cstdint>
#include <vector>

namespace tpg {

// The runtimes of a file's configurations at a glance, above the configuration table: a
// histogram (log-scaled when they span more than 10x), the best and the chosen configuration
// marked. Hover shows a bin's range and count; a click asks to filter the table to that bin.
// Painted natively; binning is O(configs) once per file, painting O(bins).
class RuntimeHistogram : public QWidget {
    Q_OBJECT
public:
    explicit RuntimeHistogram(QWidget* parent = nullptr);

    // `predicted`: the values are the model's (no runtimes measured), which the caption says.
    void setRuntimes(const std::vector<double>& ns, bool predicted);
    void setMarked(int64_t config);  // -1: none
    int binCount() const { return static_cast<int>(m_counts.size()); }
    int64_t countInBin(int bin) const { return m_counts[static_cast<size_t>(bin)]; }
    int binOf(double ns) const;  // -1 outside the range
    bool isLogScale() const { return m_log; }
    QString caption() const;

signals:
    void binClicked(double fromNs, double toNs);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    double edge(int i) const;  // the lower edge of bin i (ns); edge(binCount()) is the top
    int binAt(double x) const;
    QRectF plotRect() const;

    std::vector<double> m_values;
    std::vector<int64_t> m_counts;
    double m_min = 0, m_max = 0;
    bool m_log = false, m_predicted = false;
    int64_t m_marked = -1, m_best = -1;
};

}  // namespace tpg
