#pragma once

// Test support: answers the next file dialog as a person would, typing `typed` into its name box
// (a bare name, or a whole path) and accepting it; `seen` gets the folder it opened in and the
// name it offered.
#include <QApplication>
#include <QFileDialog>
#include <QLineEdit>
#include <QTimer>

struct FileDialogSeen {
    bool shown = false;
    QString folder;
    QString offeredName;
};

inline void answerNextFileDialog(const QString& typed, FileDialogSeen* seen = nullptr) {
    auto* poll = new QTimer(qApp);
    poll->setInterval(20);
    QObject::connect(poll, &QTimer::timeout, qApp, [poll, typed, seen] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog) return;
        poll->stop();
        poll->deleteLater();
        auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        if (seen)
            *seen = {true, dialog->directory().absolutePath(), name ? name->text() : QString()};
        if (name) name->setText(typed);
        QMetaObject::invokeMethod(dialog, "accept");  // a protected override, a public slot
    });
    poll->start();
}
