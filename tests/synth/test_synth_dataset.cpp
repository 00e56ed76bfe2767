#include <QtTest>
#include <filesystem>
#include <set>

#include "graph/DatasetIndex.h"
#include "io/Error.h"
#include "graph/GraphFile.h"
#include "synth/LinearConfigRanker.h"
#include "metrics/Metrics.h"
#include "io/NpyFormat.h"
#include "io/NpzArchive.h"
#include "synth/SyntheticDataset.h"
#include "synth/TpuCostModel.h"

using namespace tpg;
using namespace tpg::synth;
namespace fs = std::filesystem;

namespace {

SynthOptions small(const std::string& dir, uint64_t seed) {
    SynthOptions o;
    o.outDir = dir;
    o.seed = seed;
    o.tileGraphs = 3;
    o.layoutGraphs = 3;
    o.configs = 40;
    o.minNodes = 80;
    o.maxNodes = 400;
    o.threads = 2;
    return o;
}

bool sameGraph(const TpuGraph& a, const TpuGraph& b) {
    const auto& x = a.data();
    const auto& y = b.data();
    if (x.nodeFeatures != y.nodeFeatures || x.opcodes != y.opcodes || x.edges != y.edges ||
        x.nodeSplits != y.nodeSplits || x.runtimes != y.runtimes ||
        x.runtimeNormalizers != y.runtimeNormalizers ||
        x.tileConfigFeatures != y.tileConfigFeatures || x.configurableNodes != y.configurableNodes)
        return false;
    if (a.isLayout()) {
        for (int64_t c = 0; c < a.numConfigs(); ++c)
            if (a.layoutConfigs()->config(c) != b.layoutConfigs()->config(c)) return false;
    }
    return true;
}

}  // namespace

class TestSynthDataset : public QObject {
    Q_OBJECT
private slots:
    void treeSplitsAndTruth() {
        QTemporaryDir tmp;
        const auto files = generateDataset(small(tmp.path().toStdString(), 5));
        QCOMPARE(files.size(), size_t{3 + 4 * 3});
        const auto scanned = scanDataset(tmp.path().toStdString());
        QCOMPARE(scanned.size(), files.size());
        std::set<std::string> collections;
        for (const auto& f : scanned) {
            QVERIFY2(f.error.empty(), f.error.c_str());
            collections.insert(f.collection + "/" + f.split);
        }
        for (const char* c : {"tile:xla", "layout:xla:random", "layout:xla:default",
                              "layout:nlp:random", "layout:nlp:default"})
            for (const char* s : {"train", "valid", "test"})
                QVERIFY2(collections.count(std::string(c) + "/" + s), c);
        for (const auto& f : files) {
            const TpuGraph g = loadTpuGraph(f.path, {false});
            const TpuCostModel m(g);
            if (f.split == "test") {
                // Zeros as in the real test split; the truth is beside it, and the cost model
                // reproduces it from the file alone.
                QVERIFY(!g.runtimesKnown());
                std::string rel = f.collection;
                std::replace(rel.begin(), rel.end(), ':', '/');
                const fs::path truth = fs::path(tmp.path().toStdString()) / "ground_truth" / rel /
                                       "test" / (f.name + ".config_runtime.npy");
                QVERIFY(fs::exists(truth));
                QVERIFY(fs::file_size(truth) > 8 * 40);  // int64 runtimes after the .npy header
            } else {
                QVERIFY(g.runtimesKnown());
                for (int64_t c = 0; c < g.numConfigs(); c += 7)
                    QCOMPARE(static_cast<double>(std::llround(m.runtime(c))),
                             g.runtimes()[static_cast<size_t>(c)]);
            }
        }
        // The same programs are timed by both searches, as in the real data.
        QCOMPARE(loadTpuGraph(files[3].path, {false}).data().nodeFeatures,
                 loadTpuGraph(files[6].path, {false}).data().nodeFeatures);
    }

    void testRuntimesOption() {
        QTemporaryDir tmp;
        SynthOptions o = small(tmp.path().toStdString(), 5);
        o.testRuntimes = true;
        o.collections = {"tile:xla"};
        for (const auto& f : generateDataset(o))
            QVERIFY(loadTpuGraph(f.path, {false}).runtimesKnown());
    }

