#pragma once

#include <QWidget>
#include <utility>
#include <vector>

namespace tpg {

// Enables or disables each control, given in the order a greyed-out control's keyboard focus
// should go to the others: those that stay enabled are enabled first, and a control disabled
// while it has the focus hands it to the first of them. Qt would pass it on down the window
// instead, to whatever comes next: the Budget box of a search (the next key typed changed it),
// a lesson's text, a form's fields that a scroll area then followed out of the buttons' view.
void setEnabledKeepingFocus(const std::vector<std::pair<QWidget*, bool>>& byPreference);

}  // namespace tpg
