// Explaining the synthetic TPU's runtimes: categories that add up, comparisons, the ground-truth
// test and the violation ratio, on generated programs.
#include <QtTest>
#include <set>

#include "explain/CostExplanation.h"
#include "synth/SyntheticDataset.h"

using namespace tpg;
using namespace tpg::explain;

class TestExplain : public QObject {
    Q_OBJECT
    TpuGraph m_layout, m_tile;

private slots:
    void initTestCase() {
        m_layout = synth::makeLayoutGraph(synth::Recipe::ResNet, 3, 400, 40, synth::LayoutSearch::Random, "r");
        m_tile = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 30, "t");
    }

    void categoriesAddUpToTheTotal() {
        for (const TpuGraph* g : {&m_layout, &m_tile}) {
            const synth::TpuCostModel tpu(*g);
            for (int64_t c = 0; c < 5; ++c) {
                const CostSummary s = summarize(*g, tpu.explain(c));
                double sum = 0;
                for (const auto& cat : s.categories) sum += cat.ns;
                QVERIFY2(std::abs(sum - s.totalNs) <= 1e-6 * s.totalNs, qPrintable(QString::number(sum - s.totalNs)));
                QCOMPARE(s.categoryNs("copies") > 0, s.copies > 0);
            }
        }
        const CostSummary tile = summarize(m_tile, synth::TpuCostModel(m_tile).explain(0));
        QVERIFY(tile.categoryNs("tile launch") > 0);
        QCOMPARE(tile.violationRatio, 0.0);
    }

    void comparisonNamesWhatChanged() {
        const synth::TpuCostModel tpu(m_layout);
        const auto& r = m_layout.runtimes();
        const int64_t best = std::min_element(r.begin(), r.end()) - r.begin();
        const int64_t worst = std::max_element(r.begin(), r.end()) - r.begin();
        const Comparison same = compare(m_layout, tpu.explain(best), tpu.explain(best));
        QVERIFY(same.differingNodes.empty());
        QVERIFY(same.topNodes.empty());
        QVERIFY2(same.sentence == "B takes the same time", same.sentence.c_str());
        // A change under a tenth of a percent keeps its size (it read "0.0% slower").
        QCOMPARE(changeSentence(2'000'000, 2'000'800), std::string("B is 0.04% slower"));
        QCOMPARE(changeSentence(2'000'000, 1'999'000), std::string("B is 0.05% faster"));
        QCOMPARE(changeSentence(2'000'000, 2'300'000), std::string("B is 15.0% slower"));
        const Comparison c = compare(m_layout, tpu.explain(best), tpu.explain(worst));
        QVERIFY(!c.differingNodes.empty());
        QVERIFY2(c.sentence.rfind("B is ", 0) == 0 && c.sentence.find("slower: ") != std::string::npos, c.sentence.c_str());
        double deltas = 0;
        for (const auto& d : c.categoryDeltas) deltas += d.ns;
        QVERIFY(std::abs(deltas - (c.bNs - c.aNs)) <= 1e-6 * c.bNs);
        QVERIFY(!c.topNodes.empty());
        QVERIFY(std::abs(c.topNodes[0].deltaNs) >= std::abs(c.topNodes.back().deltaNs));
    }

    // Each changed node reads as a phrase: "padding on #12 add +3.00 us", "copies into #88 add
    // +87.11 us" (it read "copies into on #88 add").
    void comparisonPhrasesReadAsEnglish() {
        const synth::TpuCostModel tpu(m_layout);
        std::set<std::string> leads;
        for (int64_t a = 0; a < 8; ++a)
            for (int64_t b = 0; b < m_layout.numConfigs(); ++b)
                for (const NodeDelta& d :
                     compare(m_layout, tpu.explain(a), tpu.explain(b)).topNodes) {
                    const std::string expected = " #" + std::to_string(d.node) + " ";
                    const size_t at = d.what.find(expected);
                    QVERIFY2(at != std::string::npos, d.what.c_str());
                    leads.insert(d.what.substr(0, at));
                }
        QVERIFY(leads.count("copies into"));
        QVERIFY(leads.count("padding on"));
        for (const std::string& lead : leads)
            QVERIFY2(lead == "compute on" || lead == "padding on" ||
                         lead == "layout preference on" || lead == "copies into",
                     lead.c_str());
    }

    // The tensors a tile configuration tiles, each tile as long as its tensor's rank; what
    // differs from A to B by role, nothing when the tiles are one.
    void tileChangesNameTheTilesThatDiffer() {
        synth::TpuCostModel::TileTensors t;
        t.output = {128, 3072};
        t.outputLayout = {1, 0};
        t.outputNode = 10;
        t.input = {128, 64};
        t.inputLayout = {1, 0};
        t.inputNode = 1;
        synth::TileCost a, b;
        a.outputTile = {16, 128, 0, 0, 0, 0};
        a.inputTile = {16, 64, 0, 0, 0, 0};
        b = a;
        const auto tiledA = tiledTensors(t, a);
        QCOMPARE(tiledA.size(), size_t{2});  // no kernel
        QCOMPARE(tiledA[0].role, std::string("output"));
        QCOMPARE(tiledA[0].tile, (std::vector<int64_t>{16, 128}));
        QCOMPARE(tiledA[1].node, 1);
        QCOMPARE(tileChanges(tiledA, tiledTensors(t, b)), std::string());
        b.outputTile[1] = 1;
        b.inputTile[0] = 128;
        QCOMPARE(tileChanges(tiledA, tiledTensors(t, b)),
                 std::string("output [16,128] -> [16,1]; input [16,64] -> [128,64]"));
        QCOMPARE(tileChanges(tiledA, tiledTensors(t, b), " → "),
                 std::string("output [16,128] → [16,1]; input [16,64] → [128,64]"));
    }

    void groundTruthOnlyForTheSyntheticTpusOwnRuntimes() {
        const synth::TpuCostModel tpu(m_layout);
        QVERIFY(synthIsGroundTruth(m_layout, tpu));
        const Agreement a = synthAgreement(m_layout, tpu, 20);
        QCOMPARE(a.configs, int64_t{20});
        QVERIFY(a.kendall > 0.99);
        TpuGraphData d = m_layout.data();
        for (double& r : d.runtimes) r *= 1.5;  // a "measurement" the model did not produce
        const TpuGraph measured(std::move(d));
        QVERIFY(!synthIsGroundTruth(measured, synth::TpuCostModel(measured)));
    }

    void violationRatioCountsNodesWhoseLargestDimIsNotMinor() {
        const synth::TpuCostModel tpu(m_layout);
        const auto& r = m_layout.runtimes();
        const int64_t best = std::min_element(r.begin(), r.end()) - r.begin();
        const int64_t worst = std::max_element(r.begin(), r.end()) - r.begin();
        const double vb = violationRatio(m_layout, tpu.explain(best)), vw = violationRatio(m_layout, tpu.explain(worst));
        QVERIFY(vb >= 0 && vb <= 1 && vw >= 0 && vw <= 1);
        QVERIFY2(vw > vb, qPrintable(QStringLiteral("%1 vs %2").arg(vw).arg(vb)));
        // Read from the row (the table's column) it is the same figure as from the explanation.
        const auto& table = *m_layout.layoutConfigs();
        std::vector<float> row(static_cast<size_t>(table.rowSize()));
        for (int64_t c = 0; c < m_layout.numConfigs(); ++c) {
            table.read(c, 1, row.data());
            QCOMPARE(violationRatio(m_layout, row.data()), violationRatio(m_layout, tpu.explain(c)));
        }
    }
};

QTEST_MAIN(TestExplain)
#include "test_explain.moc"
