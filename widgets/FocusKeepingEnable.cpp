#include "FocusKeepingEnable.h"

namespace tpg {

void setEnabledKeepingFocus(const std::vector<std::pair<QWidget*, bool>>& byPreference) {
    QWidget* heir = nullptr;
    for (const auto& [control, on] : byPreference)
        if (on) {
            control->setEnabled(true);
            if (!heir) heir = control;
        }
    for (const auto& [control, on] : byPreference)
        if (!on) {
            if (control->hasFocus() && heir) heir->setFocus(Qt::OtherFocusReason);
            control->setEnabled(false);
        }
}

}  // namespace tpg
