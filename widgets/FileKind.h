#pragma once

#include <QString>

class QWidget;

namespace tpg {

// A kind of file the user saves or opens (what-if sessions, cost models, exported pictures): its
// dialog starts in the folder last used for that kind, and a name typed without a suffix gets the
// kind's. The plain static dialogs started in the folder the app was launched from and wrote
// "session" where "session.npz" was meant, which the open dialog's filter then hid.
struct FileKind {
    QString key;     // remembers the folder: "whatif-npz", "model", "view-export", ...
    QString filter;  // "TpuGraphs files (*.npz)"
    QString suffix;  // "npz", without the dot
};

// Cost models (.tpgm): loaded from the Model menu, saved from a training run; one folder for both.
FileKind costModelFileKind();

// The folder a dialog of `kind` starts in: the one last used for it, else `fallback` (the open
// file's folder, say) when it exists, else the home folder.
QString startFolder(const FileKind& kind, const QString& fallback = {});
void rememberFolder(const FileKind& kind, const QString& chosenPath);

// The chosen path ("" when cancelled), `suggestedName` offered in the start folder.
QString chooseFileToSave(QWidget* parent, const QString& title, const FileKind& kind,
                         const QString& suggestedName, const QString& fallbackFolder = {});
QString chooseFileToOpen(QWidget* parent, const QString& title, const FileKind& kind,
                         const QString& fallbackFolder = {});

}  // namespace tpg
