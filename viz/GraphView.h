#pragma once

#include <QGraphicsView>
#include <optional>

class QToolButton;

namespace tpg {

class GraphView;

// The overview in the corner of a GraphView: the whole scene, the visible part framed;
// click or drag to move there. Semi-transparent until the mouse is over it, so the drawing
// behind it shows through.
class MiniMap : public QGraphicsView {
    Q_OBJECT
public:
    explicit MiniMap(GraphView* main);
    void refit();

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void enterEvent(QEnterEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    GraphView* m_main;
};

// Zoom (wheel around the cursor, fit, 1:1), pan (drag the background), and a mini-map.
class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);

    double zoom() const;  // 1.0 = 1:1
    void setZoom(double zoom);
    void zoomBy(double factor);
    void zoomIn();  // by vizlimits::kZoomStep
    void zoomOut();
    void fitAll();
    // fitAll, but a drawing that fits only a little below the label scale is shown at that scale,
    // centred across and from its top, so a small graph opens with its labels (a short scroll)
    // rather than blank boxes;
    // and a long strip fills the view across, from its start, rather than a hairline.
    void fitReadable();
    void actualSize();
    void centerOnItemRect(const QRectF& rect);  // keeps the zoom unless the rect would not fit
    // `item` centred, zoomed in to vizlimits::kFocusZoom when below kFocusMinZoom (a node gone to
    // from search, the inspector or a configuration).
    void focusOn(const QGraphicsItem* item);
    // `rect` whole, at most 1:1, when it fits at `minZoom` or more; else `anchor` at `minZoom`.
    void showRegion(const QRectF& rect, double minZoom, const QPointF& anchor);
    MiniMap* miniMap() const { return m_miniMap; }
    // The user's choice (View › Mini-map); the overview still hides while the whole drawing is in
    // view. It collapses to a small button on request, and of itself while most of the drawing is
    // in view; once the user opens or collapses it, that choice holds for this view.
    void setMiniMapVisible(bool visible);
    void setMiniMapCollapsed(bool collapsed);
    bool miniMapCollapsed() const;
    QWidget* miniMapToggle() const;

signals:
    void zoomChanged(double zoom);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    QRectF itemsWithin(const QRectF& area) const;  // the items wholly inside, bounded
    void placeMiniMap(bool collapsed);
    void updateMiniMap();  // shown or not, placed, repainted
    double visibleShareOfDrawing() const;  // of the scene rect's area, 0..1
    MiniMap* m_miniMap;
    QToolButton* m_miniMapToggle;
    bool m_miniMapWanted = true;
    std::optional<bool> m_miniMapCollapsedByUser;  // unset: collapsed while most is in view
};

}  // namespace tpg
