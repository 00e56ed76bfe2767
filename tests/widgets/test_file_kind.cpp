#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "FileDialogAnswer.h"
#include "FileKind.h"
#include "TestSettings.h"

using namespace tpg;

class TestFileKind : public QObject {
    Q_OBJECT
    const FileKind m_npz{QStringLiteral("test-npz"), QStringLiteral("TpuGraphs files (*.npz)"),
                         QStringLiteral("npz")};
    const FileKind m_json{QStringLiteral("test-json"), QStringLiteral("Sessions (*.json)"),
                          QStringLiteral("json")};

private slots:
    void initTestCase() { useEmptyTestSettings(QStringLiteral("test_widgets_file_kind")); }

    // The settings and the data folder are this run's alone: two runs at once (ctest beside a
    // developer's) had shared one settings file and failed each other's tests.
    void theSettingsAreThisRunsOwn() {
        const QString pid = QString::number(QCoreApplication::applicationPid());
        QVERIFY2(QSettings().fileName().contains(pid), qPrintable(QSettings().fileName()));
        QVERIFY(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation).contains(pid));
    }

    // A save dialog offers its name in the fallback folder the first time, adds the suffix to a
    // bare name, and next time starts where the last file went, for its kind only.
    void aSaveGetsItsSuffixAndTheFolderIsRemembered() {
        QTemporaryDir first, second;
        QCOMPARE(startFolder(m_npz), QDir::homePath());
        QCOMPARE(startFolder(m_npz, first.path()), first.path());
        FileDialogSeen seen;
        answerNextFileDialog(QStringLiteral("session"), &seen);
        const QString path =
            chooseFileToSave(nullptr, QStringLiteral("Export"), m_npz,
                             QStringLiteral("resnet_002-whatif.npz"), first.path());
        QVERIFY(seen.shown);
        QCOMPARE(QDir(seen.folder), QDir(first.path()));
        QCOMPARE(seen.offeredName, QStringLiteral("resnet_002-whatif.npz"));
        QCOMPARE(path, QDir(first.path()).filePath(QStringLiteral("session.npz")));

        answerNextFileDialog(QDir(second.path()).filePath(QStringLiteral("named.npz")), &seen);
        QCOMPARE(chooseFileToSave(nullptr, QStringLiteral("Export"), m_npz, QStringLiteral("x.npz"),
                                  first.path()),
                 QDir(second.path()).filePath(QStringLiteral("named.npz")));
        QCOMPARE(startFolder(m_npz, first.path()), second.path());  // remembered over the fallback
        QCOMPARE(startFolder(m_json, first.path()), first.path());  // another kind's own
        answerNextFileDialog(QStringLiteral("again"), &seen);
        chooseFileToSave(nullptr, QStringLiteral("Export"), m_npz, QStringLiteral("x.npz"));
        QCOMPARE(QDir(seen.folder), QDir(second.path()));
    }

    // An open dialog starts where the kind's last file was; a folder since removed is not used.
    void anOpenStartsWhereTheKindWasLastUsed() {
        QString gone;
        {
            QTemporaryDir dir;
            QFile file(QDir(dir.path()).filePath(QStringLiteral("s.json")));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.close();
            FileDialogSeen seen;
            answerNextFileDialog(file.fileName(), &seen);
            QCOMPARE(chooseFileToOpen(nullptr, QStringLiteral("Load"), m_json), file.fileName());
            QCOMPARE(startFolder(m_json), dir.path());
            gone = dir.path();
        }
        QVERIFY(!QDir(gone).exists());
        QCOMPARE(startFolder(m_json), QDir::homePath());
    }
};

QTEST_MAIN(TestFileKind)
#include "test_file_kind.moc"
