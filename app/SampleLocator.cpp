#include "SampleLocator.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>

namespace tpg {

QStringList sampleCandidates() {
    QStringList c;
    const QString env = qEnvironmentVariable("TPUGRAPHS_SAMPLE_DIR");
    if (!env.isEmpty()) c << env;
    const QString exe = QCoreApplication::applicationDirPath();
    c << QDir::cleanPath(exe + QStringLiteral("/../share/tpugraphs-explorer/sample"));
    c << QDir::cleanPath(exe + QStringLiteral("/../resources/sample"));
#ifdef TPG_BUILD_SAMPLE_DIR
    c << QStringLiteral(TPG_BUILD_SAMPLE_DIR);
#endif
    c.removeDuplicates();
    return c;
}

QString findSampleDir(const QStringList& candidates) {
    for (const QString& dir : candidates) {
        if (!QFileInfo(dir).isDir()) continue;
        QDirIterator it(dir, {QStringLiteral("*.npz")}, QDir::Files, QDirIterator::Subdirectories);
        if (it.hasNext()) return dir;
    }
    return {};
}

QString preferredFirstFile(const QStringList& paths) {
    for (const QString& p : paths)
        if (p.contains(QStringLiteral("/layout/"))) return p;
    return paths.isEmpty() ? QString() : paths.front();
}

}  // namespace tpg
