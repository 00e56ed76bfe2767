#include <QtTest>
#include <cmath>
#include <numeric>

#include "graph/Schema.h"
#include "io/Error.h"
#include "synth/HloGraphBuilder.h"
#include "synth/SameProgramScores.h"
#include "synth/SyntheticDataset.h"
#include "synth/TpuCostModel.h"

using namespace tpg;
using namespace tpg::synth;

namespace {

// parameter (8, 16, 16, 64) NHWC -> convolution 3x3 -> 128 features -> ReLU -> tuple.
// Node ids: 0 input, 1 kernel, 2 convolution, 3 constant, 4 broadcast, 5 maximum, 6 tuple.
// `rows`: its configurations (18 values each), none by default.
TpuGraphData convGraphData(const std::vector<std::vector<float>>& rows = {}) {
    HloGraphBuilder b;
    HloShape in;
    in.dims = {8, 16, 16, 64};
    const int32_t x = b.parameter(in, 0);
    HloShape k;
    k.dims = {3, 3, 64, 128};
    const int32_t w = b.parameter(k, 1);
    HloWindow win;
    win.size = {3, 3};
    win.stride = {1, 1};
    win.padLow = {1, 1};
    win.padHigh = {1, 1};
    const int32_t c = b.convolution(x, w, win, ConvDims{}, 128);
    b.setConfigurable(c);
    HloShape scalar;
    const int32_t zero = b.broadcast(b.constant(scalar), b.shape(c).dims, {});
    const int32_t relu = b.binary("maximum", c, zero);
    b.setRoot(b.tuple({relu}));
    TpuGraphData d = b.take("conv", Collection::Layout);
    d.configFeatureWidth = 18;
    CompactMatrix m(18);
    for (const auto& r : rows) m.appendRows(r.data(), 1);
    d.layoutConfigs = LayoutConfigTable::fromMatrix(std::move(m), 1, 18);
    d.runtimes.assign(rows.size(), 0.0);
    return d;
}

TpuGraph convGraph(const std::vector<std::vector<float>>& rows = {}) {
    return TpuGraph(convGraphData(rows));
}

std::vector<float> config(std::initializer_list<float> out, std::initializer_list<float> in = {},
                          std::initializer_list<float> kernel = {}) {
    std::vector<float> c(18, -1.0f);
    std::copy(out.begin(), out.end(), c.begin());
    std::copy(in.begin(), in.end(), c.begin() + 6);
    std::copy(kernel.begin(), kernel.end(), c.begin() + 12);
    return c;
}

double raw(const CostBreakdown& b) {
    return b.nodesNs + b.copiesNs + b.tileNs;
}

void checkSums(const CostBreakdown& b) {
    double nodes = 0, copies = 0;
    for (const auto& n : b.nodes) nodes += n.totalNs();
    for (const auto& e : b.copies) copies += e.copyNs;
    QVERIFY(std::abs(nodes - b.nodesNs) <= 1e-9 * b.totalNs);
    QVERIFY(std::abs(copies - b.copiesNs) <= 1e-9 * b.totalNs);
    QVERIFY(std::abs(b.nodesNs + b.copiesNs + b.tileNs + b.noiseNs - b.totalNs) <=
            1e-9 * b.totalNs);
}

}  // namespace

class TestSynthCostModel : public QObject {
    Q_OBJECT
private slots:
    void paddingPenalisesSmallMinorDim() {
        const TpuGraph g = convGraph();
        const TpuCostModel m(g);
        // Output (8, 16, 16, 128): features (128) most minor vs batch (8) most minor.
        const auto good = m.explainLayout(config({3, 2, 1, 0}).data());
        const auto bad = m.explainLayout(config({0, 1, 2, 3}).data());
        QCOMPARE(good.nodes[2].paddingNs, 0.0);
        QVERIFY(bad.nodes[2].paddingNs > 0);
        QVERIFY(raw(bad) > raw(good));
        QVERIFY(bad.nodes[2].reason.find("pads x") != std::string::npos);
    }

