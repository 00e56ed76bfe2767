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
// Status bar: its permanent widgets (the file's summary and the model, cut to fit, and the
// progress bar) take at most this share of its width; the message keeps the rest. Whole, a real nlp
// file's name and a training run's model had made the window 1,049 px wide, wider than a
// projector's screen.
constexpr double kStatusLabelsMaxShare = 0.6;
// The dataset tree stays wide enough for this many characters of a graph's name beside its
// counts ("transformer_…" of "transformer_003"), however narrow the window.
constexpr int kGraphNameMinChars = 12;
// What-if: a value box keeps room for 12 characters, so "0 (whole)" and a rank-5 layout such as
// "{3,2,1,0,4}" read whole however narrow its column (a layout's "(sizes ...)" may be elided).
constexpr int kValueBoxMinChars = 12;
// What-if: the node list takes the width of its columns up to this share of the panel, so on a
// laptop's screen its layouts read whole and the editor and the runs keep the rest.
constexpr double kWhatIfNodeListMaxShare = 0.4;
// Configurations: the table takes the width of its columns up to this share of the panel; the
// chosen configuration's layouts keep the rest.
constexpr double kConfigTableMaxShare = 0.65;
// ... on a tile file, whose two more columns would be cut at 65% on a 1366-px screen, beside
// details of 24 short name-value rows.
constexpr double kTileConfigTableMaxShare = 0.8;
// Configurations: where the table would list fewer rows than this under the full runtime
// histogram, the histogram shrinks to a strip, so a short dock (a 1024 x 600 screen's) still lists
// a handful of configurations.
constexpr int kConfigTableMinRows = 6;
// A job's time left is estimated once this share of it is done and this many seconds have
// passed: before, a file's header and a phase's set-up weigh too much in it.
constexpr double kRemainingTimeMinFraction = 0.01;
constexpr double kRemainingTimeMinSeconds = 2.0;
// A prediction, the what-if editor or a configuration's details, waiting for a file's
// configurations to decompress, say how far they are this often: the percentage moves smoothly,
// and the wait costs nothing measurable.
constexpr int kDecodeProgressPollMs = 100;
// Graph toolbar: the search box keeps room for this many characters ("Find node: id" of its
// hint), and the view and colour boxes give way down to this many, in a narrow graph panel.
constexpr int kSearchBoxMinChars = 14;
constexpr int kToolbarBoxMinChars = 11;
// Configuration filter: a ratio to the best above this is almost certainly a runtime typed
// without its unit.
constexpr double kFilterMaxRatio = 100;
// Explain: nodes and copies listed, the ones that explain most of a runtime.
constexpr size_t kExplainListed = 25;
// Explain: each list takes the width of its short columns (all but the reason) up to this share
// of the lists' pane, so the memory picture beside them keeps a quarter, room for its tensor line.
constexpr double kExplainListMaxShare = 0.37;
// Node inspector: more operands/users than this are listed as a count, so a hub node does not
// fill the tree.
constexpr int kMaxListedNeighbours = 200;
// Sweep chart: more bars than this are unreadable; the best ones are drawn, and the title says so.
constexpr size_t kSweepMaxBars = 48;
// Dataset tree: files whose counts are sent to the GUI at once.
constexpr int kCountBatchFiles = 32;
// Arrow keys in the dataset tree open the graph they rest on after this pause: a key held down
// passes files without loading each.
constexpr int kBrowseOpenDelayMs = 250;
// Training charts: epoch dots merge into a thick line beyond this many epochs across a dock; the
// line alone then.
constexpr size_t kMaxEpochDots = 60;
// Training charts: a value axis' labels this many pixels apart at least; closer, Qt Charts elides
// them all to "..." (a short dock on a laptop's screen), so a short chart gets fewer ticks.
constexpr double kMinTickSpacingPx = 28;
// Training charts: a chart is never shorter than this (title, plot, axis, legend); they stand one
// above the other only where each gets kStackedChartMinHeight, else side by side, so the Training
// tab needs no more height than the tabs beside it (a 1366 x 768 window's raised Training tab had
// grown the docks 43 px, moving the tab row from under the mouse and shrinking the graph).
constexpr int kChartMinHeight = 150;
constexpr int kStackedChartMinHeight = 200;
// What-if's Suggest page: its list may shrink to this many rows (a tree's own minimum is about
// four), so the What-if tab fits half a 1366 x 768 window without scrolling.
constexpr int kSuggestionListMinRows = 2;
// Search results: the list at most this tall, and at most this share of the graph panel, so the
// drawing keeps most of the room on a short screen.
constexpr int kResultsMaxHeight = 160;
constexpr int kResultsMaxPanelShare = 3;  // a third

}  // namespace tpg::widgetlimits
