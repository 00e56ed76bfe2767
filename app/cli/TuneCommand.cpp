#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "Commands.h"
#include "DefaultModels.h"
#include "FileScoring.h"
#include "LearnCommands.h"
#include "NumberText.h"
#include "ProgressBar.h"
#include "graph/GraphFile.h"
#include "graph/GroundTruth.h"
#include "io/Error.h"
#include "session/WhatIfSession.h"
#include "tune/ConfigSearch.h"
#include "tune/TuneLimits.h"
#include "whatif/WhatIfPredictor.h"

namespace tpg::cli {

namespace {

struct TuneCommandOptions {
    std::string file, model, out, start;
    tune::TuneOptions search;
};

std::string ns(double v) { return v < 0 ? "-" : withCommas(std::llround(v)); }
// A predicted runtime, "<= " or ">= " where the fit clamped it (WhatIfReport::beyondFit).
std::string predicted(const whatif::WhatIfReport& r) {
    return boundPrefix(r.beyondFit) + ns(r.predictedNs);
}

std::string change(double now, double reference) { return percentChange(now, reference, "-"); }

nlohmann::json orNull(double v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); }

nlohmann::json entryJson(const tune::TunedConfig& t) {
    const whatif::WhatIfReport& r = t.report;
    return {{"label", t.label},
            {"config", t.row},
            {"score", r.score},
            {"rank", r.rank},
            {"predicted_ns", orNull(r.predictedNs)},
            {"predicted_beyond_fit", r.beyondFit},
            {"synthetic_tpu_ns", r.synthNs},
            {"measured", t.measured},
            {"matching_config",
             r.matchingRow < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.matchingRow)},
            {"same_program_config",
             r.sameProgramRow < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.sameProgramRow)},
            {"pinned", false}};
}

// One line per round, at most about once a second (and the last), so a long run stays readable.
class ProgressTable {
public:
    void header() const {
        std::printf("%6s %12s %9s %16s %16s %8s\n", "round", "candidates", "measured", "best predicted", "best measured",
                    "seconds");
    }
    // A row at most once a second, and the last round's (`force`) unless it was just printed: a
    // one-round search printed its row twice.
    void row(const tune::TuneProgress& p, bool force) {
        if (force ? p.round == m_lastRound : p.elapsedSeconds - m_last < 1.0) return;
        m_last = p.elapsedSeconds;
        m_lastRound = p.round;
        std::printf("%6lld %12s %9s %16s %16s %8.1f\n", static_cast<long long>(p.round),
                    withCommas(p.candidatesScored).c_str(), withCommas(p.measured).c_str(), ns(p.bestPredictedNs).c_str(),
                    ns(p.bestMeasuredNs).c_str(), p.elapsedSeconds);
        std::fflush(stdout);
    }

private:
    double m_last = -1e9;
    int64_t m_lastRound = -1;
};

void printResult(const tune::TuneResult& r, const whatif::WhatIfPredictor& p) {
    const double startNs = r.start.report.synthNs;
    std::printf("\n%3s %16s %9s %13s %16s %8s %9s  %s\n", "#", "synthetic TPU ns", "vs start", "vs best file",
                "predicted ns", "rank", "measured", "label");
    for (size_t i = 0; i < r.top.size(); ++i) {
        const tune::TunedConfig& t = r.top[i];
        std::printf("%3zu %16s %9s %13s %16s %8lld %9s  %s\n", i + 1, ns(t.report.synthNs).c_str(),
                    change(t.report.synthNs, startNs).c_str(),
                    change(t.report.synthNs, p.bestMeasuredNs()).c_str(),
                    predicted(t.report).c_str(), static_cast<long long>(t.report.rank),
                    t.measured ? "yes" : "no", t.label.c_str());
    }
    std::printf("%3s %16s %9s %13s %16s %8lld %9s  %s\n", "", ns(startNs).c_str(), "",
                change(startNs, p.bestMeasuredNs()).c_str(), predicted(r.start.report).c_str(),
                static_cast<long long>(r.start.report.rank), "", r.start.label.c_str());
    std::printf("synthetic TPU: %s\n", p.synthIsGroundTruth()
                                            ? "ground truth (this file is synthetic)"
                                            : "an analytic estimate, not this file's hardware: measure the suggestions on a TPU");
}

