// The train / eval / predict commands end to end on a tiny dataset, and their error paths.
#include <QtTest>
#include <set>

#include "TinyGraphs.h"

namespace {

struct Run {
    int code = -1;
    QString out, err;
};

Run tpugraphs(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(TPG_CLI_PATH), args);
    Run r;
    if (!p.waitForFinished(120000)) return r;
    r.code = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

}  // namespace

class TestNnCli : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString data() const { return m_dir.path() + "/data"; }
    QString file(const char* f) const { return m_dir.path() + "/" + f; }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        tiny::writeDataset(data().toStdString(), 4, 2, 2, 30, 24);
    }

    void trainBothKinds() {
        Run r = tpugraphs({"train", "--data", data(), "--collection", "layout:xla:random", "--out",
                           file("layout.tpgm"), "--epochs", "2", "--threads", "1", "--hidden", "16",
                           "--configs-per-step", "16"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("epoch   1/2"));
        QVERIFY(r.out.contains("kendall"));
        QVERIFY(QFile::exists(file("layout.tpgm")));
        r = tpugraphs({"train", "--data", data(), "--collection", "tile:xla", "--out",
                       file("tile.tpgm"), "--epochs", "1", "--threads", "1", "--hidden", "16"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("top5"));
        // Without the layout model's default slot features and node-cost readout (older models).
        r = tpugraphs({"train", "--data", data(), "--collection", "layout:xla:random", "--out",
                       file("plain.tpgm"), "--epochs", "1", "--threads", "1", "--hidden", "16",
                       "--slot-features", "off", "--node-cost-readout", "off"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = tpugraphs({"eval", "--model", file("plain.tpgm"), "--data", data(), "--collection",
                       "layout:xla:random", "--split", "valid"});
        QVERIFY2(r.code == 0 && r.out.contains("mean (2 graphs)"), qPrintable(r.err));
    }

    void evalPrintsPerGraphAndMean() {
        Run r = tpugraphs({"eval", "--model", file("layout.tpgm"), "--data", data(), "--collection",
                           "layout:xla:random", "--split", "valid"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("layout:xla:random:layout"));
        QVERIFY(r.out.contains("mean (2 graphs)"));
        QVERIFY(r.out.contains("Kendall"));
        r = tpugraphs(
            {"eval", "--model", file("tile.tpgm"), "--data", data(), "--collection", "tile:xla"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("top5"));
        r = tpugraphs({"eval", "--baseline", "graph-blind", "--data", data(), "--collection",
                       "layout:xla:random"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("graph-blind linear baseline"));
    }

    void syntheticTpuRanksItsOwnFilesNearlyPerfectly() {
        const QString synth = file("synth");
        Run r = tpugraphs({"synth", "--out", synth, "--seed", "5", "--layout-graphs", "3",
                           "--tile-graphs", "4", "--configs", "60", "--min-nodes", "100",
                           "--max-nodes", "300", "--quiet"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = tpugraphs({"eval", "--baseline", "synthetic-tpu", "--data", synth, "--collection",
                       "layout:xla:random", "--split", "train"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("without measurement noise"));
        const QString mean = r.out.mid(r.out.indexOf("mean ("));
        const double kendall = mean.split(QChar(' '), Qt::SkipEmptyParts).value(5).toDouble();
        // Only the 0.25% measurement noise separates it from the truth; the tiny GNN above is
        // far from this.
        QVERIFY2(kendall > 0.95, qPrintable(mean));
        r = tpugraphs({"eval", "--baseline", "synthetic-tpu", "--model", file("layout.tpgm"),
                       "--data", synth, "--collection", "layout:xla:random", "--split", "train"});
        QVERIFY(r.code != 0 && r.err.contains("exclude each other"));
    }

    void predictWritesCompetitionCsv() {
        Run r = tpugraphs({"predict", "--data", data(), "--model", file("layout.tpgm"),
                           "--tile-model", file("tile.tpgm"), "--out", file("sub.csv")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile f(file("sub.csv"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.value(0), QString("ID,TopConfigs"));
        QCOMPARE(lines.size(), 1 + 4);  // 2 layout + 2 tile test graphs
        int layoutRows = 0, tileRows = 0;
        for (const QString& line : lines.mid(1)) {
            const QStringList parts = line.split(',');
            QCOMPARE(parts.size(), 2);
            const QStringList ids = parts[1].split(';');
            std::set<int> distinct;
            for (const QString& id : ids) distinct.insert(id.toInt());
            QCOMPARE(distinct.size(), size_t(ids.size()));
            if (parts[0].startsWith("layout:xla:random:")) {
                ++layoutRows;
                QCOMPARE(ids.size(), 30);  // every config, best first
                QCOMPARE(*distinct.begin(), 0);
                QCOMPARE(*distinct.rbegin(), 29);
            } else {
                QVERIFY(parts[0].startsWith("tile:xla:"));
                ++tileRows;
                QCOMPARE(ids.size(), 5);
            }
        }
        QCOMPARE(layoutRows, 2);
        QCOMPARE(tileRows, 2);
        // One file.
        const QString one = data() + "/npz/tile/xla/test/" +
                            QDir(data() + "/npz/tile/xla/test").entryList({"*.npz"}).value(0);
        r = tpugraphs(
            {"predict", "--data", one, "--model", file("tile.tpgm"), "--out", file("one.csv")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    void errorsAreOneLineAndNonZero() {
        QFile garbage(file("garbage.tpgm"));
        QVERIFY(garbage.open(QIODevice::WriteOnly));
        garbage.write("not a model");
        garbage.close();
        const QList<QStringList> bad = {
            {"predict", "--data", data(), "--tile-model", file("layout.tpgm"), "--out",
             file("x.csv")},
            {"eval", "--model", file("garbage.tpgm"), "--data", data(), "--collection", "tile:xla"},
            {"eval", "--model", file("tile.tpgm"), "--data", data(), "--collection",
             "layout:xla:random"},
            {"train", "--data", data(), "--collection", "layout:nlp:random", "--out",
             file("y.tpgm")},
            {"predict", "--data", file("nowhere"), "--out", file("x.csv")},
            {"train", "--data", data(), "--collection", "layout:xla:random", "--out",
             file("y.tpgm"), "--node-cost-readout", "yes"},
            {"train", "--data", data(), "--collection", "layout:xla:random", "--out",
             file("y.tpgm"), "--products", "half"},
            {"train", "--data", data(), "--collection", "layout:xla:random", "--out",
             file("y.tpgm"), "--lr-schedule", "linear"},
            {"train", "--data", data(), "--collection", "layout:xla:random", "--out",
             file("y.tpgm"), "--pooled-head", "off", "--node-cost-readout", "off"},
            {"train", "--data", data(), "--collection", "layout:xla:random", "--out",
             file("y.tpgm"), "--pooled-head", "off", "--config-attention", "on"},
            {"train", "--data", data(), "--collection", "layout:xla:random", "--out",
             file("y.tpgm"), "--relayout-features", "on"},
        };
        const QStringList expected = {
            "expects a tile model",
            "not a tpugraphs cost model file",
            "trained for tile:xla, cannot score layout files",
            "no train files",
            "no such file or folder",
            "--node-cost-readout: expected 'on' or 'off', got 'yes'",
            "--products: expected auto, float or bfloat16, got 'half'",
            "--lr-schedule: expected cosine, stable-decay or constant, got 'linear'",
            "--pooled-head off needs --node-cost-readout on",
            "act on the pooled embedding: they need --pooled-head on",
            "--relayout-features on needs --flow-features on"};
        for (int i = 0; i < bad.size(); ++i) {
            const Run r = tpugraphs(bad[i]);
            QVERIFY2(r.code == 1, qPrintable(bad[i].join(' ') + " -> " + QString::number(r.code)));
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY2(r.err.contains(expected[i]), qPrintable(r.err));
        }
        QVERIFY(!QFile::exists(file("x.csv")));
    }
};

QTEST_GUILESS_MAIN(TestNnCli)
#include "test_nn_cli.moc"
