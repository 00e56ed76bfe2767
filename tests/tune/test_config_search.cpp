// The model-guided search: the optimum of a graph small enough to enumerate, determinism for a
// seed and a round limit, cancel, and one clear message for what cannot be tuned.
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "DefaultModels.h"
#include "io/CompactMatrix.h"
#include "io/Error.h"
#include "io/LayoutConfigTable.h"
#include "synth/ConfigSampler.h"
#include "synth/HloGraphBuilder.h"
#include "synth/SyntheticDataset.h"
#include "tune/BaselineSearch.h"
#include "tune/ConfigSearch.h"
#include "tune/SearchSpace.h"
#include "tune/TuneLimits.h"

using namespace tpg;

namespace {

// Two dots with an elementwise op between them: 2 configurable nodes x 3 slots of rank 2 (the
// default or one of 2 permutations each): 3^6 = 729 configurations. The second dot's default
// layout pads its 130-wide minor dim to 256 lanes: the default is not the optimum.
TpuGraph twoDots() {
    using synth::ElementType;
    synth::HloGraphBuilder b;
    b.beginComputation();
    const int32_t a = b.parameter({ElementType::F32, {1000, 384}, {}, 0}, 0);
    const int32_t w1 = b.parameter({ElementType::F32, {384, 256}, {}, 0}, 1);
    const int32_t d1 = b.dot(a, w1, 0);
    const int32_t e = b.unary("exponential", d1);
    const int32_t w2 = b.parameter({ElementType::F32, {256, 130}, {}, 0}, 2);
    const int32_t d2 = b.dot(e, w2, 0);
    b.setConfigurable(d1);
    b.setConfigurable(d2);
    b.setRoot(d2);
    TpuGraphData shape = b.take("two_dots", Collection::Layout);
    shape.configFeatureWidth = 18;
    shape.layoutConfigs =
        LayoutConfigTable::fromMatrix(CompactMatrix(int64_t{2} * 18), 2, 18);  // no configs yet
    const TpuGraph structure(std::move(shape));
    // 24 random configurations, timed by the synthetic TPU (as the synthetic datasets are).
    const synth::TpuCostModel tpu(structure);
    const synth::ConfigSampler sampler(tpu, structure.configurableNodes());
    synth::Rng rng(3);
    TpuGraphData d = structure.data();
    const int64_t rowSize = structure.numConfigurable() * 18;
    CompactMatrix m(rowSize);
    for (int c = 0; c < 24; ++c) {
        const std::vector<float> row = sampler.layout(synth::LayoutSearch::Random, rng);
        d.runtimes.push_back(tpu.layoutRuntime(row.data()));
        m.appendRows(row.data(), 1);
    }
    d.configFeatureWidth = 18;
    d.layoutConfigs = LayoutConfigTable::fromMatrix(std::move(m), structure.numConfigurable(), 18);
    return TpuGraph(std::move(d));
}

// Every configuration of `space` from `base`, visited once.
template <typename Visit>
void enumerate(const tune::SearchSpace& space, std::vector<float> row, size_t c, Visit&& visit) {
    if (c == space.coordinates().size()) {
        visit(row);
        return;
    }
    for (size_t v = 0; v < space.coordinates()[c].values.size(); ++v) {
        space.set(row, c, v);
        enumerate(space, row, c + 1, visit);
    }
}

tune::TuneOptions options(int measure, int64_t rounds, uint64_t seed = 1) {
    tune::TuneOptions o;
    o.budgetSeconds = 120;
    o.maxRounds = rounds;
    o.measurePerRound = measure;
    o.seed = seed;
    o.start.kind = whatif::StartPoint::Kind::Default;
    return o;
}

}  // namespace

class TestConfigSearch : public QObject {
    Q_OBJECT
    std::shared_ptr<const TpuGraph> m_small, m_resnet;
    std::unique_ptr<whatif::WhatIfPredictor> m_smallPredictor, m_resnetPredictor;

private slots:
    void initTestCase() {
        m_small = std::make_shared<const TpuGraph>(twoDots());
        m_smallPredictor = std::make_unique<whatif::WhatIfPredictor>(m_small, nn::defaultModel(Collection::Layout));
        m_resnet = std::make_shared<const TpuGraph>(
            synth::makeLayoutGraph(synth::Recipe::ResNet, 3, 400, 60, synth::LayoutSearch::Random, "r"));
        m_resnetPredictor = std::make_unique<whatif::WhatIfPredictor>(m_resnet, nn::defaultModel(Collection::Layout));
    }

