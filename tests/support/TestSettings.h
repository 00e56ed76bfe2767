#pragma once

// Test support: QSettings (remembered folders, recent files, window state) kept in a test location
// under `application`'s name and emptied, so a test neither reads nor writes the user's.
#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>

inline void useEmptyTestSettings(const QString& application) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("tpugraphs-test"));
    QCoreApplication::setApplicationName(application);
    QSettings().clear();
}
