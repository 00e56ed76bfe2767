#include "GraphView.h"

#include <QGraphicsItem>
#include <QGraphicsOpacityEffect>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolButton>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "VizLimits.h"

namespace tpg {

namespace {
constexpr int kMiniMapWidth = 220;
constexpr int kMiniMapHeight = 150;
constexpr int kMiniMapMargin = 10;
// The overview takes at most this share of the view's width and height (a short view, beside the
// Training tab, was two thirds covered), and never less than this scale of its full size.
constexpr double kMiniMapMaxViewShare = 0.3;
constexpr double kMiniMapMinScale = 0.4;
constexpr double kMiniMapOpacity = 0.7;  // the drawing shows through; opaque under the mouse
// While the view shows at least this share of the drawing's area, the scroll bars orient well
// enough, and an open overview would cover nodes (at 1:1, parts of four of a 20-node kernel's):
// it starts as its button.
constexpr double kMiniMapOpenBelowVisibleShare = 0.5;
constexpr double kWheelStep = 1.0015;  // per wheel angle unit: one notch (120) is ~1.2x
}  // namespace

MiniMap::MiniMap(GraphView* main) : QGraphicsView(main->viewport()->parentWidget()), m_main(main) {
    setParent(main);
    setScene(main->scene());
    setInteractive(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setRenderHints(QPainter::RenderHints());
    setFrameShape(QFrame::Box);
    setStyleSheet(QStringLiteral("background: rgba(255,255,255,225); border: 1px solid #888;"));
    setFixedSize(kMiniMapWidth, kMiniMapHeight);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview: click or drag to move the view"));
    auto* effect = new QGraphicsOpacityEffect(this);
    effect->setOpacity(kMiniMapOpacity);
    setGraphicsEffect(effect);
}

void MiniMap::enterEvent(QEnterEvent* event) {
    QGraphicsView::enterEvent(event);
    static_cast<QGraphicsOpacityEffect*>(graphicsEffect())->setOpacity(1.0);
}

void MiniMap::leaveEvent(QEvent* event) {
    QGraphicsView::leaveEvent(event);
    static_cast<QGraphicsOpacityEffect*>(graphicsEffect())->setOpacity(kMiniMapOpacity);
}

void MiniMap::refit() {
    if (!scene()) return;
    const QRectF r = scene()->sceneRect();
    if (r.isEmpty()) return;
    fitInView(r, Qt::KeepAspectRatio);
    viewport()->update();
}

void MiniMap::drawForeground(QPainter* painter, const QRectF&) {
    const QRectF visible = m_main->mapToScene(m_main->viewport()->rect()).boundingRect();
    QPen pen(QColor(0x15, 0x65, 0xc0), 0);
    pen.setCosmetic(true);
    pen.setWidth(2);
    painter->setPen(pen);
    painter->setBrush(QColor(0x15, 0x65, 0xc0, 40));
    painter->drawRect(visible);
}

void MiniMap::mousePressEvent(QMouseEvent* event) {
    m_main->centerOn(mapToScene(event->position().toPoint()));
}

void MiniMap::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton)
        m_main->centerOn(mapToScene(event->position().toPoint()));
}

void MiniMap::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    refit();
}

void MiniMap::wheelEvent(QWheelEvent* event) {
    event->accept();
}

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
    setDragMode(QGraphicsView::ScrollHandDrag);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState);
    m_miniMap = new MiniMap(this);
    m_miniMapToggle = new QToolButton(this);
    m_miniMapToggle->setAutoRaise(false);
    connect(m_miniMapToggle, &QToolButton::clicked, this,
            [this] { setMiniMapCollapsed(!miniMapCollapsed()); });
    updateMiniMap();
}

QWidget* GraphView::miniMapToggle() const { return m_miniMapToggle; }

double GraphView::zoom() const {
    return transform().m11();
}

void GraphView::setZoom(double z) {
    z = std::clamp(z, vizlimits::kMinZoom, vizlimits::kMaxZoom);
    const double current = zoom();
    if (current <= 0 || std::abs(z - current) < 1e-9) return;
    scale(z / current, z / current);
    updateMiniMap();
    emit zoomChanged(zoom());
}

void GraphView::zoomBy(double factor) {
    setZoom(zoom() * factor);
}

void GraphView::zoomIn() {
    zoomBy(vizlimits::kZoomStep);
}

void GraphView::zoomOut() {
    zoomBy(1.0 / vizlimits::kZoomStep);
}

void GraphView::fitAll() {
    if (!scene() || scene()->sceneRect().isEmpty()) return;
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    if (zoom() > 1.0)
        setZoom(1.0);  // a tiny graph is shown 1:1, not blown up
    else if (zoom() < vizlimits::kMinZoom)
        setZoom(vizlimits::kMinZoom);
    m_miniMap->refit();
    updateMiniMap();
    emit zoomChanged(zoom());
}

QRectF GraphView::itemsWithin(const QRectF& area) const {
    QRectF bounds;
    for (const QGraphicsItem* item : scene()->items(area, Qt::ContainsItemBoundingRect))
        bounds |= item->sceneBoundingRect();
    return bounds;
}

