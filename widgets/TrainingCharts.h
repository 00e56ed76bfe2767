#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstddef>
#include <memory>
#include <vector>

#include "TrainingLog.h"

QT_BEGIN_NAMESPACE
class QAbstractAxis;
class QChart;
class QChartView;
class QCheckBox;
class QLabel;
class QLegendMarker;
class QLineSeries;
class QScatterSeries;
class QSlider;
class QSplitter;
class QTimer;
class QValueAxis;
class QXYSeries;
QT_END_NAMESPACE

namespace tpg {

// The Training dock's plots: training loss per optimiser step (raw and smoothed) and the held-out
// validation figures per epoch, for the live run and for earlier runs overlaid in their own
// colours. Records arrive in batches; all values are kept, a bounded number of points is drawn,
// and batches arriving faster than widgetlimits::kRedrawIntervalMs are drawn together.
class TrainingCharts : public QWidget {
    Q_OBJECT
public:
    enum Which { Loss, Validation };

    explicit TrainingCharts(QWidget* parent = nullptr);
    ~TrainingCharts() override;

    // TensorBoard's smoothing: an EMA from 0 divided by (1 - weight^n); weight 0 gives `values`.
    static std::vector<double> smoothed(const std::vector<double>& values, double weight);
    // "step 1,234 · loss 0.04213": x as an integer with thousands separators, y to 6 digits.
    static QString tooltipText(const QString& xName, double x, const QString& seriesName, double y);

    // The live run. startLive clears its curves (overlays stay) and picks the validation figures
    // of `kind`, the best epoch marked on the one `selectBy` keeps it by; showHistory draws a
    // finished run as the live one.
    void startLive(const QString& name, Collection kind,
                   nn::TrainSettings::Selection selectBy = nn::TrainSettings::Selection::Score);
    // Before a run: picks the figures as startLive does, so the legend names what the next run
    // will draw; does nothing while the live curves hold a run's data.
    void prepareLive(Collection kind, nn::TrainSettings::Selection selectBy);
    void appendSteps(const std::vector<nn::StepRecord>& steps);
    void appendEpoch(const nn::EpochRecord& epoch);
    void showHistory(const QString& name, const nn::TrainingHistory& history);
    void clearLive();

    // Earlier runs drawn beside the live one (smoothed loss and validation figures).
    void setOverlay(const QString& id, const QString& name, const nn::TrainingHistory& history);
    void setOverlayVisible(const QString& id, bool visible);
    void removeOverlay(const QString& id);
    QStringList overlayIds() const;

    double smoothing() const { return m_smoothing; }
    void setSmoothing(double weight);  // 0..0.99 in steps of 0.01 (the slider's)
    bool logScale() const { return m_logScale; }
    void setLogScale(bool on);
    // Undoes rubber-band zooms and fits both charts to their data.
    void resetZoom();

    // The tooltip for the data point of `series` nearest to `at` (chart value coordinates).
    QString hoverText(QXYSeries* series, const QPointF& at) const;

    // Vertical: the two charts one above the other; horizontal: side by side (a short dock).
    Qt::Orientation chartOrientation() const;

    // Both return false when the file cannot be written.
    bool exportPng(const QString& path, Which chart);
    // Every value of every series (not the drawn subset): run,series,x,y.
    bool exportCsv(const QString& path) const;

    QChart* lossChart() const { return m_lossChart; }
    QChart* validationChart() const { return m_validationChart; }
    QValueAxis* slowdownAxis() const { return m_slowdownY; }
    QLineSeries* liveRawLoss() const;
    QLineSeries* liveSmoothedLoss() const;
    QList<QXYSeries*> liveValidationSeries() const;
    QScatterSeries* liveBestMarker() const;
    size_t liveStepCount() const;
    int liveEpochCount() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Run;
    struct SeriesRef;

    QWidget* makeToolbar();
    QChartView* makeChartView(QChart* chart);
    void installLossYAxis();
    QValueAxis* addValueAxis(QChart* chart, Qt::Alignment side, double minTick,
                             const QString& labelFormat);
    // Attaches to the chart's x axis and `valueAxis` (default: the chart's left one).
    void attach(QChart* chart, QXYSeries* series, bool inLegend,
                QAbstractAxis* valueAxis = nullptr);

    // The live run's validation figures (those of `kind`, the best marked by `selectBy`); its
    // series are rebuilt when they change.
    void setLiveFigures(Collection kind, nn::TrainSettings::Selection selectBy);
    void createLossSeries(Run& run);
    void createValidationSeries(Run& run);
    void deleteSeries(Run& run);
    void rebuildValidationSeries();
    void applyVisibility(Run& run);

    void drawLoss(Run& run);
    void drawValidation(Run& run);
    void redrawLoss(bool allRuns);
    void scheduleLiveRedraw();
    void flushPendingRedraw();
    void fitAxes(QChart* chart);
    void fitValidationAxes();
    double logFloor() const;

    void onSmoothingSlider(int value);
    void onLegendMarkerClicked(QLegendMarker* marker);
    void onHovered(QXYSeries* series, const QPointF& at, bool entered);
    void exportPngDialog(Which chart);
    void exportCsvDialog();

    SeriesRef findSeries(const QXYSeries* series) const;
    Run* overlay(const QString& id) const;
    std::vector<Run*> runs() const;  // live first, then overlays in the order added

    QChart* m_lossChart = nullptr;
    QChart* m_validationChart = nullptr;
    QWidget* m_toolbar = nullptr;
    QSplitter* m_chartSplit = nullptr;
    QChartView* m_lossView = nullptr;
    QChartView* m_validationView = nullptr;
    QValueAxis* m_lossX = nullptr;
    QAbstractAxis* m_lossY = nullptr;  // a QValueAxis, or a QLogValueAxis in log scale
    QValueAxis* m_validationX = nullptr;
    QValueAxis* m_validationY = nullptr;
    // Tile slowdowns in percent, on the right: on the left axis beside Kendall and the score
    // (about 0.9 to 1), a model's slowdowns of a few tenths of a percent drew as a flat line at 0.
    QValueAxis* m_slowdownY = nullptr;
    QSlider* m_smoothingSlider = nullptr;
    QLabel* m_smoothingLabel = nullptr;
    QCheckBox* m_logScaleBox = nullptr;
    QTimer* m_redrawTimer = nullptr;  // pending redraw of live steps that came too soon
    QElapsedTimer m_sinceRedraw;      // since live steps were last drawn as they came

    std::unique_ptr<Run> m_live;
    std::vector<std::unique_ptr<Run>> m_overlays;
    int m_overlaysCreated = 0;  // picks each new overlay's colour
    double m_smoothing = 0.6;
    bool m_logScale = false;
    double m_drawnLogFloor = 0;  // the floor the loss curves were clamped to when last drawn
};

}  // namespace tpg
