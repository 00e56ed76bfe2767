#include "FittingSplitter.h"

#include <QAbstractScrollArea>
#include <QHeaderView>
#include <QScrollBar>
#include <algorithm>
#include <numeric>

namespace tpg {

FittingSplitter::FittingSplitter(QWidget* parent) : QSplitter(Qt::Horizontal, parent) {
    connect(this, &QSplitter::splitterMoved, this, [this] { m_dragged = sizes(); });
}

void FittingSplitter::setWantedWidth(int index, std::function<int()> wanted, double maxShare) {
    if (index < 0) return;
    while (m_wanted.size() <= index) m_wanted.append(Wanted{});
    m_wanted[index] = {std::move(wanted), maxShare};
}

void FittingSplitter::fit() {
    const int panes = count();
    const int total = width() - (panes - 1) * handleWidth();
    if (panes < 2 || total <= 0) return;
    QList<int> widths(panes, 0);
    for (int i = 0; i + 1 < panes; ++i) {
        if (m_dragged) {
            widths[i] = m_dragged->value(i);
        } else if (i < m_wanted.size() && m_wanted[i].width) {
            widths[i] =
                std::min(m_wanted[i].width(), static_cast<int>(total * m_wanted[i].maxShare));
        } else {
            widths[i] = sizes().value(i);
        }
    }
    // The last pane keeps its minimum width; the panes before it give way from the last one back,
    // so the first pane stays whole where Qt's split would have cut every pane a little.
    int deficit = minimumWidthOf(*widget(panes - 1)) -
                  (total - std::accumulate(widths.begin(), widths.end() - 1, 0));
    for (int i = panes - 2; i >= 0 && deficit > 0; --i) {
        const int give = std::clamp(widths[i] - minimumWidthOf(*widget(i)), 0, deficit);
        widths[i] -= give;
        deficit -= give;
    }
    widths[panes - 1] = std::max(0, total - std::accumulate(widths.begin(), widths.end() - 1, 0));
    setSizes(widths);  // the splitter still keeps every pane at least at its minimum width
}

int FittingSplitter::minimumWidthOf(const QWidget& pane) {
    // As a layout reads it: a minimum set on the widget wins over its hint.
    return pane.minimumWidth() > 0 ? pane.minimumWidth()
                                   : std::max(0, pane.minimumSizeHint().width());
}

void FittingSplitter::resizeEvent(QResizeEvent* event) {
    QSplitter::resizeEvent(event);
    fit();
}

int widthForColumns(const QAbstractScrollArea& view, int columns) {
    return columns + view.verticalScrollBar()->sizeHint().width() + 2 * view.frameWidth();
}

int sizeColumnsUnstretched(QHeaderView& header, const std::function<int()>& sizeColumns) {
    const bool stretched = header.stretchLastSection();
    header.setStretchLastSection(false);
    const int width = sizeColumns();
    header.setStretchLastSection(stretched);
    return width;
}

}  // namespace tpg
