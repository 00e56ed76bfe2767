#pragma once

#include <QScrollArea>

namespace tpg {

// A scroll area that scrolls its content up and down only.
// - It is as wide as the content's minimum beside the vertical bar, so the content never scrolls
//   sideways (a scroll area's own hint leaves that bar out).
// - It asks for no more height than the bar needs, so the panel around it does not grow with the
//   content's wrapped text (a what-if report of one more line grew the docks and moved the tab row
//   from under the mouse).
// - The content is as tall as the view or, when that is less, as its minimum at the view's width:
//   a resizable QScrollArea makes content with wrapped text as tall as it would like to be, and
//   scrolled lists that could have shrunk.
class VerticalScrollArea : public QScrollArea {
    Q_OBJECT
public:
    explicit VerticalScrollArea(QWidget* content, QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    bool viewportEvent(QEvent* event) override;

private:
    void fitContent();
};

}  // namespace tpg