    void layoutMismatchAddsCopy() {
        const TpuGraph g = convGraph();
        const TpuCostModel m(g);
        const auto def = m.explainLayout(config({}).data());
        QCOMPARE(def.copies.size(), size_t{0});
        // The input arrives as {3,2,1,0}; asking for {2,1,3,0} inserts a copy on edge conv <-
        // input.
        const auto mismatch = m.explainLayout(config({}, {2, 1, 3, 0}).data());
        QCOMPARE(mismatch.copies.size(), size_t{1});
        QCOMPARE(mismatch.copies[0].consumer, 2);
        QCOMPARE(mismatch.copies[0].producer, 0);
        QVERIFY(mismatch.copies[0].copyNs > 0);
        QCOMPARE(mismatch.copies[0].toLayout, (std::vector<int>{2, 1, 3, 0}));
        QVERIFY(raw(mismatch) > raw(def));
        // Asking for the layout the producer already has is no copy at all.
        const auto same = m.explainLayout(config({}, {3, 2, 1, 0}).data());
        QCOMPARE(same.copies.size(), size_t{0});
        // A changed conv output propagates through the ReLU and is copied back at the output tuple.
        const auto out = m.explainLayout(config({2, 3, 1, 0}).data());
        QCOMPARE(out.nodes[5].outputLayout, (std::vector<int>{2, 3, 1, 0}));
        QCOMPARE(out.copies.size(), size_t{1});
        QCOMPARE(out.copies[0].consumer, 6);
    }

    void breakdownSumsToTotal() {
        const TpuGraph g =
            makeLayoutGraph(Recipe::Transformer, 3, 600, 20, LayoutSearch::Random, "t", 1);
        const TpuCostModel m(g);
        for (int64_t c = 0; c < g.numConfigs(); ++c) {
            const auto b = m.explain(c);
            checkSums(b);
            QCOMPARE(b.totalNs, m.runtime(c));  // explain and the fast path agree exactly
            QCOMPARE(std::llround(b.totalNs), std::llround(g.runtimes()[static_cast<size_t>(c)]));
            QCOMPARE(static_cast<int64_t>(b.nodes.size()), g.numNodes());
            for (const auto& n : b.nodes)
                QVERIFY(n.computeNs >= 0 && n.paddingNs >= 0 && n.layoutNs >= 0);
        }
    }

    void anyConfigEvaluates() {
        const TpuGraph g = convGraph();
        const TpuCostModel m(g);
        const std::vector<std::vector<float>> odd{
            config({0, 0, 1, 2}),        // repeated dim
            config({5, 4, 3, 2, 1, 0}),  // rank 6 on a rank-4 tensor
            config({1.5f, 0, 2, 3}),     // not an integer
            config({std::nanf(""), 1, 2, 3}),
            config({-7, 99, 1e30f, -1e30f}, {3, 2, 1}),  // garbage and a short permutation
            std::vector<float>(18, 0.0f),
        };
        const double def = m.layoutRuntime(config({}).data());
        for (const auto& c : odd) {
            const auto b = m.explainLayout(c.data());
            QVERIFY(std::isfinite(b.totalNs) && b.totalNs > 0);
            QVERIFY(!b.notes.empty());  // says which slot it ignored
            QCOMPARE(b.totalNs, def);   // an ignored slot is the compiler default: same program
        }
        // Every valid permutation evaluates.
        std::vector<float> c = config({0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1, 2, 3});
        int count = 0;
        do {
            std::copy(c.begin(), c.begin() + 4, c.begin() + 6);
            QVERIFY(m.layoutRuntime(c.data()) > 0);
            ++count;
        } while (std::next_permutation(c.begin(), c.begin() + 4));
        QCOMPARE(count, 24);
    }

