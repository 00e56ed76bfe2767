#pragma once

#include <QLocale>
#include <QString>
#include <cstdint>

namespace tpg {

// 12345 -> "12,345": how every count in the explorer is written, whatever the system's locale.
inline QString countText(int64_t n) {
    return QLocale(QLocale::English).toString(static_cast<qlonglong>(n));
}

}  // namespace tpg
