#pragma once

#include <QMetaType>
#include <QPointF>
#include <QRectF>
#include <memory>
#include <thread>
#include <vector>

#include "ViewGraph.h"

namespace tpg {

// A laid-out view, in scene coordinates (points, y down). Plain data: built on the layout
// thread, drawn on the GUI thread.
struct LayoutResult {
    ViewGraph view;
    std::vector<QRectF> itemRects;  // per view item
    // Per view edge, producer -> consumer: cubic Bezier control points (1 + 3k), as dot routes
    // them, and the arrow tip at the consumer.
    std::vector<std::vector<QPointF>> edgePoints;
    std::vector<QPointF> arrowTips;
    std::vector<bool> routedByDot;  // false: a long edge we route ourselves (see kMaxDotEdgeSpan)
    QRectF bounds;
    double layoutMs = 0;           // time spent in dot
    std::thread::id layoutThread;  // where Graphviz ran (tests check it is the layout runner)
};

// Lays `view` out with Graphviz dot (top to bottom: producers above consumers).
// Graphviz (cgraph, gvc) is not thread-safe: the application calls this only from its one
// layout JobRunner; a process-wide mutex additionally serialises calls. Throws std::runtime_error
// if Graphviz fails.
std::shared_ptr<const LayoutResult> layoutWithGraphviz(ViewGraph view);

// The .dot text dot would receive for `view` (same attributes), for benchmarks and debugging.
std::string toDot(const ViewGraph& view);

}  // namespace tpg

Q_DECLARE_METATYPE(std::shared_ptr<const tpg::LayoutResult>)
