#pragma once

// Test support: whether a call is refused with a FormatError whose message holds `needle`; the
// message is printed when it does not, so a failing check shows what was said instead. And the
// message itself, for checks on its whole wording.
#include <QtGlobal>
#include <functional>
#include <string>

#include "io/Error.h"

inline bool throwsWith(const std::function<void()>& f, const std::string& needle) {
    try {
        f();
    } catch (const tpg::FormatError& e) {
        if (std::string(e.what()).find(needle) != std::string::npos) return true;
        qWarning("message was: %s", e.what());
        return false;
    }
    qWarning("no FormatError");
    return false;
}

// The FormatError message `f` throws, "" when it throws none.
inline std::string refusal(const std::function<void()>& f) {
    try {
        f();
    } catch (const tpg::FormatError& e) {
        return e.what();
    }
    return "";
}
