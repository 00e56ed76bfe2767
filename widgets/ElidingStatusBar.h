#pragma once

#include <QStatusBar>
#include <vector>

namespace tpg {

// How `room` pixels are split between labels that want `wanted` pixels each: whole where they
// want less than an equal share, the rest split evenly among the others.
std::vector<int> fairShares(const std::vector<int>& wanted, int room);

// A status bar whose message is elided to the room its permanent widgets leave, with the whole
// message as the bar's tooltip. QStatusBar draws a long message on under them, cut mid-word
// ("… drawn · layout 2 resnet_001 · layout · 788 nodes"); here it is re-elided whenever the bar or
// its permanent widgets change size. Its permanent ElidedLabels share at most
// widgetlimits::kStatusLabelsMaxShare of its width (fairShares), so that neither they nor the
// message can widen the window.
class ElidingStatusBar : public QStatusBar {
    Q_OBJECT
public:
    explicit ElidingStatusBar(QWidget* parent = nullptr);
    // Shows `text` until the next message (no timeout), elided as needed.
    void setMessage(const QString& text);
    QString message() const { return m_message; }  // the whole message

protected:
    bool event(QEvent* event) override;

private:
    void showElided();
    void fitElidedLabels();
    int messageRoom() const;  // pixels between the bar's left edge and its first permanent widget

    QString m_message;
};

}  // namespace tpg
