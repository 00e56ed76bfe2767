#pragma once

#include <QLocale>
#include <QString>
#include <cstdint>

namespace tpg {

// 12345 -> "12,345": how every count in the explorer is written, whatever the system's locale.
inline QString countText(int64_t n) {
    return QLocale(QLocale::English).toString(static_cast<qlonglong>(n));
}

// (3, "node", "nodes") -> "3 nodes", (1, ...) -> "1 node": no translation catalogue is loaded, so
// tr's %n plural forms would read "node(s)".
inline QString countOf(int64_t n, const QString& one, const QString& many) {
    return countText(n) + QLatin1Char(' ') + (n == 1 ? one : many);
}

}  // namespace tpg
