#pragma once

// Test support: QSettings (remembered folders, recent files, window state) and the application's
// data folder (the training runs) kept in test locations of this process alone, emptied first and
// removed at its end: a test reads and writes neither the user's nor another run's (two runs of a
// test at once, as ctest beside a developer's, had shared one settings file and broken each other).
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>

inline void useEmptyTestSettings(const QString& application) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("tpugraphs-test"));
    QCoreApplication::setApplicationName(
        QStringLiteral("%1-%2").arg(application).arg(QCoreApplication::applicationPid()));
    // Paths taken now: the removal runs after the application object is gone.
    static const struct Removal {
        QString settings = QSettings().fileName();
        QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        Removal() = default;
        Removal(const Removal&) = delete;
        Removal& operator=(const Removal&) = delete;
        ~Removal() {
            QFile::remove(settings);
            QDir(data).removeRecursively();
        }
    } removal;
    QSettings().clear();
}
