#pragma once

#include <cstdint>

// Every limit of the viz layer, in one place, each with its reason.
namespace tpg::vizlimits {

// dot's crossing minimisation grows much faster than linearly: ~1,200 HLO nodes lay out in a few
// seconds on one core; beyond that a view is cut to this many nodes (with a visible note).
constexpr int kMaxLayoutNodes = 1200;
// Graphs up to this size open whole; bigger ones open on the program view (NodeHierarchy), since
// Fit on a few hundred nodes in one column already shrinks the labels below legibility.
constexpr int kWholeGraphMaxNodes = 300;
// Users (or operands) drawn per node; the rest are summarised in one item, so a broadcast
// parameter with 3,000 users does not swamp the layout.
constexpr int kMaxFanOut = 16;
// Edges spanning more ranks than this are drawn by us, not routed by dot: each rank spanned adds
// a virtual node to dot's crossing minimisation, which is what makes long-range HLO edges slow.
constexpr int kMaxDotEdgeSpan = 8;
// Edges dot routes per view: dense views (a skeleton joins each configurable node to up to 16
// others) cost dot minutes at 6,000 edges; beyond the budget the longest edges are ours to draw.
constexpr int kMaxDotEdges = 2 * kMaxLayoutNodes;
// Neighbourhood views: default and largest hop count offered.
constexpr int kDefaultHops = 2;
constexpr int kMaxHops = 8;
// Skeleton: nodes a path search may walk from one configurable node before giving up on finding
// more configurable producers (bounds the skeleton build on 45,000-node graphs).
constexpr int kMaxSkeletonWalk = 20000;
// Computation overview: computations drawn as boxes before the rest are cut.
constexpr int kMaxComputationBoxes = 600;
// Finished layouts kept for instant switching back (each holds at most kMaxLayoutNodes items).
constexpr int kLayoutCacheEntries = 24;
// Splines look best but cost time on big views; above this many nodes dot draws polylines.
constexpr int kMaxSplineNodes = 400;
// dot's crossing-minimisation effort (mclimit) and network-simplex iterations (nslimit) on big
// views.
constexpr double kBigViewMcLimit = 0.3;
constexpr double kBigViewNsLimit = 2.0;
// Level of detail (view scale) below which labels are illegible and not drawn.
constexpr double kLabelMinScale = 0.45;
// A drawing shown whole only below the label scale opens at the label scale instead when its fit
// is at least this share of it: a scroll of up to 1/0.6 of the view beats boxes without text.
constexpr double kReadableFitMinShare = 0.6;
// A drawing fitted whole below the label scale that spans less than this share of the view across
// is a strip (a long chain): it opens filling the view across, from its start, not as a hairline.
constexpr double kStripMaxShare = 0.25;
// A copy's label moves up or down at most this many lines to clear the labels placed before it
// and the node boxes (two copies into one node had their labels drawn over each other); beyond,
// it stays near its edge.
constexpr int kCopyLabelMaxShifts = 6;
// Below this scale nodes are drawn as plain boxes without antialiasing (like Qt's chip demo).
constexpr double kDetailMinScale = 0.25;
// Far out, a group box's title is drawn this tall on screen, if the box is at least this wide.
constexpr double kFarLabelPixels = 11;
constexpr double kFarLabelMinPixels = 36;
// Going to a node (search, inspector) or into an opened group: below kFocusMinZoom the view zooms
// to kFocusZoom, where labels read comfortably.
constexpr double kFocusMinZoom = 0.6;
constexpr double kFocusZoom = 0.8;
// Zoom range of the graph view.
constexpr double kMinZoom = 0.01;
// One step of Zoom In / Zoom Out (toolbar, View menu); the wheel zooms by its own angle.
constexpr double kZoomStep = 1.25;
constexpr double kMaxZoom = 8.0;
// PNG export: at most this many pixels (16 M: a 4,000 x 4,000 page, 64 MB of ARGB, which image
// viewers and Qt's own reader, limited to 256 MB, still open), scaled down beyond.
constexpr int64_t kMaxExportPixels = int64_t{16} << 20;
// Job progress is reported to the GUI at most this often (ms), so a chatty job cannot flood it.
constexpr int kProgressIntervalMs = 50;
// The grouped program view (NodeHierarchy): a block holds at most this many nodes, so opening one
// adds a readable amount at once; consecutive layers are packed to at least the target size.
constexpr int64_t kMaxBlockNodes = 150;
constexpr int64_t kTargetBlockNodes = 40;
// Groups shown side by side at one level; more are gathered into ranges ("blocks 1–48").
constexpr int kMaxGroupChildren = 48;
// A box's tooltip lists this many of the marked nodes inside, then counts the rest.
constexpr int kMaxBoxMarksListed = 4;
// Items the grouped view sends to dot at once (about a second of layout); opening a group beyond
// it closes the groups opened longest ago.
constexpr int kMaxGroupViewItems = 500;
// A view of closed groups only is arranged in rows (wrapped to the window's aspect) once it holds
// more than this many: dot would draw a long chain as one thin column.
constexpr int kMinWrappedGroups = 8;
// Search results offered in the completer before the list is cut.
constexpr int kMaxSearchMatches = 500;

}  // namespace tpg::vizlimits
