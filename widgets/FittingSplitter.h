#pragma once

#include <QList>
#include <QSplitter>

class QAbstractScrollArea;
class QHeaderView;
#include <functional>
#include <optional>

namespace tpg {

// A horizontal splitter whose panes take the widths they want (a list its columns', an editor
// its hint), each up to a share of the splitter, and whose last pane takes the rest, on every
// resize, until the user drags a handle: from then on the dragged widths stay and the last pane
// takes any change. The last pane keeps its minimum width: the panes before it give way from the
// last one back. Qt's own split shares space by stretch factors from size hints, which left
// a list's columns off to the right while a pane of empty space beside it took the most.
class FittingSplitter : public QSplitter {
    Q_OBJECT
public:
    explicit FittingSplitter(QWidget* parent = nullptr);

    // The width pane `index` (not the last) wants, asked at every fit; at most `maxShare` of the
    // splitter's width.
    void setWantedWidth(int index, std::function<int()> wanted, double maxShare = 1.0);
    // Applies the wanted (or dragged) widths now: after the wanted widths changed.
    void fit();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    static int minimumWidthOf(const QWidget& pane);
    struct Wanted {
        std::function<int()> width;
        double maxShare = 1.0;
    };
    QList<Wanted> m_wanted;               // by pane; the last pane's is unused
    std::optional<QList<int>> m_dragged;  // the panes' widths as the user left them
};

// The width a list or table needs to show `columns` px of columns whole: its frame and its
// vertical scroll bar besides.
int widthForColumns(const QAbstractScrollArea& view, int columns);

// Runs `sizeColumns` (which sizes a view's columns and returns their total width) with the
// header's last section unstretched: a stretched last section never gets narrower than it was
// when the stretch began (Qt's lastSectionSize), so widths read with the stretch on overstate
// the columns, and a table fitted to them cut its last one ("Ran").
int sizeColumnsUnstretched(QHeaderView& header, const std::function<int()>& sizeColumns);

}  // namespace tpg
