#include "tune/ConfigSearch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "OnlineFineTuner.h"
#include "io/Error.h"
#include "tune/SearchSpace.h"
#include "tune/TuneLimits.h"

namespace tpg::tune {

namespace {

using Clock = std::chrono::steady_clock;

uint64_t hashRow(const std::vector<float>& row) {
    uint64_t h = 1469598103934665603ULL;  // FNV-1a over the values' bits
    for (float v : row) {
        uint32_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        h = (h ^ bits) * 1099511628211ULL;
    }
    return h;
}

struct Candidate {
    std::vector<float> row;
    uint64_t hash = 0;
    double score = 0;
    double measuredNs = -1;
};

bool byScore(const Candidate& a, const Candidate& b) { return a.score < b.score; }
bool byMeasured(const Candidate& a, const Candidate& b) { return a.measuredNs < b.measuredNs; }

// The first `top` of `list` that compile to distinct programs. Rows that differ only where the
// compiler ignores them (an operand layout equal to what arrives, a bound beyond its dim) compile
// to the same program, with the same synthetic-TPU runtime: each is listed once.
std::vector<const Candidate*> distinctPrograms(const std::vector<Candidate>& list, int top,
                                               const whatif::WhatIfPredictor& predictor) {
    std::vector<const Candidate*> out;
    std::unordered_set<double> programs;
    for (const Candidate& c : list) {
        if (out.size() >= static_cast<size_t>(top)) break;
        if (programs.insert(c.measuredNs >= 0 ? c.measuredNs : predictor.synthRuntime(c.row))
                .second)
            out.push_back(&c);
    }
    return out;
}

}  // namespace

std::vector<int64_t> fileSeedRows(const whatif::WhatIfPredictor& predictor) {
    std::vector<int64_t> seeds;
    const int64_t configs = predictor.graph().numConfigs();
    std::vector<int64_t> order(static_cast<size_t>(configs));
    const auto k = static_cast<size_t>(std::min(limits::kFileSeeds, configs));
    auto takeBest = [&](auto key) {
        std::iota(order.begin(), order.end(), 0);
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k),
                          order.end(), [&](int64_t a, int64_t b) { return key(a) < key(b); });
        seeds.insert(seeds.end(), order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k));
    };
    const std::vector<double>& scores = predictor.scores();
    if (predictor.isRanked()) takeBest([&](int64_t c) { return scores[static_cast<size_t>(c)]; });
    const TpuGraph& g = predictor.graph();
    if (g.runtimesKnown())
        takeBest([&](int64_t c) { return g.runtimes()[static_cast<size_t>(c)]; });
    return seeds;
}

void checkTuneOptions(const TuneOptions& o) {
    if (!(o.budgetSeconds > 0) || o.budgetSeconds > limits::kMaxBudgetSeconds) {
        std::ostringstream got;  // "-1.5", not std::to_string's "-1.500000"
        got << o.budgetSeconds;
        throw FormatError("--budget-seconds: expected a time above 0 and at most " +
                          std::to_string(static_cast<int64_t>(limits::kMaxBudgetSeconds)) +
                          " s, got " + got.str());
    }
    if (o.measurePerRound < 0 || o.measurePerRound > limits::kMaxMeasurePerRound)
        throw FormatError("--measure: expected 0 (the model alone) to " + std::to_string(limits::kMaxMeasurePerRound) +
                          " configurations per round, got " + std::to_string(o.measurePerRound));
    if (o.top < 1 || o.top > limits::kMaxTop)
        throw FormatError("--top: expected 1 to " + std::to_string(limits::kMaxTop) + ", got " + std::to_string(o.top));
    if (o.maxRounds < 0) throw FormatError("--rounds: expected 0 (until the budget) or more");
}

struct ConfigSearch::State {
    State(const whatif::WhatIfPredictor& p, const TuneOptions& o)
        : predictor(p), g(p.graph()), options(o), space(p.graph(), p.synthTpu()), tuner(p.model()), rng(o.seed) {}

    const whatif::WhatIfPredictor& predictor;
    const TpuGraph& g;
    const TuneOptions& options;
    SearchSpace space;
    nn::OnlineFineTuner tuner;
    std::mt19937_64 rng;
    Clock::time_point begin = Clock::now();
    const nn::CancelToken* cancel = nullptr;

