#include <QtTest>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "graph/GraphFile.h"
#include "graph/Schema.h"
#include "io/Error.h"
#include "io/NpzArchive.h"

using namespace tpg;

namespace {

std::string good(const char* name) { return std::string(TPG_FIXTURE_DIR) + "/good/" + name; }

std::vector<float> allConfigs(const TpuGraph& g) {
    const auto& t = *g.layoutConfigs();
    std::vector<float> out(static_cast<size_t>(t.numConfigs() * t.rowSize()));
    t.read(0, t.numConfigs(), out.data());
    return out;
}

void expectSameGraph(const TpuGraph& a, const TpuGraph& b) {
    QCOMPARE(a.numNodes(), b.numNodes());
    QCOMPARE(a.data().nodeFeatures, b.data().nodeFeatures);
    QCOMPARE(a.data().opcodes, b.data().opcodes);
    QCOMPARE(a.edges(), b.edges());
    QCOMPARE(a.runtimes(), b.runtimes());
    QCOMPARE(a.nodeSplits(), b.nodeSplits());
    if (a.isLayout()) {
        QCOMPARE(a.configurableNodes(), b.configurableNodes());
        QCOMPARE(allConfigs(a), allConfigs(b));
    } else {
        QCOMPARE(a.data().tileConfigFeatures, b.data().tileConfigFeatures);
        QCOMPARE(a.runtimeNormalizers(), b.runtimeNormalizers());
    }
}

}  // namespace

