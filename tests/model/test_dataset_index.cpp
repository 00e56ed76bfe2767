#include <QtTest>

#include "graph/DatasetIndex.h"
#include "io/Error.h"

using namespace tpg;

class TestDatasetIndex : public QObject {
    Q_OBJECT
private slots:
    void recognisesTheRealTreeAndLooseFiles() {
        auto files = scanDataset(std::string(TPG_FIXTURE_DIR) + "/tree");
        QCOMPARE(files.size(), size_t{11});
        QMap<QString, int> perCollection;
        for (const auto& f : files) perCollection[QString::fromStdString(f.collection + "/" + f.split)]++;
        QCOMPARE(perCollection["tile:xla/train"], 2);
        QCOMPARE(perCollection["tile:xla/valid"], 2);
        QCOMPARE(perCollection["layout:xla:random/train"], 2);
        QCOMPARE(perCollection["layout:nlp:default/test"], 2);
        QCOMPARE(perCollection["tile/"], 1);
        QCOMPARE(perCollection["layout/"], 1);
        QCOMPARE(perCollection["unreadable/"], 1);
        auto sel = selectFiles(files, "layout:xla:random", "train");
        QCOMPARE(sel.size(), size_t{2});
        QCOMPARE(sel[0].competitionId(), std::string("layout:xla:random:g0"));
        QCOMPARE(sel[0].source, std::string("xla"));
        QCOMPARE(sel[0].search, std::string("random"));
        for (const auto& f : files)
            if (f.collection == "unreadable") QVERIFY(QString::fromStdString(f.error).contains("junk.npz"));
    }
    void notAFolder() {
        QVERIFY_THROWS_EXCEPTION(FormatError, scanDataset("/nonexistent/folder"));
    }
};

QTEST_GUILESS_MAIN(TestDatasetIndex)
#include "test_dataset_index.moc"
