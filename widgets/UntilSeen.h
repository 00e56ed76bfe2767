#pragma once

#include <QWidget>
#include <utility>

namespace tpg {

// Work a panel leaves until a user can see it. A tool dock behind another tab stays "visible" to
// Qt, so its dock says when it comes on or off screen (QDockWidget::visibilityChanged ->
// setOnScreen); a hidden page says by its showEvent (take). A panel never shown (a window not yet
// on screen) does its work at once.
class UntilSeen {
public:
    // Whether `panel` is off screen now; if so the work is left pending.
    bool defer(const QWidget& panel) {
        m_pending = !m_onScreen || (panel.window()->isVisible() && !panel.isVisible());
        return m_pending;
    }
    // True when the panel came on screen with work pending (it is no longer pending).
    bool setOnScreen(bool onScreen) {
        m_onScreen = onScreen;
        return onScreen && take();
    }
    bool take() { return std::exchange(m_pending, false); }  // the pending work runs now
    bool pending() const { return m_pending; }
    void drop() { m_pending = false; }                       // done, or no longer wanted

private:
    bool m_onScreen = true;
    bool m_pending = false;
};

}  // namespace tpg