    void theSpaceOfTheSmallGraphIsEveryLayoutOfItsSlots() {
        const tune::SearchSpace space(*m_small, m_smallPredictor->synthTpu());
        QCOMPARE(space.coordinates().size(), size_t{6});
        for (const auto& c : space.coordinates()) QCOMPARE(c.values.size(), size_t{3});
        QCOMPARE(std::lround(space.log10Size() * 1000), std::lround(std::log10(729.0) * 1000));
    }

    // Measuring, the search must end at the synthetic TPU's optimum; by the model alone, at the
    // model's optimum. Both are known by enumerating all 729 configurations.
    void findsTheOptimumOfASmallGraph() {
        const whatif::WhatIfPredictor& p = *m_smallPredictor;
        const tune::SearchSpace space(*m_small, p.synthTpu());
        double bestNs = 1e300, bestScore = 1e300;
        enumerate(space, p.defaultRow(), 0, [&](const std::vector<float>& row) {
            bestNs = std::min(bestNs, p.synthRuntime(row));
            bestScore = std::min(bestScore, p.model().scoreRows(*m_small, row.data(), 1).front());
        });
        QVERIFY(bestNs < p.synthRuntime(p.defaultRow()));  // there is something to find

        const tune::TuneResult measured = tune::ConfigSearch(p, options(4, 200)).run();
        QVERIFY(!measured.top.empty());
        QVERIFY(measured.top.front().measured);
        QCOMPARE(measured.top.front().report.synthNs, bestNs);
        for (size_t i = 1; i < measured.top.size(); ++i)
            QVERIFY(measured.top[i - 1].report.synthNs <= measured.top[i].report.synthNs);

        const tune::TuneResult modelOnly = tune::ConfigSearch(p, options(0, 200)).run();
        QCOMPARE(modelOnly.measured, int64_t{0});
        QVERIFY(!modelOnly.top.front().measured);
        // The search ranks by the network's own score; the report scores as the what-if editor does
        // (a file row's program keeps its shared score).
        const std::vector<float>& top = modelOnly.top.front().row;
        QVERIFY(std::abs(p.model().scoreRows(*m_small, top.data(), 1).front() - bestScore) < 1e-4);
        QCOMPARE(modelOnly.top.front().report.score, p.evaluate(top).score);
    }

    // A space the search has exhausted ends it before its budget: a tile kernel's ~10^4
    // configurations were scored within 13 s of a 30-s search, which then spun through 2.3 million
    // rounds that found nothing new (and kept each round's progress).
    void aSearchedSpaceEndsTheSearch() {
        tune::TuneOptions o = options(4, 0);  // no round limit: the budget or exhaustion ends it
        o.budgetSeconds = 600;
        const tune::TuneResult r = tune::ConfigSearch(*m_smallPredictor, o).run();
        QVERIFY(r.exhausted);
        QVERIFY(!r.cancelled);
        QVERIFY(r.candidatesScored <= 729);  // every configuration at most once
        const auto quiet = static_cast<size_t>(tune::limits::kRoundsWithoutNewToStop);
        QVERIFY(r.rounds.size() > quiet);
        QCOMPARE(r.rounds.back().candidatesScored,
                 r.rounds[r.rounds.size() - 1 - quiet].candidatesScored);
        QVERIFY(r.rounds[r.rounds.size() - 2 - quiet].candidatesScored <
                r.rounds.back().candidatesScored);
        // A search with a round limit it reaches first is not "exhausted".
        QVERIFY(!tune::ConfigSearch(*m_smallPredictor, options(4, 20)).run().exhausted);
    }

    void sameSeedSameResult() {
        auto run = [&](uint64_t seed) { return tune::ConfigSearch(*m_resnetPredictor, options(8, 12, seed)).run(); };
        const tune::TuneResult a = run(5), b = run(5);
        QCOMPARE(a.top.size(), b.top.size());
        for (size_t i = 0; i < a.top.size(); ++i) {
            QCOMPARE(a.top[i].row, b.top[i].row);
            QCOMPARE(a.top[i].report.synthNs, b.top[i].report.synthNs);
        }
        QCOMPARE(a.candidatesScored, b.candidatesScored);
        QCOMPARE(a.measured, b.measured);
        QCOMPARE(a.rounds.size(), size_t{12});
    }

