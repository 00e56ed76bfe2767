#pragma once

// Test support: whether What-if's node list shows `row`'s layouts on every node (the list as the
// panel builds it: the node's id in column 0's UserRole, output / input / kernel in columns 2-4).
#include <QTreeWidget>
#include <vector>

#include "graph/TpuGraph.h"
#include "whatif/ConfigEdit.h"

inline bool nodeListShowsLayouts(const QTreeWidget& list, const tpg::TpuGraph& g,
                                 const std::vector<float>& row) {
    if (list.topLevelItemCount() != static_cast<int>(g.numConfigurable())) return false;
    for (int i = 0; i < list.topLevelItemCount(); ++i) {
        const QTreeWidgetItem* item = list.topLevelItem(i);
        const int32_t node = item->data(0, Qt::UserRole).toInt();
        for (int s = 0; s < 3; ++s)
            if (item->text(2 + s).toStdString() !=
                tpg::whatif::layoutText(
                    tpg::whatif::layoutOf(g, row, node, static_cast<tpg::whatif::LayoutSlot>(s))))
                return false;
    }
    return true;
}
