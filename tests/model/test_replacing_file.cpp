// ReplacingFile: every writer of the core (model files, what-if sessions, npz files, the training
// log, predict's CSV) puts a file in place whole or not at all.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <sstream>

#include "Refusal.h"
#include "io/Error.h"
#include "io/NpzWriter.h"
#include "io/ReplacingFile.h"

using namespace tpg;

namespace {

std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void put(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

class TestReplacingFile : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string file(const char* name) const {
        return m_dir.filePath(QLatin1String(name)).toStdString();
    }
    QStringList entries() const {
        return QDir(m_dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
    }

private slots:
    void init() {  // each test starts in an empty folder
        for (const QFileInfo& e :
             QDir(m_dir.path()).entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot)) {
            if (e.isDir())
                QDir(e.filePath()).removeRecursively();
            else
                QFile::remove(e.filePath());
        }
    }

    void commitReplacesTheFile() {
        const std::string path = file("a.txt");
        put(path, "old");
        {
            ReplacingFile f(path);
            QCOMPARE(f.tempPath(), path + ".tmp");
            put(f.tempPath(), "new");
            QCOMPARE(contents(path), std::string("old"));  // untouched until the commit
            f.commit();
        }
        QCOMPARE(contents(path), std::string("new"));
        QCOMPARE(entries(), QStringList{"a.txt"});
    }

    void uncommittedLeavesTheOldFileAndNoTemporary() {
        const std::string path = file("a.txt");
        put(path, "old");
        {
            ReplacingFile f(path);
            put(f.tempPath(), "half of the n");
        }
        QCOMPARE(contents(path), std::string("old"));
        QCOMPARE(entries(), QStringList{"a.txt"});
    }

    void writeWholeCreatesAndReplaces() {
        const std::string path = file("b.bin");
        writeFileWhole(path, std::string("\0\1\2", 3));
        QCOMPARE(contents(path), std::string("\0\1\2", 3));
        writeFileWhole(path, "second");
        QCOMPARE(contents(path), std::string("second"));
        QCOMPARE(entries(), QStringList{"b.bin"});
    }

    void aMissingFolderIsNamed() {
        const std::string path = file("missing/b.bin");
        QCOMPARE(refusal([&] { writeFileWhole(path, "x"); }),
                 path + ": cannot write (No such file or directory)");
        QVERIFY(entries().isEmpty());
    }

    // A folder where the file should go: the temporary file is written, cannot take its place,
    // and is removed.
    void aFolderInTheWayIsNamedAndNothingIsLeft() {
        const std::string path = file("c");
        QVERIFY(QDir(m_dir.path()).mkdir("c"));
        QVERIFY(refusal([&] {
                    writeFileWhole(path, "x");
                }).rfind(path + ": cannot replace the file: ", 0) == 0);
        QCOMPARE(entries(), QStringList{"c"});
    }

    void npzWriterUsesIt() {
        const std::string path = file("d.npz");
        QVERIFY(QDir(m_dir.path()).mkdir("d.npz"));
        NpzWriter w(false);
        w.addInt64("x", {2}, {1, 2});
        QVERIFY(refusal([&] { w.save(path); }).rfind(path + ": cannot replace the file: ", 0) == 0);
        QCOMPARE(entries(), QStringList{"d.npz"});
        const std::string good = file("e.npz");
        w.save(good);
        QCOMPARE(entries(), (QStringList{"d.npz", "e.npz"}));
    }
};

QTEST_APPLESS_MAIN(TestReplacingFile)
#include "test_replacing_file.moc"
