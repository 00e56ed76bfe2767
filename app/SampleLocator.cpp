#include "SampleLocator.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <algorithm>

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
    // A layout graph (configurable nodes) of a training split (measured runtimes) of the xla
    // collection (convolutions): the file that shows the most. Then by name, then by path.
    const auto score = [](const QString& p) {
        return (p.contains(QStringLiteral("/layout/")) ? 4 : 0) + (p.contains(QStringLiteral("/train/")) ? 2 : 0) +
               (p.contains(QStringLiteral("/xla/")) ? 1 : 0);
    };
    QStringList sorted = paths;
    std::sort(sorted.begin(), sorted.end(), [&](const QString& a, const QString& b) {
        if (score(a) != score(b)) return score(a) > score(b);
        const QString na = QFileInfo(a).fileName(), nb = QFileInfo(b).fileName();
        return na != nb ? na < nb : a < b;
    });
    return sorted.isEmpty() ? QString() : sorted.front();
}

namespace {

QStringList npzFilesUnder(const QString& sampleDir, const QString& part) {
    QStringList files;
    QDirIterator it(sampleDir, {QStringLiteral("*.npz")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (path.contains(part)) files << path;
    }
    return files;
}

}  // namespace

QString lessonFile(const QString& sampleDir) {
    if (sampleDir.isEmpty()) return {};
    return preferredFirstFile(npzFilesUnder(sampleDir, QStringLiteral("/layout/")));
}

QString tileLessonFile(const QString& sampleDir) {
    if (sampleDir.isEmpty()) return {};
    QStringList tiles = npzFilesUnder(sampleDir, QStringLiteral("/tile/"));
    const auto rank = [](const QString& path) {
        return (path.contains(QStringLiteral("/train/")) ? 0 : 2) +
               (QFileInfo(path).fileName().startsWith(QStringLiteral("conv_fusion")) ? 0 : 1);
    };
    std::sort(tiles.begin(), tiles.end(), [&](const QString& a, const QString& b) {
        if (rank(a) != rank(b)) return rank(a) < rank(b);
        const QString na = QFileInfo(a).fileName(), nb = QFileInfo(b).fileName();
        return na != nb ? na < nb : a < b;
    });
    return tiles.isEmpty() ? QString() : tiles.front();
}

}  // namespace tpg
