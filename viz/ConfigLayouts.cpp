#include "ConfigLayouts.h"

#include <QSet>

#include "TensorText.h"

namespace tpg {

ConfigLayoutsByNode configLayouts(const TpuGraph& g, const synth::CostBreakdown& b) {
    ConfigLayoutsByNode out;
    if (!g.isLayout()) return out;
    QSet<int32_t> configurable;
    for (int32_t n : g.configurableNodes()) configurable.insert(n);
    for (const synth::NodeCost& cost : b.nodes) {
        TensorShape shape = tensorShape(g.nodeFeatures(cost.node), g.nodeFeatureWidth());
        if (!shape.known || cost.outputLayout.empty() || cost.outputLayout == shape.minorToMajor) continue;
        shape.minorToMajor = cost.outputLayout;
        out.insert(cost.node, {tensorString(shape), configurable.contains(cost.node)
                                                        ? QStringLiteral("set by the configuration")
                                                        : QStringLiteral("propagated by the compiler from its operands")});
    }
    return out;
}

}  // namespace tpg
