#include "ElidingStatusBar.h"

#include <QEvent>
#include <QLayout>
#include <QSizeGrip>
#include <algorithm>
#include <numeric>

#include "ElidedLabel.h"
#include "WidgetLimits.h"

namespace tpg {

namespace {

// QStatusBar's own message margins (6 px before the text, 12 px at the right edge when there is
// no permanent widget) and a gap before the first permanent widget wide enough that an elided
// message does not read on into its label (Qt leaves 2 px).
constexpr int kLeftMargin = 6;
constexpr int kWidgetGap = 16;
constexpr int kRightMargin = 12;

}  // namespace

// Max-min fair: a label that wants less than an equal share is whole, the others split what it
// leaves. In proportion to their texts, a file's long summary had cut the model's short name to
// "Model: bui…ault model".
std::vector<int> fairShares(const std::vector<int>& wanted, int room) {
    std::vector<size_t> order(wanted.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return wanted[a] < wanted[b]; });
    std::vector<int> shares(wanted.size(), 0);
    int left = std::max(0, room);
    for (size_t k = 0; k < order.size(); ++k) {
        const int equal = left / static_cast<int>(order.size() - k);
        shares[order[k]] = std::min(wanted[order[k]], equal);
        left -= shares[order[k]];
    }
    return shares;
}

ElidingStatusBar::ElidingStatusBar(QWidget* parent) : QStatusBar(parent) {}

void ElidingStatusBar::setMessage(const QString& text) {
    m_message = text;
    showElided();
}

bool ElidingStatusBar::event(QEvent* event) {
    const bool handled = QStatusBar::event(event);
    // Geometry is settled by then: the layout handles a LayoutRequest before the widget does.
    if (event->type() == QEvent::LayoutRequest || event->type() == QEvent::Resize) {
        fitElidedLabels();
        showElided();
    }
    return handled;
}

void ElidingStatusBar::fitElidedLabels() {
    QList<ElidedLabel*> labels;
    std::vector<int> wanted;
    // What is not cut: the progress bar, the size grip, and the gaps between them.
    const int gap = layout() != nullptr ? std::max(0, layout()->spacing()) : 0;
    int others = 0;
    for (QWidget* child : findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) {
        if (child->isHidden()) continue;
        others += gap;
        if (auto* label = qobject_cast<ElidedLabel*>(child)) {
            labels << label;
            wanted.push_back(label->sizeHint().width());
        } else {
            others += std::max(child->sizeHint().width(), child->minimumWidth());
        }
    }
    const int room =
        std::max(0, static_cast<int>(width() * widgetlimits::kStatusLabelsMaxShare) - others);
    const std::vector<int> shares = fairShares(wanted, room);
    for (int i = 0; i < labels.size(); ++i) {
        const int cap = shares[i] >= wanted[i]
                            ? QWIDGETSIZE_MAX
                            : std::max(labels[i]->minimumSizeHint().width(), shares[i]);
        if (labels[i]->maximumWidth() != cap) labels[i]->setMaximumWidth(cap);
    }
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
