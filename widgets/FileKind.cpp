#include "FileKind.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace tpg {

namespace {
QString settingsKey(const FileKind& kind) {
    return QStringLiteral("folders/") + kind.key;
}

QString chosenPath(QFileDialog& dialog, const FileKind& kind) {
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return {};
    QString path = dialog.selectedFiles().constFirst();
    rememberFolder(kind, path);
    return path;
}
}  // namespace

FileKind costModelFileKind() {
    return {QStringLiteral("cost-model"),
            QCoreApplication::translate("FileKind", "Cost models (*.tpgm);;All files (*)"),
            QStringLiteral("tpgm")};
}

QString startFolder(const FileKind& kind, const QString& fallback) {
    const QString remembered = QSettings().value(settingsKey(kind)).toString();
    for (const QString& folder : {remembered, fallback})
        if (!folder.isEmpty() && QFileInfo(folder).isDir()) return folder;
    return QDir::homePath();
}

void rememberFolder(const FileKind& kind, const QString& chosenPath) {
    QSettings().setValue(settingsKey(kind), QFileInfo(chosenPath).absolutePath());
}

QString chooseFileToSave(QWidget* parent, const QString& title, const FileKind& kind,
                         const QString& suggestedName, const QString& fallbackFolder) {
    QFileDialog dialog(parent, title,
                       QDir(startFolder(kind, fallbackFolder)).filePath(suggestedName),
                       kind.filter);
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setDefaultSuffix(kind.suffix);
    return chosenPath(dialog, kind);
}

QString chooseFileToOpen(QWidget* parent, const QString& title, const FileKind& kind,
                         const QString& fallbackFolder) {
    QFileDialog dialog(parent, title, startFolder(kind, fallbackFolder), kind.filter);
    dialog.setAcceptMode(QFileDialog::AcceptOpen);
    dialog.setFileMode(QFileDialog::ExistingFile);
    return chosenPath(dialog, kind);
}

}  // namespace tpg
