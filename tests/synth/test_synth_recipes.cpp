#include <QtTest>
#include <cmath>
#include <set>

#include "synth/HloGraphBuilder.h"
#include "synth/NodeFeatureColumns.h"
#include "graph/Schema.h"
#include "synth/SyntheticRecipes.h"
#include "graph/TpuGraph.h"

using namespace tpg;
using namespace tpg::synth;

namespace {

// Validates through TpuGraph's constructor, with an empty config table (structure only).
TpuGraph validated(TpuGraphData d) {
    if (d.collection == Collection::Layout) {
        const auto nc = static_cast<int64_t>(d.configurableNodes.size());
        d.configFeatureWidth = 18;
        d.layoutConfigs = LayoutConfigTable::fromMatrix(CompactMatrix(nc * 18), nc, 18);
    } else {
        d.configFeatureWidth = 24;
    }
    return TpuGraph(std::move(d));
}

// Everything the schema says about node_feat, checked on every node.
void checkNodeFeatures(const TpuGraph& g) {
    const auto& c = NodeColumns::get();
    QCOMPARE(g.nodeFeatureWidth(), int64_t{schema::kNodeFeatureWidth});
    const std::set<std::string> configurableOps{"convolution", "dot", "reshape"};
    for (int32_t v : g.configurableNodes())
        QVERIFY2(configurableOps.count(g.opcodeName(v)), g.opcodeName(v).c_str());
    for (int64_t v = 0; v < g.numNodes(); ++v) {
        const float* f = g.nodeFeatures(v);
        QVERIFY2(schema::opcodeKnown(g.opcode(v)), g.opcodeName(v).c_str());
        int hot = 0;
        for (int i = c.typePred - 1; i <= c.typeTuple + 2; ++i) hot += f[i] == 1.0f;
        QCOMPARE(hot, 1);  // exactly one element type
        if (f[c.typeTuple] == 1.0f) continue;
        int rank = 0;
        double sum = 0, product = 1;
        for (int i = 0; i < 6; ++i)
            if (f[c.shapeDims + i] > 0) {
                rank = i + 1;
                sum += f[c.shapeDims + i];
                product *= f[c.shapeDims + i];
            }
        QCOMPARE(static_cast<double>(f[c.shapeSum]), sum);
        QVERIFY2(std::abs(f[c.shapeProduct] - product) <= 1e-6 * product,
                 qPrintable(QString("node %1").arg(v)));
        // Layout: a permutation of the rank's dims, padded with 0 as in the real files.
        std::set<int> dims;
        for (int i = 0; i < rank; ++i) dims.insert(static_cast<int>(f[c.layout + i]));
        QCOMPARE(static_cast<int>(dims.size()), rank);
        if (rank) QCOMPARE(*dims.rbegin(), rank - 1);
        for (int i = rank; i < 6; ++i) QCOMPARE(f[c.layout + i], 0.0f);
        const std::string op = g.opcodeName(v);
        if (op == "convolution") {
            QVERIFY(f[c.windowSize] >= 1 && f[c.windowStride] >= 1);
            QCOMPARE(f[c.featureGroupCount], 1.0f);
            QVERIFY(f[c.convInputFeature] != f[c.convInputBatch]);
            QCOMPARE(f[c.windowSize + 6],
                     f[c.windowSize] + f[c.windowSize + 1]);  // sum of the two spatial sizes
        }
        if (op == "reduce-window") QVERIFY(f[c.windowSize + 7] >= 1);  // window product
        if (op == "parameter") QVERIFY(f[c.parameterNumber] >= 0);
    }
    // Edges: [u, v] = u consumes v, in topological order (u > v).
    for (const auto& e : g.edges()) QVERIFY(e[0] > e[1]);
}

}  // namespace

