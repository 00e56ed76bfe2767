#include "ElidedLabel.h"

#include <QPainter>
#include <QStyle>

namespace tpg {

ElidedLabel::ElidedLabel(QWidget* parent) : QLabel(parent) {
    setTextFormat(Qt::PlainText);
}

QString ElidedLabel::shownText() const {
    return fontMetrics().elidedText(text(), m_elideMode, contentsRect().width());
}

void ElidedLabel::setElideMode(Qt::TextElideMode mode) {
    m_elideMode = mode;
    update();
}

QSize ElidedLabel::minimumSizeHint() const {
    // Room for the ellipsis alone: the layout may give it as little as it likes.
    return {fontMetrics().horizontalAdvance(QStringLiteral("…")),
            QLabel::minimumSizeHint().height()};
}

void ElidedLabel::paintEvent(QPaintEvent* /*event*/) {
    QPainter painter(this);
    style()->drawItemText(&painter, contentsRect(), static_cast<int>(alignment()), palette(),
                          isEnabled(), shownText(), foregroundRole());
}

}  // namespace tpg
