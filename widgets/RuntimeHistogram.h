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
    // Unknown runtimes (empty, or any not positive) show a caption instead of bars. The best is
    // the fastest value until setBest says otherwise.
    void setRuntimes(const std::vector<double>& ns, bool predicted);
    // No file open: no bars, and a caption that says so (not that none were measured).
    void clear();
    void setMarked(int64_t config);  // -1: none
    // Tile files rank by normalised runtime, so their best need not have the fastest raw runtime.
    void setBest(int64_t config);    // -1: none
    // A short strip for a short dock (the table below keeps its rows): bars one text line tall,
    // the markers' values left to the caption.
    void setCompact(bool compact);
    bool isCompact() const { return m_compact; }
    static int normalHeight();
    int64_t marked() const { return m_marked; }
    int64_t best() const { return m_best; }

    int binCount() const { return static_cast<int>(m_counts.size()); }
    int64_t countInBin(int bin) const { return m_counts[static_cast<size_t>(bin)]; }
    // Bin i holds values in [edge(i), edge(i + 1)); the last bin also holds edge(binCount()).
    double edge(int i) const;
    int binOf(double ns) const;  // -1 outside the range
    QRectF binRect(int bin) const;  // where the bin's column is, full plot height
    double minimum() const { return m_min; }
    double maximum() const { return m_max; }
    bool isLogScale() const { return m_log; }
    QString caption() const;
    // The caption as drawn: elided to the widget's width (hovering it shows it whole).
    QString shownCaption() const;

signals:
    // A non-empty bin was clicked: [fromNs, toNs), or [fromNs, toNs] for the last bin.
    void binClicked(double fromNs, double toNs);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    int binAt(double x) const;
    double fractionOf(double v) const;  // 0 at the minimum, 1 at the maximum, on the axis' scale
    QRectF plotRect() const;
    QRectF captionRect() const;
    // A vertical line at the config's value, its id and value beside it on text row `labelRow`
    // (-1: no label).
    void drawMarker(QPainter& p, int64_t config, const QColor& colour, int labelRow) const;

    std::vector<double> m_values;
    std::vector<int64_t> m_counts;
    double m_min = 0, m_max = 0;
    bool m_log = false, m_predicted = false, m_fileOpen = false, m_compact = false;
    int64_t m_marked = -1, m_best = -1;
};

}  // namespace tpg