class TestSynthRecipes : public QObject {
    Q_OBJECT
private slots:
    void programsAreValid_data() {
        QTest::addColumn<int>("recipe");
        QTest::addColumn<int>("target");
        for (int target : {30, 400, 3000}) {
            QTest::addRow("resnet %d", target) << static_cast<int>(Recipe::ResNet) << target;
            QTest::addRow("transformer %d", target)
                << static_cast<int>(Recipe::Transformer) << target;
            QTest::addRow("mlp %d", target) << static_cast<int>(Recipe::Mlp) << target;
        }
    }
    void programsAreValid() {
        QFETCH(int, recipe);
        QFETCH(int, target);
        for (uint64_t seed = 1; seed <= 3; ++seed) {
            Rng rng(seed);
            const TpuGraph g =
                validated(buildProgram(static_cast<Recipe>(recipe), rng, target, "p"));
            checkNodeFeatures(g);
            QVERIFY(g.numConfigurable() > 0);
            QVERIFY(g.nodeSplits().size() >= 3);  // reducers, then the entry computation
            QCOMPARE(g.nodeSplits().front(), int64_t{0});
            // About the target size: never far above it.
            QVERIFY2(g.numNodes() <= std::max<int64_t>(target, 260) + 150,
                     qPrintable(QString::number(g.numNodes())));
            std::set<std::string> ops;
            for (int64_t v = 0; v < g.numNodes(); ++v) ops.insert(g.opcodeName(v));
            for (const char* must :
                 {"parameter", "constant", "tuple", "broadcast", "reduce", "add", "dot"})
                QVERIFY2(ops.count(must), must);
            if (recipe == static_cast<int>(Recipe::ResNet))
                for (const char* must :
                     {"convolution", "maximum", "rsqrt", "multiply", "reduce-window"})
                    QVERIFY2(ops.count(must), must);
            if (recipe == static_cast<int>(Recipe::Transformer))
                for (const char* must : {"dot", "reshape", "transpose", "exponential", "divide"})
                    QVERIFY2(ops.count(must), must);
        }
    }

    void kernelsAreValid() {
        for (Recipe r : {Recipe::ConvKernel, Recipe::DotKernel, Recipe::SoftmaxKernel})
            for (uint64_t seed = 1; seed <= 5; ++seed) {
                Rng rng(seed);
                const TpuGraph g = validated(buildKernel(r, rng, "k"));
                checkNodeFeatures(g);
                QVERIFY(g.numNodes() >= 5 && g.numNodes() <= 80);
                QCOMPARE(g.numConfigurable(), int64_t{0});
                int roots = 0;
                for (int64_t v = 0; v < g.numNodes(); ++v)
                    roots += g.nodeFeature(v, NodeColumns::get().isRoot) == 1.0f;
                QCOMPARE(roots, 1);
            }
    }

    void largeProgram() {
        // 50,000+ nodes (its speed is measured in tests/bench/bench_synth).
        Rng rng(5);
        const TpuGraph g = validated(buildProgram(Recipe::ResNet, rng, 50000, "big"));
        QVERIFY(g.numNodes() >= 49000 && g.numNodes() <= 50200);
        QVERIFY(g.numConfigurable() > 1000);
    }

    void sameSeedSameGraph() {
        Rng a(9), b(9), c(10);
        const TpuGraphData x = buildProgram(Recipe::Transformer, a, 500, "t");
        const TpuGraphData y = buildProgram(Recipe::Transformer, b, 500, "t");
        const TpuGraphData z = buildProgram(Recipe::Transformer, c, 500, "t");
        QVERIFY(x.nodeFeatures == y.nodeFeatures && x.edges == y.edges && x.opcodes == y.opcodes);
        QVERIFY(x.nodeFeatures != z.nodeFeatures);
    }

    void builderRefusesBadGraphs() {
        HloGraphBuilder b;
        HloShape s;
        s.dims = {4, 8};
        const int32_t p = b.parameter(s, 0);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, b.reshape(p, {5, 5}));
        HloShape t;
        t.dims = {3};
        QVERIFY_THROWS_EXCEPTION(std::logic_error, b.binary("add", p, b.parameter(t, 1)));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, b.unary("no-such-op", p));
    }
};

QTEST_GUILESS_MAIN(TestSynthRecipes)
#include "test_synth_recipes.moc"
