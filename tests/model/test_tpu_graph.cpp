#include <QtTest>
#include <cmath>
#include <limits>

#include "SmallLayout.h"
#include "graph/Schema.h"
#include "graph/TpuGraph.h"
#include "io/Error.h"

using namespace tpg;

namespace {

using testing::smallLayout;

QString refusal(TpuGraphData d) {
    try {
        TpuGraph g(std::move(d));
    } catch (const FormatError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace

class TestTpuGraph : public QObject {
    Q_OBJECT
private slots:
    void accessorsAndAdjacency() {
        TpuGraph g(smallLayout());
        QCOMPARE(g.numNodes(), int64_t{4});
        QCOMPARE(g.numEdges(), int64_t{3});
        QCOMPARE(g.opcodeName(1), std::string("convolution"));
        QCOMPARE(g.producers(1), std::vector<int32_t>{0});
        QCOMPARE(g.consumers(1), (std::vector<int32_t>{2, 3}));
        QCOMPARE(g.consumers(3), std::vector<int32_t>{});
        QVERIFY(g.isConfigurable(1));
        QVERIFY(!g.isConfigurable(0));
        QCOMPARE(g.configurableIndex(1), 0);
        QCOMPARE(g.computationOf(0), 0);
        QCOMPARE(g.computationOf(3), 1);
        QVERIFY(g.runtimesKnown());
        QCOMPARE(g.nodeFeature(2, 1), 5.0f);
        QCOMPARE(g.layoutConfigs()->config(1)[0], 1.0f);
    }
    void validation_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("expected");
        QTest::newRow("edge range") << 0 << "key 'edge_index': edge 1 refers to node 9";
        QTest::newRow("dup ids") << 1 << "listed twice";
        QTest::newRow("negative runtime") << 2 << "key 'config_runtime': value 1 is negative";
        QTest::newRow("nan runtime") << 3 << "not finite";
        QTest::newRow("config count") << 4 << "key 'node_config_feat': expected shape (2, 1, 18)";
        QTest::newRow("splits order") << 5 << "expected increasing";
        QTest::newRow("opcode count") << 6 << "key 'node_opcode'";
    }
    void validation() {
        QFETCH(int, which);
        QFETCH(QString, expected);
        TpuGraphData d = smallLayout();
        switch (which) {
            case 0: d.edges[1][1] = 9; break;
            case 1: d.configurableNodes = {1, 1}; break;
            case 2: d.runtimes[1] = -3; break;
            case 3: d.runtimes[1] = std::nan(""); break;
            case 4: d.runtimes.pop_back(); break;
            case 5: d.nodeSplits = {3, 1}; break;
            case 6: d.opcodes.pop_back(); break;
        }
        const QString msg = refusal(std::move(d));
        QVERIFY2(msg.contains(expected), qPrintable(msg));
        QVERIFY2(msg.startsWith("small: "), qPrintable(msg));
    }
    void testSplitRuntimesAreUnknownNotInvalid() {
        TpuGraphData d = smallLayout();
        d.runtimes = {0, 0, 0};
        TpuGraph g(std::move(d));
        QVERIFY(!g.runtimesKnown());
    }
    void tileNormalisedRuntime() {
        TpuGraphData d;
        d.name = "k";
        d.collection = Collection::Tile;
        d.numNodes = 1;
        d.nodeFeatureWidth = 0;
        d.opcodes = {2};
        d.runtimes = {300, 150};
        d.runtimeNormalizers = {100, 100};
        d.configFeatureWidth = 24;
        d.tileConfigFeatures.assign(48, 1.0f);
        TpuGraph g(std::move(d));
        QCOMPARE(g.normalizedRuntime(0), 3.0);
        QCOMPARE(g.normalizedRuntime(1), 1.5);
    }
    // What a session row may hold is what a file may hold: the row's width, layout values that
    // are whole numbers from -1 to 5, tile values from 0 to 1e15; the message names the value.
    void configRowProblemNamesTheValue() {
        const TpuGraph layout(smallLayout());
        std::vector<float> row(18, -1.0f);
        QCOMPARE(layout.configRowProblem(row), std::string());
        row[0] = 5;
        QCOMPARE(layout.configRowProblem(row), std::string());
        row[7] = 6;
        QCOMPARE(layout.configRowProblem(row),
                 "value 7 (node 1, input_layout_1) holds 6 (expected a layout value: a whole "
                 "number from -1 to 5)");
        row[7] = 2.5f;
        QVERIFY(layout.configRowProblem(row).find("holds 2.5 (") != std::string::npos);
        row[7] = std::nanf("");
        QVERIFY(layout.configRowProblem(row).find("holds nan (") != std::string::npos);
        row[7] = -2;
        QVERIFY(layout.configRowProblem(row).find("holds -2 (") != std::string::npos);
        QCOMPARE(layout.configRowProblem(std::vector<float>(17, -1.0f)),
                 "expected 18 values for small, got 17");

        TpuGraphData d;
        d.name = "k";
        d.collection = Collection::Tile;
        d.numNodes = 1;
        d.opcodes = {2};
        d.runtimes = {300};
        d.runtimeNormalizers = {100};
        d.configFeatureWidth = 24;
        d.tileConfigFeatures.assign(24, 1.0f);
        const TpuGraph tile(std::move(d));
        std::vector<float> bounds(24, 0.0f);
        bounds[15] = 1e15f;
        QCOMPARE(tile.configRowProblem(bounds), std::string());
        bounds[15] = 0x1p64f;  // exactly representable, so printed as written
        QCOMPARE(tile.configRowProblem(bounds),
                 "value 15 (output_bounds_product) holds 1.84467441e+19 (expected a tile size, sum "
                 "or product: from 0 to 1e15)");
        bounds[15] = 0;
        bounds[8] = -1;
        QVERIFY(tile.configRowProblem(bounds).find("value 8 (output_bounds_0) holds -1 (") == 0);
        bounds[8] = std::numeric_limits<float>::infinity();
        QVERIFY(tile.configRowProblem(bounds).find("holds inf (") != std::string::npos);
    }
    void schemaTables() {
        QCOMPARE(schema::nodeFeatureNames().size(), size_t{140});
        QCOMPARE(schema::layoutConfigFeatureNames().size(), size_t{18});
        QCOMPARE(schema::tileConfigFeatureNames().size(), size_t{24});
        QCOMPARE(schema::nodeFeatureNames()[134], std::string("layout_minor_to_major_0"));
        QCOMPARE(schema::opcodeName(26), std::string("convolution"));
        QCOMPARE(schema::opcodeId("dot"), schema::opcodeId("dot"));
        QVERIFY(schema::opcodeId("dot") > 0);
        QVERIFY(!schema::opcodeKnown(97));  // removed opcode
        QCOMPARE(schema::opcodeName(250), std::string("unknown(250)"));
        QCOMPARE(schema::featureName(schema::nodeFeatureNames(), 120, 5), std::string("col_5"));
    }
};

QTEST_GUILESS_MAIN(TestTpuGraph)
#include "test_tpu_graph.moc"