    void beatsTheFilesBestOnAGeneratedProgram() {
        tune::TuneOptions o = options(8, 40);  // rounds, not seconds: the same work on any machine
        o.start.kind = whatif::StartPoint::Kind::BestMeasured;
        const tune::TuneResult r = tune::ConfigSearch(*m_resnetPredictor, o).run();
        QVERIFY2(r.top.front().report.synthNs < m_resnetPredictor->bestMeasuredNs(),
                 qPrintable(QStringLiteral("%1 vs %2").arg(r.top.front().report.synthNs).arg(m_resnetPredictor->bestMeasuredNs())));
        QCOMPARE(r.start.report.synthNs, m_resnetPredictor->synthRuntime(m_resnetPredictor->row(m_resnetPredictor->bestMeasuredRow())));
    }

    // Before the file is scored (the explorer's editor starts then) a search starts from the
    // file's fastest measured rows alone, and its results carry the network's score and the
    // synthetic TPU's runtime, without a rank or a predicted runtime.
    void anUnscoredFileIsSearchedFromItsFastestMeasured() {
        const whatif::WhatIfPredictor unranked(m_resnet, nn::defaultModel(Collection::Layout),
                                               whatif::WhatIfPredictor::Unranked{});
        const std::vector<double>& runtimes = m_resnet->runtimes();
        const auto k = static_cast<size_t>(tune::limits::kFileSeeds);
        const std::vector<int64_t> seeds = tune::fileSeedRows(unranked);
        QCOMPARE(seeds.size(), k);
        QCOMPARE(runtimes[static_cast<size_t>(seeds.front())], unranked.bestMeasuredNs());
        std::vector<double> sorted = runtimes;
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 0; i < k; ++i) QCOMPARE(runtimes[static_cast<size_t>(seeds[i])], sorted[i]);
        // Scored, the model's best come first, then the same fastest measured.
        const std::vector<int64_t> both = tune::fileSeedRows(*m_resnetPredictor);
        QCOMPARE(both.size(), 2 * k);
        const std::vector<double>& scores = m_resnetPredictor->scores();
        QCOMPARE(scores[static_cast<size_t>(both.front())],
                 *std::min_element(scores.begin(), scores.end()));
        for (size_t i = 0; i < k; ++i)
            QCOMPARE(runtimes[static_cast<size_t>(both[k + i])], sorted[i]);

