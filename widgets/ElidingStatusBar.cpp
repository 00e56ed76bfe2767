#include "ElidingStatusBar.h"

#include <QEvent>
#include <QSizeGrip>
#include <algorithm>

namespace tpg {

namespace {

// QStatusBar's own message margins (6 px before the text, 12 px at the right edge when there is
// no permanent widget) and a gap before the first permanent widget wide enough that an elided
// message does not read on into its label (Qt leaves 2 px).
constexpr int kLeftMargin = 6;
constexpr int kWidgetGap = 16;
constexpr int kRightMargin = 12;

}  // namespace

ElidingStatusBar::ElidingStatusBar(QWidget* parent) : QStatusBar(parent) {}

void ElidingStatusBar::setMessage(const QString& text) {
    m_message = text;
    showElided();
}

bool ElidingStatusBar::event(QEvent* event) {
    const bool handled = QStatusBar::event(event);
    // Geometry is settled by then: the layout handles a LayoutRequest before the widget does.
    if (event->type() == QEvent::LayoutRequest || event->type() == QEvent::Resize) showElided();
    return handled;
}

int ElidingStatusBar::messageRoom() const {
    int right = width() - kRightMargin;
    for (const QWidget* child : findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
        if (child->isVisible() && qobject_cast<const QSizeGrip*>(child) == nullptr)
            right = std::min(right, child->x() - kWidgetGap);
    return std::max(0, right - kLeftMargin);
}

void ElidingStatusBar::showElided() {
    if (m_message.isEmpty()) {
        if (!currentMessage().isEmpty()) clearMessage();
        setToolTip(QString());
        return;
    }
    const QString shown = fontMetrics().elidedText(m_message, Qt::ElideRight, messageRoom());
    if (shown != currentMessage()) showMessage(shown);
    setToolTip(shown == m_message ? QString() : m_message);
}

}  // namespace tpg
