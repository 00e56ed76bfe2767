#include "WrappedLabel.h"

#include <QResizeEvent>
#include <algorithm>

namespace tpg {

WrappedLabel::WrappedLabel(QWidget* parent) : QLabel(parent) {
    setWordWrap(true);
}

QSize WrappedLabel::minimumSizeHint() const {
    QSize least = QLabel::minimumSizeHint();
    // A hidden label (a tab not shown) keeps a stale width, often the default 100 px.
    if (isVisible() && width() > 0)
        least.setHeight(std::max(least.height(), heightForWidth(width())));
    return least;
}

void WrappedLabel::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    // Another width wraps the text into another number of lines.
    if (event->size().width() != event->oldSize().width()) updateGeometry();
}

}  // namespace tpg
