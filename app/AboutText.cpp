#include "AboutText.h"

#include <graphviz/graphviz_version.h>
#include <torch/version.h>

#include <QCoreApplication>
#include <QDir>
#include <QtGlobal>

namespace tpg {

QString aboutText(const QString& runsFolder) {
    const QString qtVersion =
        QString::fromLatin1(qVersion()) == QStringLiteral(QT_VERSION_STR)
            ? QStringLiteral(QT_VERSION_STR)
            : QCoreApplication::translate("About", "%1 (running %2)")
                  .arg(QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()));
    return QCoreApplication::translate(
               "About",
               "<b>TpuGraphs Explorer</b> %1"
               "<p>Opens TpuGraphs files (XLA programs timed on TPUs under many compiler "
               "configurations) and draws the HLO graph with its configurable nodes. Edit a layout "
               "or "
               "tile configuration to see its predicted runtime and rank among the file's, see why "
               "a "
               "configuration is fast or slow, search for faster ones, and train the learned cost "
               "model.</p>"
               "<p>Runtimes marked <i>synthetic TPU</i> come from the built-in analytic TPU: the "
               "ground "
               "truth of synthetic files, an estimate for real ones.</p>"
               "<p>Built with Qt %2, LibTorch %3 and Graphviz %4.<br>Training runs are kept in "
               "%5.</p>")
        .arg(QCoreApplication::applicationVersion(), qtVersion, QStringLiteral(TORCH_VERSION),
             QStringLiteral(PACKAGE_VERSION), QDir::toNativeSeparators(runsFolder).toHtmlEscaped());
}

}  // namespace tpg
