#pragma once

#include <QLabel>

namespace tpg {

// A word-wrapped label never given less height than its text needs at its width. A plain one
// asks a layout for one line's height at most, so a short dock cut a long summary's first and
// last lines off; this one makes the column around it scroll instead.
class WrappedLabel : public QLabel {
    Q_OBJECT
public:
    explicit WrappedLabel(QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;
};

}  // namespace tpg