    std::unordered_set<uint64_t> scored;
    std::unordered_map<uint64_t, double> measuredNs;
    std::vector<Candidate> population;  // best score first
    std::vector<Candidate> measured;    // fastest first
    Candidate incumbent;
    size_t cursor = 0;
    size_t sinceGain = 0;  // coordinates swept since the incumbent last improved
    uint64_t reportedHash = 0;  // the row bestPredictedNs was computed for
    std::vector<uint64_t> reportedFastest;  // the rows of progress.fastestMeasured
    TuneProgress progress;
    bool stopped = false;

    double elapsed() const { return std::chrono::duration<double>(Clock::now() - begin).count(); }
    bool shouldStop() {
        if (!stopped && ((cancel && cancel->cancelled()) || elapsed() >= options.budgetSeconds)) stopped = true;
        return stopped;
    }
    bool measuring() const { return options.measurePerRound > 0; }
    double score(const std::vector<float>& row) const { return tuner.model().scoreEdited(g, row.data()); }

    // Scores the candidates not seen before (stopping early on the clock or a cancel); drops the rest.
    void scoreNew(std::vector<Candidate>& cands) {
        std::vector<Candidate> kept;
        for (auto& c : cands) {
            if (kept.size() % limits::kCancelCheckCandidates == 0 && shouldStop()) break;
            c.hash = hashRow(c.row);
            if (!scored.insert(c.hash).second) continue;
            c.score = score(c.row);
            kept.push_back(std::move(c));
        }
        progress.candidatesScored += static_cast<int64_t>(kept.size());
        cands = std::move(kept);
    }

    void addToPopulation(const std::vector<Candidate>& cands) {
        for (const auto& c : cands)
            if (std::none_of(population.begin(), population.end(), [&](const Candidate& p) { return p.hash == c.hash; }))
                population.push_back(c);
        std::stable_sort(population.begin(), population.end(), byScore);
        if (population.size() > limits::kPopulation) population.resize(limits::kPopulation);
    }

    Candidate& measure(Candidate& c) {
        if (auto it = measuredNs.find(c.hash); it != measuredNs.end()) {
            c.measuredNs = it->second;
            return c;
        }
        c.measuredNs = predictor.synthRuntime(c.row);
        measuredNs.emplace(c.hash, c.measuredNs);
        ++progress.measured;
        const auto at = std::upper_bound(measured.begin(), measured.end(), c, byMeasured);
        measured.insert(at, c);
        if (measured.size() > limits::kMeasuredRowsKept) measured.pop_back();
        return c;
    }

    size_t pickParent() {
        // A tournament of two over the population: better-scored parents breed more.
        std::uniform_int_distribution<size_t> any(0, population.size() - 1);
        return std::min(any(rng), any(rng));
    }

    // Candidates measured per coordinate of the sweep: the model's two best values.
    static constexpr size_t kMeasuredPerCoordinate = 2;

    size_t sweepWidth() const {
        if (!measuring()) return limits::kSweepCoordinatesPerRound;
        return std::max<size_t>(1, static_cast<size_t>(options.measurePerRound) / kMeasuredPerCoordinate);
    }

    // Coordinate descent, the model choosing: every value of coordinate `c` of the incumbent is
    // scored; measuring, the best-scored are measured and the fastest wins if it beats the
    // incumbent; else the best-scored wins if it beats the incumbent's score. True on a gain.
    bool sweep(size_t c) {
        const int current = space.valueOf(incumbent.row, c);
        std::vector<Candidate> moves;
        for (size_t v = 0; v < space.coordinates()[c].values.size(); ++v) {
            if (static_cast<int>(v) == current) continue;
            Candidate k;
            k.row = incumbent.row;
            space.set(k.row, c, v);
            moves.push_back(std::move(k));
        }
        scoreNew(moves);
        if (moves.empty()) return false;
        std::stable_sort(moves.begin(), moves.end(), byScore);
        addToPopulation(moves);
        if (!measuring()) {
            if (moves.front().score >= incumbent.score) return false;
            incumbent = moves.front();
            return true;
        }
        const Candidate* best = nullptr;
        for (size_t i = 0; i < std::min(kMeasuredPerCoordinate, moves.size()) && !shouldStop(); ++i) {
            measure(moves[i]);
            if (moves[i].measuredNs < incumbent.measuredNs && (!best || moves[i].measuredNs < best->measuredNs))
                best = &moves[i];
        }
        if (!best) return false;
        incumbent = *best;
        return true;
    }

