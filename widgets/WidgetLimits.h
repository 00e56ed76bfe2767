#pragma once

#include <cstddef>

// Every limit of the widgets layer, in one place, each with its reason.
namespace tpg::widgetlimits {

// Memory layout: tiles drawn along a side before the middle ones are summarised as "…": enough to
// see the pattern of full and partial tiles, few enough to stay legible in a dock.
constexpr int kMaxTilesDrawn = 6;
// Training charts: QLineSeries drawing cost grows with its points; beyond ~2k a curve looks the
// same at dock size.
constexpr size_t kMaxDrawnPoints = 2000;
// Training charts: a redraw of 2k-point curves takes a few ms (Qt strokes each curve's hover
// shape); ten a second look live, and a flood of batches cannot take the GUI thread.
constexpr int kRedrawIntervalMs = 100;
// A model's name in labels: a training run's folder and file name fit; a longer name keeps its
// ends, so a model chosen from a deep folder cannot widen the window past a laptop's screen.
constexpr int kModelNameMaxChars = 56;
// The dataset tree stays wide enough for this many characters of a graph's name beside its
// counts ("transformer_…" of "transformer_003"), however narrow the window.
constexpr int kGraphNameMinChars = 12;

}  // namespace tpg::widgetlimits