    void noiseOption() {
        // --noise 0 writes the exact runtimes of the same configurations; the default noise moves
        // them by about its sigma in log.
        QTemporaryDir exact, noisy;
        SynthOptions o = small(exact.path().toStdString(), 5);
        o.collections = {"layout:nlp:default", "tile:xla"};
        o.noiseSigma = 0;
        const auto fe = generateDataset(o);
        o.outDir = noisy.path().toStdString();
        o.noiseSigma = TpuParameters{}.noiseSigma;
        const auto fn = generateDataset(o);
        QCOMPARE(fe.size(), fn.size());
        TpuParameters noiseFree;
        noiseFree.noiseSigma = 0;
        double sumSq = 0;
        int64_t count = 0;
        for (size_t i = 0; i < fe.size(); ++i) {
            if (fe[i].split == "test") continue;
            const TpuGraph e = loadTpuGraph(fe[i].path, {false});
            const TpuGraph n = loadTpuGraph(fn[i].path, {false});
            QCOMPARE(e.data().nodeFeatures, n.data().nodeFeatures);
            const TpuCostModel m(e, noiseFree);
            for (int64_t c = 0; c < e.numConfigs(); ++c) {
                const double exactNs = e.runtimes()[static_cast<size_t>(c)];
                QCOMPARE(exactNs, static_cast<double>(std::llround(m.runtime(c))));
                sumSq += std::pow(std::log(n.runtimes()[static_cast<size_t>(c)] / exactNs), 2);
                ++count;
            }
        }
        const double sigma = std::sqrt(sumSq / static_cast<double>(count));
        QVERIFY2(sigma > 0.0015 && sigma < 0.0035, qPrintable(QString::number(sigma)));
        o.noiseSigma = -0.1;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, generateDataset(o));
    }

    void deterministic() {
        QTemporaryDir a, b, c;
        const auto fa = generateDataset(small(a.path().toStdString(), 42));
        SynthOptions ob = small(b.path().toStdString(), 42);
        ob.threads = 1;  // the thread count changes nothing
        const auto fb = generateDataset(ob);
        const auto fc = generateDataset(small(c.path().toStdString(), 43));
        QCOMPARE(fa.size(), fb.size());
        int differ = 0;
        for (size_t i = 0; i < fa.size(); ++i) {
            QCOMPARE(fs::path(fa[i].path).filename(), fs::path(fb[i].path).filename());
            QVERIFY2(
                sameGraph(loadTpuGraph(fa[i].path, {false}), loadTpuGraph(fb[i].path, {false})),
                fa[i].path.c_str());
            if (fa[i].name != fc[i].name ||
                !sameGraph(loadTpuGraph(fa[i].path, {false}), loadTpuGraph(fc[i].path, {false})))
                ++differ;
        }
        QCOMPARE(differ, static_cast<int>(fa.size()));  // another seed, other graphs
    }

    void badOptions() {
        QTemporaryDir tmp;
        SynthOptions o = small(tmp.path().toStdString(), 1);
        o.minNodes = 500;
        o.maxNodes = 100;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, generateDataset(o));
        o = small(tmp.path().toStdString(), 1);
        o.collections = {"layout:xla:bogus"};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, generateDataset(o));
        o = small("/proc/no/such/place", 1);
        QVERIFY_THROWS_EXCEPTION(FormatError, generateDataset(o));
    }

    void runtimeStatsCountTies() {
        const RuntimeStats s = runtimeStats({100, 100, 100.3, 200, 300});
        QCOMPARE(s.spread, 3.0);
        QCOMPARE(s.distinct, int64_t{4});
        QCOMPARE(s.exactTies, 1.0 / 10);
        QCOMPARE(s.tieRate, 3.0 / 10);  // (100,100), (100,100.3) twice
    }

    // Learnability: a linear ranker on one-hot config features orders held-out configurations
    // well above chance, and not trivially (the copies between nodes are not linear).
    void linearRankerLearns() {
        const TpuGraph g =
            makeLayoutGraph(Recipe::ResNet, 2, 800, 1000, LayoutSearch::Random, "r", 2);
        std::vector<int64_t> train, test;
        for (int64_t c = 0; c < g.numConfigs(); ++c) (c % 5 == 4 ? test : train).push_back(c);
        LinearConfigRanker ranker;
        ranker.fit(g, train);
        const std::vector<double> predicted = ranker.predict(g, test);
        std::vector<double> truth;
        for (int64_t c : test) truth.push_back(g.runtimes()[static_cast<size_t>(c)]);
        const double opa = metrics::orderedPairAccuracy(predicted, truth);
        qInfo("linear ranker OPA on held-out configs: %.3f (%lld features, %d CG steps)", opa,
              static_cast<long long>(ranker.numFeatures()), ranker.iterations());
        QVERIFY(opa > 0.7);
        QVERIFY(opa < 0.995);
        // Tile kernels too.
        const TpuGraph t = makeTileGraph(Recipe::DotKernel, 2, 500, "k");
        std::vector<int64_t> ttrain, ttest;
        for (int64_t c = 0; c < t.numConfigs(); ++c) (c % 5 == 4 ? ttest : ttrain).push_back(c);
        LinearConfigRanker tr;
        tr.fit(t, ttrain);
        std::vector<double> ttruth;
        for (int64_t c : ttest) ttruth.push_back(t.normalizedRuntime(c));
        const double topa = metrics::orderedPairAccuracy(tr.predict(t, ttest), ttruth);
        QVERIFY2(topa > 0.7 && topa < 0.995, qPrintable(QString::number(topa)));
    }

    void rankerRefusesUnknownRuntimes() {
        QTemporaryDir tmp;
        SynthOptions o = small(tmp.path().toStdString(), 5);
        o.collections = {"tile:xla"};
        const auto files = generateDataset(o);
        const TpuGraph g = loadTpuGraph(files.back().path, {false});  // the test split
        LinearConfigRanker r;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r.fit(g, {0, 1, 2}));
    }
};

QTEST_GUILESS_MAIN(TestSynthDataset)
#include "test_synth_dataset.moc"
