#include "GraphItems.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QtMath>
#include <cmath>

#include "CountText.h"
#include "VizLimits.h"

namespace tpg {

namespace {

const QColor kConfigurableColor(0xc6, 0x28, 0x28);
const QColor kSelectedColor(0x15, 0x65, 0xc0);
const QColor kProducerColor(0x2e, 0x7d, 0x32);
const QColor kConsumerColor(0xe6, 0x5c, 0x00);
const QColor kMarkColor(0xff, 0xb3, 0x00);
const QColor kSearchColor(0xad, 0x14, 0x57);
const QColor kConfigLayoutColor(0x9a, 0x4d, 0x00);
const QColor kEdgeColor(0x70, 0x70, 0x70);
constexpr double kHalo = 6;  // room around a box for outlines, halos and the badge

// The text colours of a box: dark on light fills; light on dark ones (the cost overlay's deep red
// end), where black labels were close to unreadable.
struct LabelColors {
    QColor title, subtitle, configSubtitle;
};
LabelColors labelColorsOn(const QColor& fill) {
    // WCAG relative luminance; below about 0.18 white text contrasts more than black.
    const auto linear = [](double v) {
        return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    const double luminance = 0.2126 * linear(fill.redF()) + 0.7152 * linear(fill.greenF()) +
                             0.0722 * linear(fill.blueF());
    if (luminance < 0.18) return {Qt::white, QColor(0xf2, 0xf2, 0xf2), QColor(0xff, 0xe0, 0x82)};
    return {Qt::black, QColor(0x33, 0x33, 0x33), kConfigLayoutColor};
}

QColor roleColor(HighlightRole r) {
    switch (r) {
        case HighlightRole::Selected:
            return kSelectedColor;
        case HighlightRole::Producer:
            return kProducerColor;
        case HighlightRole::Consumer:
            return kConsumerColor;
        case HighlightRole::None:
            break;
    }
    return Qt::black;
}

QFont titleFont() {
    QFont f;
    f.setPointSizeF(8.5);
    f.setBold(true);
    return f;
}

QFont subtitleFont() {
    QFont f(QStringLiteral("monospace"));
    f.setStyleHint(QFont::TypeWriter);
    f.setPointSizeF(7.5);
    return f;
}

}  // namespace

double levelOfDetail(const QTransform& worldTransform) {
    return std::round(QStyleOptionGraphicsItem::levelOfDetailFromTransform(worldTransform) * 1e6) /
           1e6;
}

GraphNodeItem::GraphNodeItem(const ViewItem& item, int index, const QRectF& rect, bool configurable)
    : m_item(item), m_index(index), m_configurable(configurable) {
    m_rect = QRectF(-rect.width() / 2, -rect.height() / 2, rect.width(), rect.height());
    setPos(rect.center());
    setZValue(2);
    switch (item.kind) {
        case ViewItem::Kind::Node:
            m_fill = Qt::white;
            break;  // the scene sets the category colour
        case ViewItem::Kind::Computation:
        case ViewItem::Kind::Group:
            m_fill = QColor(0xee, 0xf2, 0xf7);
            break;
        default:
            m_fill = QColor(0xfa, 0xfa, 0xfa);
            break;
    }
    if (item.kind == ViewItem::Kind::Node || item.kind == ViewItem::Kind::Computation) {
        setFlag(ItemIsSelectable, item.kind == ViewItem::Kind::Node);
    }
    setAcceptHoverEvents(false);
    updateToolTip();
}

void GraphNodeItem::setFillColor(const QColor& c) {
    m_fill = c;
}

void GraphNodeItem::setHeatColor(const QColor& c) {
    if (c == m_heat) return;
    m_heat = c;
    update();
}

QRectF GraphNodeItem::boundingRect() const {
    return m_rect.adjusted(-kHalo, -kHalo - 4, kHalo + 8, kHalo);
}

QPainterPath GraphNodeItem::shape() const {
    QPainterPath p;
    p.addRect(m_rect);
    return p;
}

void GraphNodeItem::setRole(HighlightRole role) {
    if (role == m_role) return;
    m_role = role;
    setZValue(role == HighlightRole::None ? 2 : 3);
    update();
}

void GraphNodeItem::setMark(const QString& description) {
    if (description == m_mark) return;
    m_mark = description;
    updateToolTip();
    update();
}

void GraphNodeItem::setConfigLayout(const QString& subtitle, const QString& why) {
    if (subtitle == m_configSubtitle && why == m_configWhy) return;
    m_configSubtitle = subtitle;
    m_configWhy = why;
    updateToolTip();
    update();
}

QColor GraphNodeItem::farColor() const {
    // Marks first: the chosen configuration's nodes are configurable too, and must not vanish
    // into the configurable colour when the whole graph is in view.
    if (m_role != HighlightRole::None) return roleColor(m_role);
    if (m_alsoSelected > 0) return kSelectedColor;
    if (!m_mark.isEmpty()) return kMarkColor;
    if (m_configurable) return kConfigurableColor;
    QColor fill = fillColor();
    return m_item.context ? fill.lighter(108) : fill;
}

void GraphNodeItem::setSearchMatch(bool match) {
    if (match == m_searchMatch) return;
    m_searchMatch = match;
    update();
}

void GraphNodeItem::setAlsoSelected(int64_t nodes) {
    if (nodes == m_alsoSelected) return;
    m_alsoSelected = nodes;
    updateToolTip();
    update();
}

void GraphNodeItem::updateToolTip() {
    QString tip = m_item.title;
    if (!m_item.subtitle.isEmpty()) tip += QLatin1Char('\n') + m_item.subtitle;
    if (m_configurable)
        tip += QStringLiteral("\nconfigurable (its layouts are chosen per configuration)");
    if (m_item.context) tip += QStringLiteral("\noutside this computation (shown for context)");
    if (m_item.hiddenOperands)
        tip += QStringLiteral("\n%1 not drawn")
                   .arg(countOf(m_item.hiddenOperands, QStringLiteral("operand"),
                                QStringLiteral("operands")));
    if (m_item.hiddenUsers)
        tip +=
            QStringLiteral("\n%1 not drawn")
                .arg(countOf(m_item.hiddenUsers, QStringLiteral("user"), QStringLiteral("users")));
    if (isGroupBox()) tip += QStringLiteral("\ndouble-click to open");
    if (m_item.kind == ViewItem::Kind::MoreUsers || m_item.kind == ViewItem::Kind::MoreOperands)
        tip += QStringLiteral("\ndouble-click for the neighbourhood of node %1").arg(m_item.node);
    if (!m_mark.isEmpty()) tip += QLatin1Char('\n') + m_mark;  // says what marked it
    if (m_alsoSelected > 0 && !isGroupBox())
        tip += QStringLiteral(
            "\nselected in What-if with the chosen node: an edit goes to it too (Ctrl-click it to "
            "leave it out)");
    else if (m_alsoSelected > 0)
        tip += QStringLiteral(
                   "\n%1 inside selected in What-if with the chosen node: an edit goes to "
                   "them too")
                   .arg(countOf(m_alsoSelected, QStringLiteral("node"), QStringLiteral("nodes")));
    if (!m_configSubtitle.isEmpty())
        tip += QStringLiteral("\nunder the configuration: %1 (%2; the file's default: %3)")
                   .arg(m_configSubtitle, m_configWhy, m_item.subtitle);
    setToolTip(tip);
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    const double lod = levelOfDetail(painter->worldTransform());
    QColor fill = fillColor();
    if (m_item.context) fill = fill.lighter(108);

    if (lod < vizlimits::kDetailMinScale) {
        // Far out: flat boxes, no antialiasing; configurable and highlighted nodes keep their
        // colour.
        painter->setRenderHint(QPainter::Antialiasing, false);
        painter->fillRect(m_rect, farColor());
        drawFarLabel(painter, lod, farColor());
        return;
    }
    painter->setRenderHint(QPainter::Antialiasing, true);
    drawHalo(painter);
    drawBox(painter, fill);
    drawBadges(painter, lod);
    if (lod < vizlimits::kLabelMinScale) {
        drawFarLabel(painter, lod, fill);
        return;
    }
    drawLabels(painter, fill);
}

// The mark of a configuration's or an edit's node, the ring of a node selected with the chosen one
// in What-if, and the search's dashed ring.
void GraphNodeItem::drawHalo(QPainter* painter) const {
    if (!m_mark.isEmpty()) {
        painter->setPen(Qt::NoPen);
        painter->setBrush(kMarkColor);
        painter->drawRoundedRect(m_rect.adjusted(-5, -5, 5, 5), 7, 7);
    }
    if (m_alsoSelected > 0) {
        painter->setPen(QPen(kSelectedColor, 3.0));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(m_rect.adjusted(-3, -3, 3, 3), 5, 5);
    }
    if (m_searchMatch) {
        painter->setPen(QPen(kSearchColor, 2.5, Qt::DashLine));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(m_rect.adjusted(-4, -4, 4, 4), 6, 6);
    }
}

void GraphNodeItem::drawBox(QPainter* painter, const QColor& fill) const {
    const bool isNode = m_item.kind == ViewItem::Kind::Node;
    QPen pen(Qt::black, 1.0);
    if (m_configurable) pen = QPen(kConfigurableColor, 3.0);
    if (m_role != HighlightRole::None)
        pen = QPen(roleColor(m_role), m_role == HighlightRole::Selected ? 3.5 : 3.0);
    if (m_item.context) pen.setStyle(Qt::DashLine);
    if (!isNode && !isGroupBox()) pen = QPen(Qt::gray, 1.0, Qt::DashLine);
    painter->setPen(pen);
    painter->setBrush(fill);
    const double radius = isGroupBox() ? 8 : 4;
    painter->drawRoundedRect(m_rect, radius, radius);
    if (isGroupBox()) {
        // A stack of boxes: "collapsed, there is more inside".
        painter->setPen(QPen(Qt::gray, 1.0));
        painter->drawLine(m_rect.topLeft() + QPointF(4, -3), m_rect.topRight() + QPointF(-4, -3));
    }
}

// The configurable badge, and a "+" where operands or users are not drawn.
void GraphNodeItem::drawBadges(QPainter* painter, double lod) const {
    const bool isNode = m_item.kind == ViewItem::Kind::Node;
    if (m_configurable) {
        // Badge: a red pill at the top-right corner, readable at any zoom above the flat level.
        const QRectF badge(m_rect.right() - 22, m_rect.top() - 8, 28, 13);
        painter->setPen(Qt::NoPen);
        painter->setBrush(kConfigurableColor);
        painter->drawRoundedRect(badge, 6, 6);
        if (lod >= vizlimits::kLabelMinScale) {
            QFont f;
            f.setPointSizeF(6.5);
            f.setBold(true);
            painter->setFont(f);
            painter->setPen(Qt::white);
            painter->drawText(badge, Qt::AlignCenter, QStringLiteral("CFG"));
        }
    }
    if (isNode && (m_item.hiddenOperands || m_item.hiddenUsers)) {
        painter->setPen(QPen(Qt::darkGray, 1.2));
        const QPointF c = m_rect.bottomRight() + QPointF(-6, -6);
        painter->drawLine(c - QPointF(3, 0), c + QPointF(3, 0));
        painter->drawLine(c - QPointF(0, 3), c + QPointF(0, 3));
    }
}

// Title and subtitle (shape and layout), elided to the box.
void GraphNodeItem::drawLabels(QPainter* painter, const QColor& fill) const {
    const QRectF text = m_rect.adjusted(6, 2, -6, -2);
    const LabelColors colors = labelColorsOn(fill);
    painter->setPen(colors.title);
    if (m_item.subtitle.isEmpty()) {
        QFont f = titleFont();
        f.setBold(false);
        painter->setFont(f);
        painter->drawText(text, Qt::AlignCenter,
                          QFontMetricsF(f).elidedText(m_item.title, Qt::ElideRight, text.width()));
        return;
    }
    const QRectF top(text.left(), text.top(), text.width(), text.height() / 2);
    const QRectF bottom(text.left(), text.center().y(), text.width(), text.height() / 2);
    const QFont tf = titleFont(), sf = subtitleFont();
    painter->setFont(tf);
    painter->drawText(top, Qt::AlignHCenter | Qt::AlignBottom,
                      QFontMetricsF(tf).elidedText(m_item.title, Qt::ElideRight, top.width()));
    painter->setFont(sf);
    // A layout the configuration changed is drawn in the mark's colour, darker to stay legible.
    painter->setPen(m_configSubtitle.isEmpty() ? colors.subtitle : colors.configSubtitle);
    painter->drawText(
        bottom, Qt::AlignHCenter | Qt::AlignTop,
        QFontMetricsF(sf).elidedText(shownSubtitle(), Qt::ElideMiddle, bottom.width()));
}

// Semantic zoom: far out, a box still says what it holds (title and size) in type that stays
// readable on screen, where the box is wide enough for it; nodes stay plain shapes.
void GraphNodeItem::drawFarLabel(QPainter* painter, double lod, const QColor& fill) const {
    if (!isGroupBox() || lod <= 0 || m_rect.width() * lod < vizlimits::kFarLabelMinPixels) return;
    QFont f = titleFont();
    f.setPixelSize(std::max(1, static_cast<int>(vizlimits::kFarLabelPixels / lod)));
    painter->setFont(f);
    painter->setPen(labelColorsOn(fill).title);
    const QString text = m_item.title + QStringLiteral(" · ") + QString::number(m_item.count);
    painter->drawText(m_rect, Qt::AlignCenter, QFontMetricsF(f).elidedText(text, Qt::ElideRight, m_rect.width()));
}

namespace {
QFont edgeLabelFont() {
    QFont f;
    f.setPointSizeF(7);
    return f;
}

// A label of `size` beside `path`'s midpoint without touching the line: above a horizontal-ish
// edge, centred; right of a vertical-ish one. Drawn at the midpoint plus (4, 4), a count on a
// horizontal edge had the line through its middle.
QRectF besideMidpoint(const QPainterPath& path, QSizeF size) {
    constexpr double kGap = 3;
    const QPointF mid = path.pointAtPercent(0.5);
    const QPointF d = path.pointAtPercent(0.55) - path.pointAtPercent(0.45);
    const double dx = std::abs(d.x()), dy = std::abs(d.y());
    if (dx >= dy) {  // the line rises at most dy/dx per unit across the label's half width
        const double lift = kGap + (dx > 0 ? size.width() / 2 * dy / dx : 0);
        return {QPointF(mid.x() - size.width() / 2, mid.y() - lift - size.height()), size};
    }
    const double shift = kGap + size.height() / 2 * dx / dy;
    return {QPointF(mid.x() + shift, mid.y() - size.height() / 2), size};
}
}  // namespace

GraphEdgeItem::GraphEdgeItem(const ViewEdge& edge, int index, const std::vector<QPointF>& pts,
                             const QPointF& tip, bool routedByDot)
    : m_edge(edge), m_index(index), m_routedByDot(routedByDot) {
    setZValue(0);
    setAcceptedMouseButtons(Qt::NoButton);
    if (pts.empty()) return;
    m_path.moveTo(pts.front());
    for (size_t i = 1; i + 2 < pts.size(); i += 3) m_path.cubicTo(pts[i], pts[i + 1], pts[i + 2]);
    if (pts.size() == 2) m_path.lineTo(pts[1]);
    const QPointF base = m_path.currentPosition();
    if (base != tip) m_path.lineTo(tip);
    // Arrowhead along the last segment's direction.
    QPointF dir = tip - base;
    if (qFuzzyIsNull(dir.x()) && qFuzzyIsNull(dir.y())) dir = tip - m_path.pointAtPercent(0.95);
    const double len = std::hypot(dir.x(), dir.y());
    if (len > 0) {
        const QPointF u = dir / len, n(-u.y(), u.x());
        m_arrow << tip << tip - u * 8 + n * 3.5 << tip - u * 8 - n * 3.5;
    }
    if (edge.collapsedNodes > 0)
        m_label = countOf(edge.collapsedNodes, QStringLiteral("op"), QStringLiteral("ops"));
    else if (edge.count > 1)
        m_label = QStringLiteral("×%1").arg(countText(edge.count));
    m_labelPos = m_path.pointAtPercent(0.5);
    m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).adjusted(-4, -4, 4, 4);
    if (!m_label.isEmpty()) {
        const QFontMetricsF metrics(edgeLabelFont());
        m_countLabelRect =
            besideMidpoint(m_path, QSizeF(metrics.horizontalAdvance(m_label), metrics.height()));
        m_countLabelAscent = metrics.ascent();
        m_bounds = m_bounds.united(m_countLabelRect);
    }
    updateToolTip();
}

void GraphEdgeItem::updateToolTip() {
    QString tip = m_routedByDot ? QString() : QStringLiteral("long edge (drawn directly, not routed by dot)");
    if (!m_label.isEmpty())
        tip = (m_edge.collapsedNodes > 0 ? QStringLiteral("path through ") : QStringLiteral("edges: ")) + m_label;
    if (m_copy) tip = m_copy->label + QLatin1Char('\n') + m_copy->reason + (tip.isEmpty() ? QString() : QLatin1Char('\n') + tip);
    setToolTip(tip);
}

void GraphEdgeItem::setCopy(const CopyNote* copy) {
    if (!copy && !m_copy) return;
    prepareGeometryChange();
    m_copy = copy ? std::optional<CopyNote>(*copy) : std::nullopt;
    if (m_copy) {  // measured once, not at every paint
        const QFontMetricsF metrics(edgeLabelFont());
        m_copyLabelAscent = metrics.ascent();
        m_copyLabelSize = QSizeF(metrics.horizontalAdvance(m_copy->label), metrics.height());
    }
    // A copy and its label are drawn above the node boxes (z 2-3): its label, placed beside the
    // edge's midpoint, often lies across the box the copy feeds, and was hidden behind it.
    setZValue(m_copy ? kCopyZ : m_role == HighlightRole::None ? 0 : 1);
    // Room for the copy's label beside the edge's midpoint.
    if (m_copy) m_bounds = m_bounds.united(mapRectFromScene(copyLabelRect()));
    updateToolTip();
    update();
}

QRectF GraphEdgeItem::copyLabelRect() const {
    if (!m_copy) return {};
    // drawText's point is the baseline's start.
    const QPointF origin = m_labelPos + QPointF(4, 4 + m_copyLabelShift);
    return mapRectToScene(
        QRectF(QPointF(origin.x(), origin.y() - m_copyLabelAscent), m_copyLabelSize));
}

void GraphEdgeItem::setCopyLabelShift(double dy) {
    if (qFuzzyCompare(1.0 + dy, 1.0 + m_copyLabelShift)) return;
    prepareGeometryChange();
    m_copyLabelShift = dy;
    if (m_copy) m_bounds = m_bounds.united(mapRectFromScene(copyLabelRect()));
    update();
}

void GraphEdgeItem::setRole(HighlightRole role) {
    if (role == m_role) return;
    m_role = role;
    setZValue(m_copy ? kCopyZ : role == HighlightRole::None ? 0 : 1);
    update();
}

void GraphEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    const double lod = levelOfDetail(painter->worldTransform());
    const QColor color = m_role == HighlightRole::None ? kEdgeColor : roleColor(m_role);
    double width = m_role == HighlightRole::None ? 1.0 : 2.2;
    if (m_edge.count > 1) width += std::min(4.0, std::log2(static_cast<double>(m_edge.count)));
    QColor c = color;
    // Long edges we route ourselves run straight across the drawing: lighter, so they do not
    // hide the nodes they cross, until the selection makes them matter.
    if (!m_routedByDot && m_role == HighlightRole::None) c.setAlpha(90);
    if (m_copy && m_role == HighlightRole::None) {
        // Copies from amber (cheap) to red (the configuration's costliest), thicker with cost.
        const double s = std::clamp(m_copy->share, 0.0, 1.0);
        c = QColor::fromRgbF(0.88 - 0.13 * s, 0.63 - 0.56 * s, 0.0 + 0.06 * s);
        width = 1.6 + 2.4 * s;
    }
    QPen pen(c, width);
    if (m_edge.collapsedNodes > 0 || m_copy) pen.setStyle(Qt::DashLine);
    if (lod < vizlimits::kDetailMinScale) {
        pen.setCosmetic(true);
        pen.setWidthF(m_role == HighlightRole::None ? 0 : 2);
        painter->setRenderHint(QPainter::Antialiasing, false);
        painter->strokePath(m_path, pen);
        return;
    }
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->strokePath(m_path, pen);
    painter->setPen(Qt::NoPen);
    painter->setBrush(c);
    painter->drawPolygon(m_arrow);
    const QString label = m_copy ? m_copy->label : m_label;
    if (!label.isEmpty() && lod >= vizlimits::kLabelMinScale) {
        painter->setFont(edgeLabelFont());
        // A copy's label lies above the boxes (setCopy): on a pale tag, so no box's text shows
        // through.
        if (m_copy)
            painter->fillRect(mapRectFromScene(copyLabelRect()).adjusted(-1, 0, 1, 0),
                              QColor(255, 255, 255, 225));
        painter->setPen(m_copy ? c.darker(130) : QColor(0x44, 0x44, 0x44));
        painter->drawText(m_copy ? m_labelPos + QPointF(4, 4 + m_copyLabelShift)
                                 : m_countLabelRect.topLeft() + QPointF(0, m_countLabelAscent),
                          label);
    }
}

}  // namespace tpg