    // Once a whole pass gains nothing the descent sits in a local optimum: mutants (1-3
    // coordinates changed) and crossovers of the population's best are scored, and the best of
    // them measured (or, without measuring, taken when the model prefers it).
    void explore() {
        std::vector<Candidate> cands;
        const size_t n = space.coordinates().size();
        std::uniform_int_distribution<size_t> coordinate(0, n - 1);
        for (size_t i = 0; i < limits::kMutantsPerRound && !population.empty(); ++i) {
            Candidate k;
            k.row = population[pickParent()].row;
            const int changes = std::uniform_int_distribution<int>(1, 3)(rng);
            for (int j = 0; j < changes; ++j) {
                const size_t c = coordinate(rng);
                space.set(k.row, c, std::uniform_int_distribution<size_t>(0, space.coordinates()[c].values.size() - 1)(rng));
            }
            cands.push_back(std::move(k));
        }
        for (size_t i = 0; i < limits::kCrossoversPerRound && !population.empty(); ++i) {
            const std::vector<float>& other = population[pickParent()].row;
            Candidate k;
            k.row = incumbent.row;
            for (size_t c = 0; c < n; ++c) {
                const int v = space.valueOf(other, c);
                if (v >= 0 && (rng() & 1U)) space.set(k.row, c, static_cast<size_t>(v));
            }
            cands.push_back(std::move(k));
        }
        scoreNew(cands);
        std::stable_sort(cands.begin(), cands.end(), byScore);
        addToPopulation(cands);
        if (!measuring()) {
            if (!cands.empty() && cands.front().score < incumbent.score) incumbent = cands.front();
            return;
        }
        for (size_t i = 0; i < std::min(cands.size(), static_cast<size_t>(options.measurePerRound)) && !shouldStop(); ++i)
            if (measure(cands[i]).measuredNs < incumbent.measuredNs) incumbent = cands[i];
    }

    void round() {
        const size_t n = space.coordinates().size();
        if (sinceGain >= n) {
            explore();
            sinceGain = 0;  // a new pass from wherever exploring led
            return;
        }
        for (size_t i = 0; i < sweepWidth() && !shouldStop(); ++i) {
            const bool gained = sweep(cursor++ % n);
            sinceGain = gained ? 0 : sinceGain + 1;
        }
    }

    size_t measuredAtLastTune = 0;
    void fineTune() {
        if (!options.fineTune || measured.size() < limits::kFineTuneMinRows) return;
        if (static_cast<size_t>(progress.measured) < measuredAtLastTune + limits::kFineTuneEvery) return;
        measuredAtLastTune = static_cast<size_t>(progress.measured);
        // The fastest half of the batch, and an even spread over the rest: the order near the
        // top is what the search needs right.
        std::vector<size_t> pick;
        const size_t n = measured.size(), want = std::min(n, limits::kFineTuneRows);
        for (size_t i = 0; i < want / 2; ++i) pick.push_back(i);
        const size_t rest = want - pick.size();
        for (size_t i = 0; i < rest; ++i) pick.push_back(want / 2 + i * (n - want / 2) / rest);
        std::vector<float> rows;
        std::vector<double> runtimes;
        for (size_t i : pick) {
            rows.insert(rows.end(), measured[i].row.begin(), measured[i].row.end());
            runtimes.push_back(std::log(measured[i].measuredNs));
        }
        tuner.train(g, rows.data(), runtimes, limits::kFineTuneSteps);
        for (auto& c : population) c.score = score(c.row);  // the new weights' view of them
        std::stable_sort(population.begin(), population.end(), byScore);
    }

    void report(const Progress& callback) {
        progress.elapsedSeconds = elapsed();
        progress.budgetSeconds = options.budgetSeconds;
        // The file's model on the best-scored row: one full pass, so only when that row changed.
        if (!population.empty() && population.front().hash != reportedHash) {
            reportedHash = population.front().hash;
            const std::vector<float>& best = population.front().row;
            progress.bestScore = predictor.model().scoreRows(g, best.data(), 1).front();
            progress.bestPredictedNs = predictor.predictedNs(progress.bestScore);
        }
        progress.bestMeasuredNs = measured.empty() ? -1 : measured.front().measuredNs;
        reportFastestMeasured();
        if (callback) callback(progress);
    }

