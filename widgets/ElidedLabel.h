#pragma once

#include <QLabel>

namespace tpg {

// A one-line label whose plain text is cut to its width, by default in the middle ("Exported 2
// configurations to a-rath…class.npz"), so the end of a file name stays in view. A label
// given no more room than a layout leaves it clipped its text mid-word at the right edge
// ("Exported 1 con").
class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    QString shownText() const;  // the text as drawn at the label's width
    void setElideMode(Qt::TextElideMode mode);
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    Qt::TextElideMode m_elideMode = Qt::ElideMiddle;
};

}  // namespace tpg
