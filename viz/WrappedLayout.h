#pragma once

#include <memory>

#include "GraphvizLayout.h"

namespace tpg {

// A view of boxes only (the program's closed groups) arranged in rows that wrap to `aspect`
// (width / height of the window), in id order, snaking so consecutive groups stay side by side;
// edges drawn straight. dot would draw a long chain of groups as one thin column that Fit
// shrinks to a hairline. No Graphviz: any thread.
std::shared_ptr<const LayoutResult> layoutInRows(ViewGraph view, double aspect);

// A program view of closed groups only, long enough (kMinWrappedGroups) that dot's single column
// would be a hairline at Fit: laid out in rows instead.
bool wrapsInRows(const ViewGraph& view);

// The layout the explorer uses for `view`: rows for wrapping views, else dot (layout thread only).
std::shared_ptr<const LayoutResult> layoutView(ViewGraph view, double aspect);

}  // namespace tpg
