#include "WrappedLayout.h"

#include <QElapsedTimer>
#include <algorithm>
#include <cmath>

namespace tpg {

namespace {

constexpr double kGapX = 48;  // room for edges between neighbours in a row
constexpr double kGapY = 56;  // and between rows
constexpr double kMargin = 24;

// Where the segment from the centre of `r` towards `to` leaves `r`.
QPointF borderPoint(const QRectF& r, const QPointF& to) {
    const QPointF c = r.center(), d = to - c;
    if (d.isNull()) return c;
    const double sx = d.x() != 0 ? (r.width() / 2) / std::abs(d.x()) : 1e9;
    const double sy = d.y() != 0 ? (r.height() / 2) / std::abs(d.y()) : 1e9;
    return c + d * std::min({sx, sy, 1.0});
}

}  // namespace

std::shared_ptr<const LayoutResult> layoutInRows(ViewGraph view, double aspect) {
    QElapsedTimer timer;
    timer.start();
    auto r = std::make_shared<LayoutResult>();
    const size_t n = view.items.size();
    double cellW = 0, cellH = 0;
    for (const ViewItem& it : view.items) {
        cellW = std::max(cellW, it.width + kGapX);
        cellH = std::max(cellH, it.height + kGapY);
    }
    // Columns so the grid's shape matches the window's.
    const double ideal = std::sqrt(static_cast<double>(n) * std::max(aspect, 0.1) * cellH / std::max(cellW, 1.0));
    const size_t columns = std::clamp<size_t>(static_cast<size_t>(std::lround(ideal)), 1, std::max<size_t>(n, 1));
    r->itemRects.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const size_t row = i / columns, inRow = i % columns;
        const size_t column = row % 2 == 0 ? inRow : columns - 1 - inRow;  // snake: neighbours stay adjacent
        const QPointF centre(kMargin + (static_cast<double>(column) + 0.5) * cellW,
                             kMargin + (static_cast<double>(row) + 0.5) * cellH);
        const ViewItem& it = view.items[i];
        r->itemRects[i] = QRectF(centre.x() - it.width / 2, centre.y() - it.height / 2, it.width, it.height);
        r->bounds = r->bounds.united(r->itemRects[i]);
    }
    r->bounds = r->bounds.adjusted(-kMargin, -kMargin, kMargin, kMargin);
    for (const ViewEdge& e : view.edges) {
        const QRectF& from = r->itemRects[static_cast<size_t>(e.producer)];
        const QRectF& to = r->itemRects[static_cast<size_t>(e.consumer)];
        const QPointF a = borderPoint(from, to.center()), b = borderPoint(to, from.center());
        r->edgePoints.push_back({a, a + (b - a) / 3, a + (b - a) * 2 / 3, b});
        r->arrowTips.push_back(b);
        r->routedByDot.push_back(true);
    }
    r->view = std::move(view);
    r->layoutThread = std::this_thread::get_id();
    r->layoutMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return r;
}

bool wrapsInRows(const ViewGraph& v) {
    return v.spec.mode == ViewMode::Groups && static_cast<int>(v.items.size()) >= vizlimits::kMinWrappedGroups &&
           std::all_of(v.items.begin(), v.items.end(),
                       [](const ViewItem& i) { return i.kind == ViewItem::Kind::Group; });
}

std::shared_ptr<const LayoutResult> layoutView(ViewGraph view, double aspect) {
    if (wrapsInRows(view)) return layoutInRows(std::move(view), aspect);
    return layoutWithGraphviz(std::move(view));
}

}  // namespace tpg