void run(TuneCommandOptions& o) {
    tune::checkTuneOptions(o.search);  // before the slow load and scoring
    auto graph = std::make_shared<const TpuGraph>(loadWithGroundTruth(o.file));
    const TpuGraph& g = *graph;
    if (o.start.empty()) o.start = g.runtimesKnown() ? "best" : "predicted-best";
    o.search.start = whatif::StartPoint::parse(o.start, "--start");
    o.search.start.check(g);
    nn::CostModel model =
        o.model.empty() ? nn::defaultModelForFile(o.file, g.collection(), g.searchCollection())
                        : nn::CostModel::load(o.model);
    model.requireCompatible(g);

    const auto began = std::chrono::steady_clock::now();
    // The bar counts configurations; the program index, where it runs, comes first on it.
    ProgressBar bar("scoring the file's configs", g.numConfigs());
    const ScoringPhases phases =
        scoringPhases(model.indexesPrograms(g), [&](double share, const std::string& what) {
            bar.update(share * static_cast<double>(g.numConfigs()), what);
        });
    const whatif::WhatIfPredictor p(graph, model, phases.scores, nullptr, phases.keys);
    bar.finish();
    const double scoringSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();

    tune::ConfigSearch search(p, o.search);  // throws when there is nothing to tune
    std::printf("%-16s %s (%s, %s configs, best measured %s ns)\n", "file", o.file.c_str(), collectionName(g.collection()),
                withCommas(g.numConfigs()).c_str(), ns(p.bestMeasuredNs()).c_str());
    std::printf("%-16s %s\n", "model", model.label().c_str());
    std::printf("%-16s %.1f s, measuring %d per round%s, seed %llu, start %s\n", "search", o.search.budgetSeconds,
                o.search.measurePerRound, o.search.measurePerRound && o.search.fineTune ? " (fine-tuning on them)" : "",
                static_cast<unsigned long long>(o.search.seed), o.start.c_str());
    ProgressTable table;
    table.header();
    const tune::TuneResult r = search.run([&](const tune::TuneProgress& pr) { table.row(pr, false); });
    if (!r.rounds.empty()) table.row(r.rounds.back(), true);
    std::printf(
        "%s, %s candidates scored, %s measured in %.1f s (the file's %s configs scored first in "
        "%.1f s); "
        "space: %s coordinates, 10^%.0f configurations\n",
        countOf(static_cast<int64_t>(r.rounds.size()), "round", "rounds").c_str(),
        withCommas(r.candidatesScored).c_str(), withCommas(r.measured).c_str(), r.seconds,
        withCommas(g.numConfigs()).c_str(), scoringSeconds, withCommas(r.coordinates).c_str(),
        r.log10SpaceSize);
    if (r.exhausted)
        std::printf(
            "ended before the budget: %s rounds in a row found no configuration not scored "
            "before\n",
            withCommas(tune::limits::kRoundsWithoutNewToStop).c_str());
    printResult(r, p);

    nlohmann::json doc =
        session::whatIfDocument(o.file, collectionName(g.collection()), model.label());
    for (const auto& t : r.top) doc["configurations"].push_back(entryJson(t));
    doc["tune"] = {{"budget_seconds", o.search.budgetSeconds},
                   {"seconds", r.seconds},
                   {"scoring_seconds", scoringSeconds},
                   {"rounds", r.rounds.size()},
                   {"candidates_scored", r.candidatesScored},
                   {"measured", r.measured},
                   {"exhausted", r.exhausted},
                   {"measure_per_round", o.search.measurePerRound},
                   {"fine_tune", o.search.fineTune},
                   {"seed", o.search.seed},
                   {"start", entryJson(r.start)},
                   {"best_measured_in_file_ns", orNull(p.bestMeasuredNs())},
                   {"synthetic_tpu_is_ground_truth", p.synthIsGroundTruth()}};
    session::writeWhatIfSession(o.out, doc);
    std::printf(
        "wrote %s (%s, best first)\n", o.out.c_str(),
        countOf(static_cast<int64_t>(r.top.size()), "configuration", "configurations").c_str());
}

}  // namespace

void addTuneCommand(CLI::App& app) {
    auto o = std::make_shared<TuneCommandOptions>();
    o->search.budgetSeconds = tune::limits::kDefaultBudgetSeconds;
    o->search.measurePerRound = tune::limits::kDefaultMeasurePerRound;
    o->search.top = tune::limits::kDefaultTop;
    auto* cmd = app.add_subcommand("tune", learnCommandDescription("tune"));
    cmd->add_option("FILE", o->file, "A layout or tile .npz file")->required();
    cmd->add_option("--model", o->model,
                    "Model file (default: the built-in model of the file's collection: its dataset "
                    "folder's, or the one it records, else its kind's)");
    cmd->add_option("--budget-seconds", o->search.budgetSeconds, "Wall clock for the search")->capture_default_str();
    cmd->add_option("--measure", o->search.measurePerRound,
                    "Candidates measured by the synthetic TPU per round and fed back; 0: the model alone")
        ->capture_default_str();
    cmd->add_flag("--no-fine-tune", [o](int64_t) { o->search.fineTune = false; },
                  "Do not fine-tune the model on the measured candidates");
    cmd->add_option("--start", o->start,
                    "Start from: best (measured; the default when the file has runtimes), predicted-best, default or "
                    "a config index");
    cmd->add_option("--top", o->search.top, "Configurations written, best first")->capture_default_str();
    cmd->add_option("--seed", o->search.seed, "Random seed")->capture_default_str();
    cmd->add_option("--rounds", o->search.maxRounds, "Stop after this many rounds too (0: the budget alone)")
        ->capture_default_str();
    cmd->add_option("--out", o->out, "What-if session file to write (JSON)")
        ->required()
        ->check(CLI::Validator(outputFileProblem, "FILE"));
    cmd->callback([o] { run(*o); });
}

}  // namespace tpg::cli