    void samePrograms() {
        // 0 the default, 1 the default spelled out, 2 another program, 3 an ignored (invalid) slot,
        // 4 an operand layout asked for that differs from the one arriving (a copy: another program).
        const TpuGraph g = convGraph({config({}), config({3, 2, 1, 0}), config({2, 1, 3, 0}),
                                      config({0, 0, 1, 2}), config({}, {2, 1, 3, 0})});
        const TpuCostModel m(g);
        QCOMPARE(g.numConfigs(), int64_t{5});
        QCOMPARE(m.programKey(1), m.programKey(0));
        QCOMPARE(m.programKey(3), m.programKey(0));
        QVERIFY(m.programKey(2) != m.programKey(0));
        QVERIFY(m.programKey(4) != m.programKey(0));
        QVERIFY(m.programKey(4) != m.programKey(2));
        for (int64_t c = 0; c < 5; ++c) QCOMPARE(m.programKey(c), m.programKey(c));
        for (int64_t c = 0; c < 5; ++c) {  // an explicit row gives its key with its runtime
            uint64_t key = 0;
            QCOMPARE(m.layoutRuntime(g.layoutConfigs()->config(c).data(), &key), m.runtime(c));
            QCOMPARE(key, m.programKey(c));
        }

        std::vector<double> scores{1, 2, 3, 4, 5};
        QVERIFY(shareScoresWithinPrograms(g, {0, 1, 2, 3, 4}, scores));
        QCOMPARE(scores, (std::vector<double>{7.0 / 3, 7.0 / 3, 3, 7.0 / 3, 5}));
        // A stop asked for midway (a cancelled scoring) leaves the scores as they were.
        int asked = 0;
        scores = {1, 2, 3, 4, 5};
        QVERIFY(!shareScoresWithinPrograms(g, {0, 1, 2, 3, 4}, scores, [&] { return ++asked > 2; }));
        QCOMPARE(scores, (std::vector<double>{1, 2, 3, 4, 5}));
        QCOMPARE(asked, 3);
        QVERIFY(programKeys(g, {0, 1, 2, 3, 4}, [] { return true; }).empty());
        // Only the configs asked about count, in the order given.
        scores = {10, 20, 30};
        QVERIFY(shareScoresWithinPrograms(g, {2, 3, 0}, scores));
        QCOMPARE(scores, (std::vector<double>{10, 25, 25}));
        // A graph the synthetic TPU cannot read (a trimmed node_feat) keeps its scores.
        TpuGraphData d = convGraphData({config({}), config({3, 2, 1, 0})});
        std::vector<float> trimmed;
        for (int64_t v = 0; v < d.numNodes; ++v)
            trimmed.insert(trimmed.end(), d.nodeFeatures.begin() + v * 140, d.nodeFeatures.begin() + v * 140 + 139);
        d.nodeFeatures = std::move(trimmed);
        d.nodeFeatureWidth = 139;
        scores = {1, 2};
        QVERIFY(!shareScoresWithinPrograms(TpuGraph(std::move(d)), {0, 1}, scores));
        QCOMPARE(scores, (std::vector<double>{1, 2}));
    }

    void noiseIsDeterministic() {
        const TpuGraph g = convGraph();
        const TpuCostModel a(g), b(g);
        const auto c = config({2, 1, 3, 0}, {1, 2, 3, 0});
        QCOMPARE(a.layoutRuntime(c.data()), a.layoutRuntime(c.data()));
        QCOMPARE(a.layoutRuntime(c.data()), b.layoutRuntime(c.data()));
        const auto e = a.explainLayout(c.data());
        QVERIFY(std::abs(std::log(e.noiseFactor)) < 6 * a.parameters().noiseSigma);
        QVERIFY(e.noiseFactor != 1.0);
        // The same program spelled two ways (explicit default vs all -1) measures the same.
        QCOMPARE(a.layoutRuntime(config({3, 2, 1, 0}).data()), a.layoutRuntime(config({}).data()));
        // Without noise the model is exactly its breakdown.
        TpuParameters quiet;
        quiet.noiseSigma = 0;
        const TpuCostModel q(g, quiet);
        const auto qb = q.explainLayout(c.data());
        QCOMPARE(qb.totalNs, raw(qb));
    }

