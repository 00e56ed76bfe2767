#include <QtTest>
#include <set>

#include "synth/ConfigSampler.h"
#include "synth/SyntheticDataset.h"
#include "synth/TpuCostModel.h"

using namespace tpg;
using namespace tpg::synth;

namespace {

// A slot is a permutation of the tensor's `rank` dims padded with -1, or all -1.
bool validSlot(const float* v, int rank) {
    bool unset = true;
    for (int i = 0; i < 6; ++i) unset &= v[i] == -1.0f;
    if (unset) return true;
    if (rank < 1) return false;
    std::set<int> seen;
    for (int i = 0; i < 6; ++i) {
        if (i >= rank) {
            if (v[i] != -1.0f) return false;
            continue;
        }
        if (v[i] < 0 || v[i] >= static_cast<float>(rank) || v[i] != std::floor(v[i])) return false;
        seen.insert(static_cast<int>(v[i]));
    }
    return static_cast<int>(seen.size()) == rank;
}

}  // namespace

class TestSynthConfigSampler : public QObject {
    Q_OBJECT
private slots:
    void layoutSlotsAreValid() {
        for (LayoutSearch s : {LayoutSearch::Random, LayoutSearch::Default}) {
            const TpuGraph g = makeLayoutGraph(Recipe::ResNet, 11, 700, 200, s, "r", 1);
            const TpuCostModel m(g);
            int64_t set = 0, allDefault = 0;
            for (int64_t c = 0; c < g.numConfigs(); ++c) {
                const std::vector<float> row = g.layoutConfigs()->config(c);
                bool any = false;
                for (int64_t k = 0; k < g.numConfigurable(); ++k) {
                    const int32_t node = g.configurableNodes()[static_cast<size_t>(k)];
                    for (int slot = 0; slot < 3; ++slot) {
                        const float* v = row.data() + k * 18 + slot * 6;
                        QVERIFY2(
                            validSlot(v, m.slotRank(node, slot)),
                            qPrintable(
                                QString("config %1 node %2 slot %3").arg(c).arg(node).arg(slot)));
                        if (v[0] != -1.0f) ++set, any = true;
                    }
                    // Only convolutions and dots have a kernel slot.
                    if (g.opcodeName(node) == "reshape")
                        QCOMPARE(row[static_cast<size_t>(k * 18 + 12)], -1.0f);
                }
                allDefault += !any;
            }
            QVERIFY(set > 0);
            if (s == LayoutSearch::Default) {
                // Mostly the compiler default: few slots set per configuration.
                QVERIFY(static_cast<double>(set) / static_cast<double>(g.numConfigs()) < 6);
                QVERIFY(allDefault > 0);  // the default itself comes up, duplicates included
            }
        }
    }

    void tileBoundsAreValidTileSizes() {
        for (Recipe r : {Recipe::ConvKernel, Recipe::DotKernel, Recipe::SoftmaxKernel}) {
            const TpuGraph g = makeTileGraph(r, 3, 200, "k");
            const TpuCostModel m(g);
            const auto t = m.tileTensors();
            for (int64_t c = 0; c < g.numConfigs(); ++c) {
                const float* f = g.tileConfig(c);
                const std::vector<int64_t>* dims[3] = {&t.kernel, &t.output, &t.input};
                for (int group = 0; group < 3; ++group) {
                    const float* b = f + group * 8;
                    double sum = 0, product = 1;
                    for (size_t i = 0; i < 6; ++i) {
                        if (i >= dims[group]->size()) {
                            QCOMPARE(b[i], 0.0f);
                            continue;
                        }
                        QVERIFY(b[i] >= 1 && b[i] <= static_cast<float>((*dims[group])[i]));
                        sum += b[i];
                        product *= b[i];
                    }
                    QCOMPARE(static_cast<double>(b[6]), dims[group]->empty() ? 0.0 : sum);
                    QCOMPARE(static_cast<double>(b[7]), dims[group]->empty() ? 0.0 : product);
                }
            }
        }
    }

    // The explorer offers output tiles narrower than 128 lanes; the training files must hold
    // some, slow as the synthetic TPU times them, or a model cannot tell they are slow.
    void narrowOutputTilesComeUpAndRunSlow() {
        // Seed 3 of each: a most-minor output dimension of 3,072 (dot) and 256 (convolution).
        for (Recipe r : {Recipe::DotKernel, Recipe::ConvKernel}) {
            const TpuGraph g = makeTileGraph(r, 3, 800, "k");
            const auto t = TpuCostModel(g).tileTensors();
            const auto minor = static_cast<size_t>(t.outputLayout.at(0));
            QVERIFY(t.output.at(minor) > 128);
            const auto lanes = static_cast<size_t>(8 + minor);  // output_bounds_<minor>
            int narrow = 0;
            double narrowSum = 0, otherSum = 0;
            for (int64_t c = 0; c < g.numConfigs(); ++c) {
                const bool isNarrow = g.tileConfig(c)[lanes] < 128;
                const double ratio = g.normalizedRuntime(c);
                narrow += isNarrow;
                (isNarrow ? narrowSum : otherSum) += ratio;
            }
            const auto n = static_cast<double>(g.numConfigs());
            QVERIFY2(narrow > n * 0.03 && narrow < n * 0.15, qPrintable(QString::number(narrow)));
            QVERIFY2(narrowSum / narrow > 1.5 * otherSum / (n - narrow),
                     qPrintable(
                         QString("%1 vs %2").arg(narrowSum / narrow).arg(otherSum / (n - narrow))));
        }
    }

    void permutationsAreUniformish() {
        Rng rng(1);
        std::set<std::vector<float>> seen;
        for (int i = 0; i < 500; ++i) {
            std::vector<float> p(6);
            ConfigSampler::randomPermutation(3, rng, p.data());
            QVERIFY(validSlot(p.data(), 3));
            seen.insert(p);
        }
        QCOMPARE(seen.size(), size_t{6});  // all 3! orders come up
    }
};

QTEST_GUILESS_MAIN(TestSynthConfigSampler)
#include "test_synth_config_sampler.moc"