class TestNpzReader : public QObject {
    Q_OBJECT
private slots:
    void fortranOrderReadsAsCOrder_data() {
        QTest::addColumn<QString>("fortranFile");
        QTest::addColumn<QString>("cFile");
        QTest::newRow("layout stored") << "layout_fortran_savez.npz" << "layout_c_order.npz";
        QTest::newRow("layout deflated") << "layout_fortran_compressed.npz" << "layout_c_order.npz";
        QTest::newRow("tile stored") << "tile_fortran_savez.npz" << "tile_c_order.npz";
        QTest::newRow("tile deflated") << "tile_fortran_compressed.npz" << "tile_c_order.npz";
        QTest::newRow("trimmed int8 configs") << "layout_trimmed_fortran.npz" << "layout_trimmed_fortran_twin.npz";
        QTest::newRow("3,000 configs in 16+ column blocks")
            << "layout_many_configs_fortran.npz" << "layout_many_configs_c.npz";
    }
    void fortranOrderReadsAsCOrder() {
        QFETCH(QString, fortranFile);
        QFETCH(QString, cFile);
        auto f = loadTpuGraph(good(fortranFile.toUtf8().constData()));
        auto c = loadTpuGraph(good(cFile.toUtf8().constData()));
        expectSameGraph(f, c);
        if (f.isLayout()) {
            // Column-major configs cannot be read row by row: decoded once, like a deflated entry.
            QCOMPARE(f.layoutConfigs()->mode(), LayoutConfigTable::Mode::Decoded);
            QCOMPARE(f.layoutConfigs()->countDistinct(), c.layoutConfigs()->countDistinct());
            QCOMPARE(f.layoutConfigs()->config(f.numConfigs() - 1), c.layoutConfigs()->config(c.numConfigs() - 1));
        }
    }
    void trimmedFortranCommunityCopyOpens() {
        auto g = loadTpuGraph(good("layout_trimmed_fortran.npz"));
        QCOMPARE(g.nodeFeatureWidth(), int64_t{70});
        QCOMPARE(g.configFeatureWidth(), int64_t{10});
        QCOMPARE(g.warnings().size(), size_t{2});
        QVERIFY(QString::fromStdString(g.warnings()[0]).contains("70 columns"));
        g.layoutConfigs()->wait();
        QCOMPARE(g.layoutConfigs()->progress(), 1.0);
        QCOMPARE(g.layoutConfigs()->encoding(), CompactMatrix::Encoding::Nibble);
    }
    void fortranDecodeCanBeCancelled() {
        LoadOptions lo;
        lo.deferDecoding = true;
        auto g = loadTpuGraph(good("layout_many_configs_fortran.npz"), lo);
        g.layoutConfigs()->cancel();
        QVERIFY_THROWS_EXCEPTION(FormatError, g.layoutConfigs()->wait());
        QVERIFY(QString::fromStdString(g.layoutConfigs()->error()).contains("cancelled"));
    }
    // A caller can show a decode's progress while it waits for rows (the explorer's and the
    // command line's scoring had waited inside their first read, saying nothing), and stop waiting.
    void aWaitForRowsReportsItsProgressAndCanStop() {
        LoadOptions lo;
        lo.deferDecoding = true;
        auto g = loadTpuGraph(good("layout_many_configs_fortran.npz"), lo);
        const auto& table = *g.layoutConfigs();
        std::vector<double> reports;
        const auto record = [&](double done) {
            reports.push_back(done);
            return true;
        };
        QVERIFY(table.waitForRows(1, record, std::chrono::milliseconds(1)));
        QVERIFY(table.available() >= 1);
        QVERIFY(!reports.empty());
        QVERIFY(std::is_sorted(reports.begin(), reports.end()));
        QVERIFY(reports.front() >= 0.0 && reports.back() <= 1.0);
        reports.clear();
        QVERIFY(table.waitForRows(table.numConfigs(), record, std::chrono::milliseconds(1)));
        QVERIFY(reports.empty());  // all there: nothing to wait for, nothing said
        QVERIFY(loadTpuGraph(good("layout_savez.npz"))
                    .layoutConfigs()
                    ->waitForRows(6, record, std::chrono::milliseconds(1)));
        QVERIFY(reports.empty());  // read on demand: every row readable at once

        auto stopped = loadTpuGraph(good("layout_many_configs_fortran.npz"), lo);
        int calls = 0;
        QVERIFY(!stopped.layoutConfigs()->waitForRows(
            stopped.numConfigs(),
            [&](double) {
                ++calls;
                return false;
            },
            std::chrono::milliseconds(1)));
        QCOMPARE(calls, 1);
    }
    void storedLayoutReadsOnDemand() {
        auto g = loadTpuGraph(good("layout_savez.npz"));
        QVERIFY(g.isLayout());
        QCOMPARE(g.numNodes(), int64_t{12});
        QCOMPARE(g.numEdges(), int64_t{12});
        QCOMPARE(g.nodeFeatureWidth(), int64_t{140});
        QCOMPARE(g.numConfigurable(), int64_t{3});
        QCOMPARE(g.numConfigs(), int64_t{6});
        QCOMPARE(g.nodeSplits(), (std::vector<int64_t>{0, 6}));  // stored as (1, k)
        QCOMPARE(g.configurableNodes(), (std::vector<int32_t>{2, 5, 8}));
        QCOMPARE(g.opcode(2), 26);
        QCOMPARE(g.layoutConfigs()->mode(), LayoutConfigTable::Mode::OnDemand);
        QVERIFY(g.warnings().empty());
        QCOMPARE(g.layoutConfigs()->countDistinct(), int64_t{5});  // row 1 duplicates row 0
    }
    void compressedEqualsStored() {
        auto stored = loadTpuGraph(good("layout_savez.npz"));
        auto deflated = loadTpuGraph(good("layout_compressed.npz"));
        QCOMPARE(deflated.layoutConfigs()->mode(), LayoutConfigTable::Mode::Decoded);
        deflated.layoutConfigs()->wait();
        QCOMPARE(deflated.layoutConfigs()->encoding(), CompactMatrix::Encoding::Nibble);
        QCOMPARE(deflated.layoutConfigs()->countDistinct(), int64_t{5});
        // The generator draws fresh random values per file, so compare structure, not values.
        QCOMPARE(deflated.numConfigs(), stored.numConfigs());
        QCOMPARE(deflated.numConfigurable(), stored.numConfigurable());
    }
    void npyVersionsAgree() {
        auto ref = loadTpuGraph(good("layout_reference.npz"));
        for (const char* f : {"layout_npy_v1.npz", "layout_npy_v2.npz", "layout_npy_v3.npz", "layout_zip64.npz"}) {
            auto g = loadTpuGraph(good(f));
            expectSameGraph(g, ref);
        }
    }
    void int32AndOneDimensionalSplits() {
        auto g = loadTpuGraph(good("layout_int32.npz"));
        QCOMPARE(g.nodeSplits(), (std::vector<int64_t>{0, 6}));
        QCOMPARE(g.numEdges(), int64_t{12});
    }
    void bigEndianAndWideTypesConvert() {
        auto g = loadTpuGraph(good("layout_bigendian.npz"));
        QCOMPARE(g.edges()[0], (std::array<int32_t, 2>{1, 0}));
        QVERIFY(g.runtimes()[0] >= 1000 && g.runtimes()[0] < 5000);
        auto t = loadTpuGraph(good("tile_f16.npz"));
        QCOMPARE(t.collection(), Collection::Tile);
        QVERIFY(t.tileConfig(0)[0] >= 1.0f);
    }
    void trimmedWidthsOpenWithWarnings() {
        auto g = loadTpuGraph(good("layout_trimmed.npz"));
        QCOMPARE(g.nodeFeatureWidth(), int64_t{120});
        QCOMPARE(g.configFeatureWidth(), int64_t{12});
        QCOMPARE(g.warnings().size(), size_t{2});
        QVERIFY(QString::fromStdString(g.warnings()[0]).contains("120 columns"));
        auto t = loadTpuGraph(good("tile_trimmed.npz"));
        QCOMPARE(t.configFeatureWidth(), int64_t{20});
        QCOMPARE(t.warnings().size(), size_t{2});
    }
    void testSplitFilesAreValid() {
        auto g = loadTpuGraph(good("layout_test_split.npz"));
        QVERIFY(!g.runtimesKnown());
    }
    void tileFiles() {
        for (const char* f : {"tile_savez.npz", "tile_compressed.npz"}) {
            auto g = loadTpuGraph(good(f));
            QCOMPARE(g.collection(), Collection::Tile);
            QCOMPARE(g.numConfigs(), int64_t{5});
            QCOMPARE(g.configFeatureWidth(), int64_t{24});
            QCOMPARE(g.runtimeNormalizers()[0], 2000.0);
            QCOMPARE(g.normalizedRuntime(0), g.runtimes()[0] / 2000.0);
        }
    }
    void writerRoundTrips_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("compressed");
        QTest::newRow("layout stored") << "layout_savez.npz" << false;
        QTest::newRow("layout deflated") << "layout_savez.npz" << true;
        QTest::newRow("tile stored") << "tile_compressed.npz" << false;
        QTest::newRow("tile deflated") << "tile_savez.npz" << true;
    }
    void writerRoundTrips() {
        QFETCH(QString, file);
        QFETCH(bool, compressed);
        auto g = loadTpuGraph(good(file.toUtf8().constData()));
        QTemporaryDir dir;
        const std::string out = dir.path().toStdString() + "/copy.npz";
        saveTpuGraph(g, out, compressed);
        NpzArchive a(out);
        QCOMPARE(a.require("node_feat").stored, !compressed);
        QCOMPARE(a.header("node_opcode").dtype, DType::U8);
        QCOMPARE(a.header("edge_index").dtype, DType::I64);
        auto back = loadTpuGraph(out, LoadOptions{false});
        expectSameGraph(back, g);
    }
    // Opcode ids the schema lacks are counted in English ("1 nodes have" before).
    void unknownOpcodesAreCountedInTheWarning() {
        const TpuGraph g = loadTpuGraph(good("layout_savez.npz"), LoadOptions{false});
        QTemporaryDir dir;
        const auto warningWith = [&](int unknown) {
            TpuGraphData d = g.data();
            for (int i = 0; i < unknown; ++i) d.opcodes[static_cast<size_t>(i)] = 65000;
            const std::string out =
                dir.path().toStdString() + "/" + std::to_string(unknown) + ".npz";
            saveTpuGraph(TpuGraph(std::move(d)), out, true);
            const auto warnings = loadTpuGraph(out, LoadOptions{false}).warnings();
            return warnings.empty() ? std::string() : warnings.back();
        };
        QCOMPARE(warningWith(1), std::string("1 node has an opcode id the schema does not list"));
        QCOMPARE(warningWith(2), std::string("2 nodes have opcode ids the schema does not list"));
    }
    // A What-if export records the search its configurations came from, so the file alone is
    // scored by that collection's model; a name the dataset has not, or of the other kind, is
    // ignored with a warning naming the key and what it expects.
    void recordedCollectionRoundTripsAndIsChecked() {
        const TpuGraph g = loadTpuGraph(good("layout_savez.npz"), LoadOptions{false});
        QVERIFY(g.searchCollection().empty());
        QTemporaryDir dir;
        const auto savedWith = [&](const std::string& name) {
            TpuGraphData d = g.data();
            d.searchCollection = name;
            const std::string out =
                dir.path().toStdString() + "/" + std::to_string(name.size()) + ".npz";
            saveTpuGraph(TpuGraph(std::move(d)), out, true);
            return out;
        };
        const std::string recorded = savedWith("layout:nlp:default");
        const TpuGraph back = loadTpuGraph(recorded, LoadOptions{false});
        QCOMPARE(back.searchCollection(), std::string("layout:nlp:default"));
        QCOMPARE(back.warnings(), g.warnings());
        QCOMPARE(recordedCollection(recorded), std::string("layout:nlp:default"));
        for (const std::string bad : {"tile:xla", "layout:nlp:bogus"}) {
            const std::string out = savedWith(bad);
            const TpuGraph ignored = loadTpuGraph(out, LoadOptions{false});
            QVERIFY(ignored.searchCollection().empty());
            QVERIFY(recordedCollection(out).empty());
            QCOMPARE(ignored.warnings().size(), g.warnings().size() + 1);
            QVERIFY2(ignored.warnings().back().rfind(
                         "collection_name: expected one of layout:nlp:default, "
                         "layout:nlp:random, layout:xla:default, layout:xla:random",
                         0) == 0,
                     ignored.warnings().back().c_str());
        }
    }
    void backgroundDecodeCanBeCancelled() {
        auto g = loadTpuGraph(good("layout_compressed.npz"));
        g.layoutConfigs()->cancel();  // may already be done: both outcomes must be clean
        try {
            g.layoutConfigs()->wait();
            QVERIFY(g.layoutConfigs()->complete());
        } catch (const FormatError& e) {
            QVERIFY(QString(e.what()).contains("cancelled"));
        }
    }
    void rowsOutOfRangeAreRefused() {
        auto g = loadTpuGraph(good("layout_savez.npz"));
        std::vector<float> buf(1000);
        QVERIFY_THROWS_EXCEPTION(FormatError, g.layoutConfigs()->read(5, 2, buf.data()));
    }
};

QTEST_GUILESS_MAIN(TestNpzReader)
#include "test_npz_reader.moc"