void GraphView::fitReadable() {
    fitAll();
    const double fitted = zoom();
    if (fitted >= vizlimits::kLabelMinScale) return;
    const QRectF drawing = scene()->sceneRect();
    const QSizeF view = viewport()->size();
    // A long strip (a chain's skeleton) fitted whole is a hairline down the middle of the view:
    // it fills the view across instead (its labels drawn however wide it meanders), from its
    // first nodes.
    if (drawing.width() * fitted < vizlimits::kStripMaxShare * view.width()) {
        setZoom(std::clamp(view.width() / drawing.width(), vizlimits::kLabelMinScale, 1.0));
        const double visibleHeight = view.height() / zoom();
        const QRectF start =
            itemsWithin(QRectF(drawing.left(), drawing.top(), drawing.width(), visibleHeight / 4));
        centerOn(start.isEmpty() ? drawing.center().x() : start.center().x(),
                 drawing.top() + visibleHeight / 2);
        return;
    }
    if (drawing.height() * fitted < vizlimits::kStripMaxShare * view.height()) {
        setZoom(std::clamp(view.height() / drawing.height(), vizlimits::kLabelMinScale, 1.0));
        const double visibleWidth = view.width() / zoom();
        const QRectF start =
            itemsWithin(QRectF(drawing.left(), drawing.top(), visibleWidth / 4, drawing.height()));
        centerOn(drawing.left() + visibleWidth / 2,
                 start.isEmpty() ? drawing.center().y() : start.center().y());
        return;
    }
    if (fitted < vizlimits::kLabelMinScale * vizlimits::kReadableFitMinShare) return;
    setZoom(vizlimits::kLabelMinScale);
    // From the top, where the program starts: centred, the first row of boxes was cut in half.
    centerOn(drawing.center().x(), drawing.top() + view.height() / zoom() / 2);
}

void GraphView::actualSize() {
    setZoom(1.0);
}

void GraphView::centerOnItemRect(const QRectF& rect) {
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    if (rect.width() > visible.width() || rect.height() > visible.height())
        fitInView(rect, Qt::KeepAspectRatio);
    centerOn(rect.center());
}

void GraphView::focusOn(const QGraphicsItem* item) {
    if (zoom() < vizlimits::kFocusMinZoom) setZoom(vizlimits::kFocusZoom);
    centerOn(item);
}

void GraphView::showRegion(const QRectF& rect, double minZoom, const QPointF& anchor) {
    fitInView(rect, Qt::KeepAspectRatio);
    if (zoom() > 1.0) setZoom(1.0);
    if (zoom() < minZoom) {
        setZoom(minZoom);
        centerOn(anchor);
    } else {
        centerOn(rect.center());
    }
    updateMiniMap();
    emit zoomChanged(zoom());
}

void GraphView::setMiniMapVisible(bool visible) {
    m_miniMapWanted = visible;
    updateMiniMap();
}

void GraphView::setMiniMapCollapsed(bool collapsed) {
    m_miniMapCollapsedByUser = collapsed;
    updateMiniMap();
}

bool GraphView::miniMapCollapsed() const {
    return m_miniMapCollapsedByUser.value_or(visibleShareOfDrawing() >=
                                             kMiniMapOpenBelowVisibleShare);
}

double GraphView::visibleShareOfDrawing() const {
    const QRectF drawing = scene() ? scene()->sceneRect() : QRectF();
    if (drawing.isEmpty()) return 1.0;
    const QRectF shown = mapToScene(viewport()->rect()).boundingRect().intersected(drawing);
    return shown.width() * shown.height() / (drawing.width() * drawing.height());
}

void GraphView::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ShiftModifier) {  // shift+wheel pans sideways, as elsewhere
        QGraphicsView::wheelEvent(event);
        return;
    }
    const int delta = event->angleDelta().y();
    if (delta == 0) return;
    zoomBy(std::pow(kWheelStep, delta));
    event->accept();
}

void GraphView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    updateMiniMap();
}

void GraphView::scrollContentsBy(int dx, int dy) {
    QGraphicsView::scrollContentsBy(dx, dy);
    updateMiniMap();
}

void GraphView::placeMiniMap(bool collapsed) {
    const QRect vp = viewport()->geometry();
    const double scale = std::clamp(std::min(kMiniMapMaxViewShare * vp.width() / kMiniMapWidth,
                                             kMiniMapMaxViewShare * vp.height() / kMiniMapHeight),
                                    kMiniMapMinScale, 1.0);
    const QSize size(static_cast<int>(std::lround(kMiniMapWidth * scale)),
                     static_cast<int>(std::lround(kMiniMapHeight * scale)));
    if (m_miniMap->size() != size) m_miniMap->setFixedSize(size);  // refits the drawing
    m_miniMap->move(vp.right() - size.width() - kMiniMapMargin,
                    vp.bottom() - size.height() - kMiniMapMargin);
    m_miniMap->raise();
    m_miniMapToggle->adjustSize();
    const QPoint corner = collapsed
                              ? QPoint(vp.right() - kMiniMapMargin, vp.bottom() - kMiniMapMargin)
                              : m_miniMap->geometry().topRight() + QPoint(0, -1);
    m_miniMapToggle->move(corner.x() - m_miniMapToggle->width(), corner.y() - m_miniMapToggle->height());
    m_miniMapToggle->raise();
}

void GraphView::updateMiniMap() {
    // An overview of a drawing that is wholly in view adds nothing.
    const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
    const bool needed = scene() && !scene()->sceneRect().isEmpty() &&
                        !visible.adjusted(-1, -1, 1, 1).contains(scene()->sceneRect());
    const bool collapsed = miniMapCollapsed();
    m_miniMap->setVisible(m_miniMapWanted && needed && !collapsed);
    m_miniMapToggle->setVisible(m_miniMapWanted && needed);
    m_miniMapToggle->setText(collapsed ? tr("Overview ▴") : tr("▾"));
    m_miniMapToggle->setToolTip(collapsed ? tr("Show the overview") : tr("Hide the overview"));
    placeMiniMap(collapsed);
    m_miniMap->viewport()->update();
}

}  // namespace tpg
