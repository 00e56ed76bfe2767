#pragma once

#include <QHash>
#include <QString>
#include <cstdint>

#include "graph/TpuGraph.h"
#include "synth/TpuCostModel.h"

namespace tpg {

// A node's tensor as laid out under a configuration, for its label, and why it is laid out so.
struct ConfigLayout {
    QString subtitle;  // "bf16[16,256,7,7]{2,0,3,1}"
    QString why;       // "set by the configuration" / "propagated by the compiler from its operands"
};

using ConfigLayoutsByNode = QHash<int32_t, ConfigLayout>;

// Every node whose output layout under the explained configuration (the synthetic TPU's view:
// set by the configuration, or propagated) differs from the file's default layout.
ConfigLayoutsByNode configLayouts(const TpuGraph& g, const synth::CostBreakdown& b);

}  // namespace tpg