        tune::TuneOptions o = options(8, 40);
        o.start.kind = whatif::StartPoint::Kind::BestMeasured;
        const tune::TuneResult r = tune::ConfigSearch(unranked, o).run();
        QVERIFY(r.top.front().report.synthNs < unranked.bestMeasuredNs());
        for (const tune::TunedConfig& t : r.top) {
            QCOMPARE(t.report.rank, int64_t{0});
            QCOMPARE(t.report.predictedNs, -1.0);
            QCOMPARE(t.report.synthNs, unranked.synthRuntime(t.row));
            // The network's own score (an edit's incremental pass: equal within float rounding).
            QVERIFY(std::abs(t.report.score -
                             unranked.model().scoreRows(*m_resnet, t.row.data(), 1).front()) <
                    1e-4);
        }
    }

    // While measuring, each progress carries the fastest distinct programs so far: a new list
    // only when it changed, fastest first, led by the best measured; the last one is the final
    // list's rows (whose reports the file's model fills in at the end). The rounds keep no list.
    void progressListsTheFastestMeasuredSoFar() {
        tune::TuneOptions o = options(8, 30);
        o.top = 5;
        std::vector<std::shared_ptr<const std::vector<tune::TunedConfig>>> lists;
        bool sorted = true, ledByBest = true, distinct = true;
        const tune::TuneResult r =
            tune::ConfigSearch(*m_resnetPredictor, o).run([&](const tune::TuneProgress& p) {
                if (!p.fastestMeasured) return;
                if (lists.empty() || lists.back() != p.fastestMeasured)
                    lists.push_back(p.fastestMeasured);
                const std::vector<tune::TunedConfig>& l = *p.fastestMeasured;
                ledByBest = ledByBest && !l.empty() && l.front().report.synthNs == p.bestMeasuredNs;
                for (size_t i = 1; i < l.size(); ++i) {
                    sorted = sorted && l[i - 1].report.synthNs <= l[i].report.synthNs;
                    distinct = distinct && l[i - 1].report.synthNs != l[i].report.synthNs;
                }
            });
        QVERIFY(lists.size() >= 2);  // it changed as the search found faster ones
        auto rowsOf = [](const std::vector<tune::TunedConfig>& l) {
            std::vector<std::vector<float>> rows;
            rows.reserve(l.size());
            for (const tune::TunedConfig& t : l) rows.push_back(t.row);
            return rows;
        };
        for (size_t i = 1; i < lists.size(); ++i)
            QVERIFY(rowsOf(*lists[i - 1]) != rowsOf(*lists[i]));
        QVERIFY(sorted && ledByBest && distinct);
        QVERIFY(lists.back()->size() <= 5);
        QCOMPARE(lists.back()->size(), r.top.size());
        for (size_t i = 0; i < r.top.size(); ++i) {
            QCOMPARE((*lists.back())[i].row, r.top[i].row);
            QCOMPARE((*lists.back())[i].report.synthNs, r.top[i].report.synthNs);
            QVERIFY((*lists.back())[i].report.configs == 0 && r.top[i].report.configs > 0);
        }
        for (const tune::TuneProgress& p : r.rounds) QVERIFY(!p.fastestMeasured);
        // The model alone measures nothing: no list.
        bool listed = false;
        tune::ConfigSearch(*m_resnetPredictor, options(0, 5)).run([&](const tune::TuneProgress& p) {
            listed = listed || p.fastestMeasured != nullptr;
        });
        QVERIFY(!listed);
    }

    void cancelStopsWithinASecond() {
        nn::CancelToken cancel;
        tune::TuneOptions o = options(8, 0);
        o.budgetSeconds = 600;
        std::atomic<bool> started{false};
        std::chrono::steady_clock::time_point cancelledAt;
        std::thread stopper([&] {
            while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(5));
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            cancelledAt = std::chrono::steady_clock::now();
            cancel.cancel();
        });
        const tune::TuneResult r = tune::ConfigSearch(*m_resnetPredictor, o).run([&](const tune::TuneProgress&) { started = true; }, &cancel);
        const double lag = std::chrono::duration<double>(std::chrono::steady_clock::now() - cancelledAt).count();
        stopper.join();
        QVERIFY(r.cancelled);
        QVERIFY2(lag < 1.0, qPrintable(QString::number(lag)));
        QVERIFY(!r.top.empty());  // what it found so far
    }

    void badInputGetsOneClearMessage() {
        tune::TuneOptions zero = options(8, 0);
        zero.budgetSeconds = 0;
        try {
            const tune::ConfigSearch refused(*m_smallPredictor, zero);
            QFAIL("a budget of 0 was accepted");
        } catch (const FormatError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("--budget-seconds")), e.what());
        }
        // No configurable node: nothing to tune.
        TpuGraphData d = m_small->data();
        d.configurableNodes.clear();
        d.configFeatureWidth = 18;
        d.layoutConfigs = LayoutConfigTable::fromMatrix(CompactMatrix(0), 0, 18);
        d.runtimes.clear();
        const TpuGraph none(std::move(d));
        try {
            const tune::SearchSpace space(none, m_smallPredictor->synthTpu());
            QFAIL("a graph without configurable nodes was accepted");
        } catch (const FormatError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("no configurable node")), e.what());
        }
    }

    void tileFilesAreTunedByTheirBounds() {
        auto tile = std::make_shared<const TpuGraph>(synth::makeTileGraph(synth::Recipe::ConvKernel, 2, 40, "t"));
        const whatif::WhatIfPredictor p(tile, nn::defaultModel(Collection::Tile));
        const tune::SearchSpace space(*tile, p.synthTpu());
        QVERIFY(!space.coordinates().empty());
        for (const auto& c : space.coordinates()) QVERIFY(QString::fromStdString(c.name()).contains(QStringLiteral("_bounds_")));
        tune::TuneOptions o = options(4, 30);
        o.start.kind = whatif::StartPoint::Kind::BestMeasured;
        const tune::TuneResult r = tune::ConfigSearch(p, o).run();
        QVERIFY(r.top.front().report.synthNs <= p.synthRuntime(p.row(p.bestMeasuredRow())));
        // The greedy oracle on the same space never ends above its start either.
        const tune::BaselineResult g = tune::oracleGreedySearch(*tile, p.synthTpu(), p.row(p.bestMeasuredRow()), 5);
        QVERIFY(g.ns <= p.synthRuntime(p.row(p.bestMeasuredRow())));
        // Before the kernel's configurations are scored the same search runs, unranked.
        const whatif::WhatIfPredictor unranked(tile, nn::defaultModel(Collection::Tile),
                                               whatif::WhatIfPredictor::Unranked{});
        const tune::TuneResult u = tune::ConfigSearch(unranked, o).run();
        QVERIFY(u.top.front().report.synthNs <=
                unranked.synthRuntime(unranked.row(unranked.bestMeasuredRow())));
        QCOMPARE(u.top.front().report.rank, int64_t{0});
    }
};

QTEST_GUILESS_MAIN(TestConfigSearch)
#include "test_config_search.moc"
