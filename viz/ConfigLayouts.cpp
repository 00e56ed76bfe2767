#include "ConfigLayouts.h"

#include <QSet>
#include <algorithm>

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

namespace {

QString layoutText(const std::vector<int>& l) {
    QString s = QStringLiteral("{");
    for (size_t i = 0; i < l.size(); ++i) s += (i ? QStringLiteral(",") : QString()) + QString::number(l[i]);
    return s + QLatin1Char('}');
}

QString durationText(double ns) {
    return ns >= 1e6 ? QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 2)
           : ns >= 1e3 ? QStringLiteral("%1 us").arg(ns / 1e3, 0, 'f', 1)
                       : QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
}

}  // namespace

ConfigOverlay configOverlay(const TpuGraph& g, const synth::CostBreakdown& b) {
    ConfigOverlay o;
    o.layouts = configLayouts(g, b);
    double most = 0;
    for (const synth::EdgeCost& e : b.copies) most = std::max(most, e.copyNs);
    for (const synth::EdgeCost& e : b.copies) {
        CopyNote n;
        n.ns = e.copyNs;
        n.share = most > 0 ? e.copyNs / most : 0;
        n.transposing = !e.fromLayout.empty() && !e.toLayout.empty() && e.fromLayout[0] != e.toLayout[0];
        n.label = QStringLiteral("copy %1 %2→%3%4")
                      .arg(durationText(e.copyNs), layoutText(e.fromLayout), layoutText(e.toLayout),
                           n.transposing ? QStringLiteral(" (transpose)") : QString());
        n.reason = QString::fromStdString(e.reason);
        o.copies.insert({e.producer, e.consumer}, n);
    }
    return o;
}

}  // namespace tpg