    // A new list only when the fastest programs changed: rows can be large, rounds fast.
    void reportFastestMeasured() {
        const std::vector<const Candidate*> fastest =
            distinctPrograms(measured, options.top, predictor);
        std::vector<uint64_t> hashes(fastest.size());
        std::transform(fastest.begin(), fastest.end(), hashes.begin(),
                       [](const Candidate* c) { return c->hash; });
        if (hashes == reportedFastest) return;
        reportedFastest = std::move(hashes);
        auto list = std::make_shared<std::vector<TunedConfig>>();
        list->reserve(fastest.size());
        for (const Candidate* c : fastest) {
            TunedConfig t;
            t.row = c->row;
            t.report.synthNs = c->measuredNs;
            t.measured = true;
            list->push_back(std::move(t));
        }
        progress.fastestMeasured = std::move(list);
    }

    void seed(const std::vector<float>& startRow) {
        incumbent.row = startRow;
        incumbent.hash = hashRow(startRow);
        incumbent.score = score(startRow);
        scored.insert(incumbent.hash);
        std::vector<Candidate> fresh;
        for (const int64_t c : fileSeedRows(predictor))
            fresh.push_back(Candidate{predictor.row(c)});
        scoreNew(fresh);
        addToPopulation({incumbent});
        addToPopulation(fresh);
        progress.startNs = predictor.synthRuntime(startRow);
        if (measuring()) {
            measure(incumbent);
        }
    }
};

ConfigSearch::ConfigSearch(const whatif::WhatIfPredictor& predictor, TuneOptions options)
    : m_predictor(predictor), m_options(std::move(options)) {
    checkTuneOptions(m_options);
    if (m_options.startRow.empty()) m_options.start.check(predictor.graph());
    else if (static_cast<int64_t>(m_options.startRow.size()) != predictor.rowWidth())
        throw FormatError("tune: the start row has " + std::to_string(m_options.startRow.size()) + " values, expected " +
                          std::to_string(predictor.rowWidth()));
}

ConfigSearch::~ConfigSearch() = default;

TuneResult ConfigSearch::run(const Progress& progressCallback, const nn::CancelToken* cancel) {
    State s(m_predictor, m_options);
    s.cancel = cancel;
    TuneResult result;
    result.log10SpaceSize = s.space.log10Size();
    result.coordinates = static_cast<int64_t>(s.space.coordinates().size());
    const std::vector<float> startRow =
        m_options.startRow.empty() ? m_predictor.startRow(m_options.start) : m_options.startRow;
    s.seed(startRow);
    int64_t roundsWithoutNew = 0;
    while (!s.shouldStop() && (m_options.maxRounds == 0 || s.progress.round < m_options.maxRounds)) {
        const int64_t scoredBefore = s.progress.candidatesScored;
        s.round();
        if (s.measuring() && !s.stopped) s.fineTune();
        if (s.stopped) break;
        ++s.progress.round;
        s.report(progressCallback);
        result.rounds.push_back(s.progress);
        result.rounds.back().fastestMeasured.reset();
        roundsWithoutNew = s.progress.candidatesScored > scoredBefore ? 0 : roundsWithoutNew + 1;
        if (roundsWithoutNew >= limits::kRoundsWithoutNewToStop) {
            result.exhausted = true;
            break;
        }
    }
    result.cancelled = cancel && cancel->cancelled();

    // The final list: the fastest measured rows, then (not measuring, or too few) the best-scored.
    std::vector<Candidate> list = s.measured;
    std::unordered_set<uint64_t> listed;
    for (const auto& c : list) listed.insert(c.hash);
    for (const auto& c : s.population)
        if (listed.insert(c.hash).second) list.push_back(c);
    for (const Candidate* c : distinctPrograms(list, m_options.top, m_predictor)) {
        TunedConfig t;
        t.row = c->row;
        t.measured = c->measuredNs >= 0;
        t.report = m_predictor.evaluate(t.row);
        t.label = "tuned #" + std::to_string(result.top.size() + 1) + (t.measured ? " (measured)" : " (predicted)");
        result.top.push_back(std::move(t));
    }
    result.start.row = startRow;
    result.start.label = "start: " + (m_options.startRow.empty() ? m_options.start.text() : m_options.startLabel);
    result.start.report = m_predictor.evaluate(startRow);
    result.start.measured = s.measuring();
    result.candidatesScored = s.progress.candidatesScored;
    result.measured = s.progress.measured;
    result.seconds = s.elapsed();
    return result;
}

}  // namespace tpg::tune
