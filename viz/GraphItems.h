#pragma once

#include <QGraphicsItem>
#include <QPainterPath>
#include <QString>
#include <optional>

#include "ConfigLayouts.h"
#include "OpCategory.h"
#include "ViewGraph.h"

namespace tpg {

// How an item relates to the selected node.
enum class HighlightRole { None, Selected, Producer, Consumer };

// The scale an item is drawn at under `worldTransform`, as the level-of-detail thresholds
// (vizlimits) read it: Qt's figure rounded to 1e-6, since a view's scroll offset adds rounding
// error (a zoom of exactly 0.45 came out a hair below, 0.449999999999..., and lost its labels).
double levelOfDetail(const QTransform& worldTransform);

// One box of a view: a graph node, a "+N more" summary, or a collapsed computation. Paints with
// level of detail: plain boxes without antialiasing when zoomed far out, labels only when legible.
class GraphNodeItem : public QGraphicsItem {
public:
    // A computation or a group of the program view: a box that opens on double-click.
    bool isGroupBox() const {
        return m_item.kind == ViewItem::Kind::Computation || m_item.kind == ViewItem::Kind::Group;
    }
    enum { Type = UserType + 1 };

    GraphNodeItem(const ViewItem& item, int index, const QRectF& rect, bool configurable);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const ViewItem& viewItem() const { return m_item; }
    int index() const { return m_index; }
    int32_t node() const { return m_item.kind == ViewItem::Kind::Node ? m_item.node : -1; }
    bool isConfigurable() const { return m_configurable; }
    void setFillColor(const QColor& c);
    // The cost overlay's colour, drawn instead of the fill (an invalid colour: none).
    void setHeatColor(const QColor& c);
    QColor fillColor() const { return m_heat.isValid() ? m_heat : m_fill; }

    void setRole(HighlightRole role);
    HighlightRole role() const { return m_role; }
    // "" clears: the node's layouts in the chosen config (a box: those of the nodes inside).
    void setMark(const QString& description);
    // The tensor as laid out under the configuration in view ("bf16[16,256,7,7]{2,0,3,1}") and
    // why ("set by the configuration", "propagated by the compiler"); "" shows the file's default.
    void setConfigLayout(const QString& subtitle, const QString& why);
    QString shownSubtitle() const { return m_configSubtitle.isEmpty() ? m_item.subtitle : m_configSubtitle; }
    bool isMarked() const { return !m_mark.isEmpty(); }
    // The flat colour a node is drawn in when zoomed far out (labels and outlines dropped).
    QColor farColor() const;
    void setSearchMatch(bool match);
    bool isSearchMatch() const { return m_searchMatch; }
    // Selected in What-if beside the chosen node (an edit there goes to it too); a box: how many
    // of the nodes inside are.
    void setAlsoSelected(int64_t nodes);
    bool isAlsoSelected() const { return m_alsoSelected > 0; }

private:
    void drawFarLabel(QPainter* painter, double lod, const QColor& fill) const;  // on `fill`
    void drawHalo(QPainter* painter) const;
    void drawBox(QPainter* painter, const QColor& fill) const;
    void drawBadges(QPainter* painter, double lod) const;
    void drawLabels(QPainter* painter, const QColor& fill) const;
    void updateToolTip();

    ViewItem m_item;
    int m_index;
    QRectF m_rect;  // local, centred on the origin
    QColor m_fill;
    QColor m_heat;
    bool m_configurable;
    HighlightRole m_role = HighlightRole::None;
    QString m_mark;
    QString m_configSubtitle, m_configWhy;
    bool m_searchMatch = false;
    int64_t m_alsoSelected = 0;
};

// An arrow from producer to consumer along dot's spline (or our own curve for long edges).
class GraphEdgeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };

    GraphEdgeItem(const ViewEdge& edge, int index, const std::vector<QPointF>& points,
                  const QPointF& tip, bool routedByDot);

    int type() const override { return Type; }
    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    const ViewEdge& viewEdge() const { return m_edge; }
    int index() const { return m_index; }
    void setRole(HighlightRole role);  // Producer: feeds the selection; Consumer: reads it
    HighlightRole role() const { return m_role; }
    // A copy the configuration in view inserts on this edge (null clears): drawn dashed, coloured
    // by its cost (`share` of the costliest copy), labelled with its cost and layouts.
    void setCopy(const CopyNote* copy);
    bool isCopy() const { return m_copy.has_value(); }
    // Where the copy's label is drawn (scene coordinates; empty without a copy), and a move of it
    // by `dy` down from its place beside the edge's midpoint, so labels clear each other.
    QRectF copyLabelRect() const;
    // Where the count ("×3") or collapsed-path ("12 ops") label is drawn, in scene coordinates
    // (empty without one): beside the edge's midpoint, clear of the line.
    QRectF countLabelRect() const { return mapRectToScene(m_countLabelRect); }
    void setCopyLabelShift(double dy);
    double copyLabelShift() const { return m_copyLabelShift; }

private:
    static constexpr double kCopyZ = 4;  // above every node box (2, or 3 highlighted)
    void updateToolTip();
    ViewEdge m_edge;
    int m_index;
    QPainterPath m_path;
    QPolygonF m_arrow;
    QPointF m_labelPos;
    QRectF m_countLabelRect;  // item coordinates
    double m_countLabelAscent = 0;
    double m_copyLabelShift = 0;
    QSizeF m_copyLabelSize;        // the copy's label as drawn
    double m_copyLabelAscent = 0;  // of its font: drawText places the baseline
    QString m_label;
    QRectF m_bounds;
    bool m_routedByDot;
    HighlightRole m_role = HighlightRole::None;
    std::optional<CopyNote> m_copy;
};

}  // namespace tpg
