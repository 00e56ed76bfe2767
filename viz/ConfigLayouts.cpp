#include "ConfigLayouts.h"

#include <algorithm>

#include "TensorText.h"
#include "explain/CostExplanation.h"

namespace tpg {

ConfigLayoutsByNode configLayouts(const TpuGraph& g, const synth::CostBreakdown& b) {
    ConfigLayoutsByNode out;
    if (!g.isLayout()) return out;
    for (const synth::NodeCost& cost : b.nodes) {
        TensorShape shape = tensorShape(g.nodeFeatures(cost.node), g.nodeFeatureWidth());
        if (!shape.known || cost.outputLayout.empty() || cost.outputLayout == shape.minorToMajor) continue;
        shape.minorToMajor = cost.outputLayout;
        out.insert(cost.node, {tensorString(shape), g.isConfigurable(cost.node)
                                                        ? QStringLiteral("set by the configuration")
                                                        : QStringLiteral("propagated by the compiler from its operands")});
    }
    return out;
}

QString costMeasureName(CostMeasure m) {
    switch (m) {
        case CostMeasure::Total: return QStringLiteral("share of the runtime");
        case CostMeasure::Padding: return QStringLiteral("padding");
        case CostMeasure::Layout: return QStringLiteral("layout preference");
        case CostMeasure::Copies: return QStringLiteral("copies");
        case CostMeasure::None: break;
    }
    return QStringLiteral("op category");
}

double ConfigOverlay::cost(int32_t node, CostMeasure m) const {
    const auto i = static_cast<size_t>(node);
    if (node < 0 || i >= totalNs.size()) return 0;
    switch (m) {
        case CostMeasure::Total: return totalNs[i];
        case CostMeasure::Padding: return paddingNs[i];
        case CostMeasure::Layout: return layoutNs[i];
        case CostMeasure::Copies: return copiesNs[i];
        case CostMeasure::None: break;
    }
    return 0;
}

QColor heatColor(double fraction) {
    const double f = std::clamp(fraction, 0.0, 1.0);
    // White -> amber (#ffb300) over the first half, amber -> deep red (#b71c1c) over the second.
    if (f < 0.5) {
        const double t = f / 0.5;
        return QColor::fromRgbF(1.0, 1.0 - t * (1.0 - 0.70), 1.0 - t);
    }
    const double t = (f - 0.5) / 0.5;
    return QColor::fromRgbF(1.0 - t * (1.0 - 0.72), 0.70 - t * (0.70 - 0.11), 0.11 * t);
}

ConfigOverlay configOverlay(const TpuGraph& g, const synth::CostBreakdown& b) {
    ConfigOverlay o;
    o.layouts = configLayouts(g, b);
    o.runtimeNs = b.totalNs;
    // Tile kernels too: their nodes' compute and padding, and copies where the file's layouts
    // disagree (a tile's own launch and traffic terms belong to no node).
    const auto n = static_cast<size_t>(g.numNodes());
    o.totalNs.assign(n, 0);
    o.paddingNs.assign(n, 0);
    o.layoutNs.assign(n, 0);
    o.copiesNs.assign(n, 0);
    for (const synth::NodeCost& c : b.nodes) {
        const auto i = static_cast<size_t>(c.node);
        o.totalNs[i] += c.totalNs();
        o.paddingNs[i] = c.paddingNs;
        o.layoutNs[i] = c.layoutNs;
    }
    for (const synth::EdgeCost& e : b.copies) {
        o.totalNs[static_cast<size_t>(e.consumer)] += e.copyNs;
        o.copiesNs[static_cast<size_t>(e.consumer)] += e.copyNs;
    }
    double most = 0;
    for (const synth::EdgeCost& e : b.copies) most = std::max(most, e.copyNs);
    for (const synth::EdgeCost& e : b.copies) {
        CopyNote n;
        n.ns = e.copyNs;
        n.share = most > 0 ? e.copyNs / most : 0;
        n.transposing = explain::isTransposing(e);
        n.label = QStringLiteral("copy %1 %2→%3%4")
                      .arg(QString::fromStdString(explain::nsText(e.copyNs)),
                           QString::fromStdString(explain::layoutText(e.fromLayout)),
                           QString::fromStdString(explain::layoutText(e.toLayout)),
                           n.transposing ? QStringLiteral(" (transpose)") : QString());
        n.reason = QString::fromStdString(e.reason);
        o.copies.insert({e.producer, e.consumer}, n);
    }
    return o;
}

}  // namespace tpg
