#pragma once

#include <QColor>
#include <QHash>
#include <QString>
#include <cstdint>
#include <vector>

#include "graph/TpuGraph.h"
#include "synth/TpuCostModel.h"

namespace tpg {

// A node's tensor as laid out under a configuration, for its label, and why it is laid out so.
struct ConfigLayout {
    QString subtitle;  // "bf16[16,256,7,7]{2,0,3,1}"
    QString why;       // "set by the configuration" / "propagated by the compiler from its operands"
};

using ConfigLayoutsByNode = QHash<int32_t, ConfigLayout>;

// A copy the compiler inserts on an edge under the configuration: what it costs and why.
struct CopyNote {
    double ns = 0;
    double share = 0;        // of the configuration's most expensive copy, for its colour
    bool transposing = false;  // changes the most-minor dimension: runs through the transpose unit
    QString label;           // "copy 35.1 us {1,3,2,0}→{2,3,0,1}"
    QString reason;          // the synthetic TPU's words
};

// Copies by (producer node, consumer node).
using CopyNotesByEdge = QHash<QPair<int32_t, int32_t>, CopyNote>;

// What the graph's nodes can be coloured by under a configuration (the cost overlay).
enum class CostMeasure { None, Total, Padding, Layout, Copies };
QString costMeasureName(CostMeasure m);  // "share of the runtime", "padding", ...

// What a configuration looks like on the graph: its layouts, its copies, and each node's costs.
struct ConfigOverlay {
    QString label;  // what it lays out: "configuration 12", "the what-if edit"
    std::vector<float> row;  // the row it lays out when none of the file's (an edit); else empty
    ConfigLayoutsByNode layouts;
    CopyNotesByEdge copies;
    // Per node (by id): its own cost plus the copies into it, its padding, its layout-preference
    // penalty, the copies into it (ns).
    std::vector<double> totalNs, paddingNs, layoutNs, copiesNs;
    double runtimeNs = 0;
    bool isEmpty() const { return layouts.isEmpty() && copies.isEmpty() && totalNs.empty(); }
    double cost(int32_t node, CostMeasure m) const;
};

// White (no cost) through amber to red (the costliest item drawn).
QColor heatColor(double fraction);
ConfigOverlay configOverlay(const TpuGraph& g, const synth::CostBreakdown& b);

// Every node whose output layout under the explained configuration (the synthetic TPU's view:
// set by the configuration, or propagated) differs from the file's default layout.
ConfigLayoutsByNode configLayouts(const TpuGraph& g, const synth::CostBreakdown& b);

}  // namespace tpg
