#include "VerticalScrollArea.h"

#include <QEvent>
#include <QLayout>
#include <QStyle>
#include <algorithm>

namespace tpg {

VerticalScrollArea::VerticalScrollArea(QWidget* content, QWidget* parent) : QScrollArea(parent) {
    setWidget(content);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    content->installEventFilter(this);
}

QSize VerticalScrollArea::minimumSizeHint() const {
    const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
    return {widget()->minimumSizeHint().width() + bar + 2 * frameWidth(),
            QScrollArea::minimumSizeHint().height()};
}

void VerticalScrollArea::fitContent() {
    QWidget* content = widget();
    const int width = viewport()->width();
    const QLayout* layout = content->layout();
    int least = content->minimumSizeHint().height();
    if (layout && layout->hasHeightForWidth()) least = layout->totalMinimumHeightForWidth(width);
    const QSize fitted(width, std::max(viewport()->height(), least));
    if (content->size() != fitted) content->resize(fitted);
}

bool VerticalScrollArea::eventFilter(QObject* watched, QEvent* event) {
    if (watched == widget() && event->type() == QEvent::LayoutRequest) {
        updateGeometry();  // its minimum width may have moved
        fitContent();
    }
    return QScrollArea::eventFilter(watched, event);
}

bool VerticalScrollArea::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::Resize) fitContent();  // the window, or the bar coming or going
    return QScrollArea::viewportEvent(event);
}

}  // namespace tpg