    void tileConfigs() {
        const TpuGraph g = makeTileGraph(Recipe::ConvKernel, 4, 50, "k");
        const TpuCostModel m(g);
        // The normaliser is the default configuration's runtime.
        QCOMPARE(static_cast<double>(std::llround(m.tileRuntime(m.defaultTileConfig().data()))),
                 g.runtimeNormalizers()[0]);
        for (int64_t c = 0; c < g.numConfigs(); ++c) {
            QCOMPARE(static_cast<double>(std::llround(m.runtime(c))),
                     g.runtimes()[static_cast<size_t>(c)]);
            checkSums(m.explain(c));
        }
        std::vector<float> zeros(24, 0.0f), huge(24, 1e9f), negative(24, -3.0f);
        for (const auto* c : {&zeros, &huge, &negative}) {
            const auto b = m.explainTile(c->data());
            QVERIFY(std::isfinite(b.totalNs) && b.totalNs > 0);
            QCOMPARE(b.tile.numTiles, int64_t{1});  // unset or oversized bounds: the whole tensor
        }
        // The tensors the bounds tile, named by node: the root's output, the convolution's
        // operands (whose tiles the explorer draws over them).
        const TpuCostModel::TileTensors t = m.tileTensors();
        QVERIFY(t.outputNode >= 0 && t.outputNode < g.numNodes());
        for (size_t i = 0; i < t.output.size(); ++i)
            QCOMPARE(g.nodeFeature(t.outputNode, schema::kShapeDimColumn + static_cast<int>(i)),
                     static_cast<float>(t.output[i]));
        int32_t conv = -1;
        for (int32_t n = 0; n < g.numNodes(); ++n)
            if (g.opcodeName(n) == "convolution") conv = n;
        QVERIFY(conv >= 0);
        QCOMPARE(g.producers(conv), (std::vector<int32_t>{t.inputNode, t.kernelNode}));
    }

    void tileCapacityCliff() {
        // A big dot: its whole output as one tile cannot fit on chip.
        HloGraphBuilder b;
        HloShape l, r;
        l.dims = {8192, 2048};
        r.dims = {2048, 4096};
        const int32_t d = b.dot(b.parameter(l, 0), b.parameter(r, 1), 0);
        b.setRoot(d);
        TpuGraphData data = b.take("dot", Collection::Tile);
        data.configurableNodes.clear();
        data.configFeatureWidth = 24;
        const TpuGraph g(std::move(data));
        const TpuCostModel m(g);
        std::vector<float> whole(24, 0.0f), tiled(24, 0.0f);
        for (float* t : {&tiled[0], &tiled[8], &tiled[16]}) t[0] = 512, t[1] = 512;
        tiled[0] = 512, tiled[1] = 512;     // kernel (2048, 4096) tile
        tiled[16] = 512, tiled[17] = 2048;  // input (8192, 2048) tile: full contraction
        const auto w = m.explainTile(whole.data());
        const auto t = m.explainTile(tiled.data());
        QVERIFY(w.tile.spills && w.tile.workingSetBytes > m.parameters().vmemBytes &&
                w.tile.spillNs > 0);
        QVERIFY(!t.tile.spills);
        QVERIFY(w.totalNs > t.totalNs);
        QCOMPARE(t.tile.numTiles, int64_t{16 * 8});
    }

    void refusesTrimmedFeatures() {
        TpuGraphData d;
        d.name = "trimmed";
        d.numNodes = 2;
        d.nodeFeatureWidth = 3;
        d.nodeFeatures.assign(6, 1.0f);
        d.opcodes = {63, 26};
        d.edges = {{1, 0}};
        d.configFeatureWidth = 18;
        d.layoutConfigs = LayoutConfigTable::fromMatrix(CompactMatrix(0), 0, 18);
        const TpuGraph g(std::move(d));
        QVERIFY_THROWS_EXCEPTION(FormatError, TpuCostModel{g});
    }
};

QTEST_GUILESS_MAIN(TestSynthCostModel)
#include "test_synth_cost_model.moc"
