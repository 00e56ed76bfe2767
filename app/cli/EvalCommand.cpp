#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "Commands.h"
#include "CostModel.h"
#include "DefaultModels.h"
#include "Evaluation.h"
#include "FileScoring.h"
#include "GraphBlindLinearRanker.h"
#include "LearnCommands.h"
#include "NumberText.h"
#include "PreparedGraph.h"
#include "ProgressBar.h"
#include "graph/DatasetIndex.h"
#include "graph/GraphFile.h"
#include "io/Error.h"
#include "synth/LinearConfigRanker.h"
#include "synth/SameProgramScores.h"
#include "synth/TpuCostModel.h"

namespace tpg::cli {

namespace {

struct EvalOptions {
    std::string model;
    std::string data;
    std::string collection;
    std::string split = "valid";
    std::string baseline;
    int64_t maxConfigs = 0;
    double heldOutConfigs = 0;
    int threads = 0;
    std::string programTies = "on";
};

void printGraph(Collection kind, const nn::GraphMetrics& m) {
    if (kind == Collection::Layout)
        std::printf("%-48s %8lld  %8.4f  %8.4f\n", m.id.c_str(), static_cast<long long>(m.configs),
                    m.opa, m.kendall);
    else
        std::printf("%-48s %8lld  %8.4f  %8.4f  %8.4f  %8.4f\n", m.id.c_str(),
                    static_cast<long long>(m.configs), m.slowdown1, m.slowdown5, m.slowdown10,
                    m.tileScore);
}

// A scorer and the words that say what it is.
struct Scoring {
    nn::ConfigScorer scorer;
    std::string what;
};

void checkBaselineOption(const EvalOptions& o) {
    if (o.baseline.empty()) return;
    if (o.baseline != "graph-blind" && o.baseline != "per-graph-linear" &&
        o.baseline != "synthetic-tpu")
        throw FormatError(
            "--baseline: expected 'graph-blind', 'per-graph-linear' or 'synthetic-tpu', got '" +
            o.baseline + "'");
    if (!o.model.empty()) throw FormatError("--baseline and --model exclude each other");
}

Scoring noiseFreeTpuScoring() {
    Scoring s;
    s.scorer = [](const TpuGraph& g, const std::vector<int64_t>& ids) {
        synth::TpuParameters noiseFree;
        noiseFree.noiseSigma = 0;
        const synth::TpuCostModel tpu(g, noiseFree);
        std::vector<double> scores;
        scores.reserve(ids.size());
        for (int64_t c : ids) scores.push_back(tpu.runtime(c));
        return scores;
    };
    s.what = "synthetic TPU without measurement noise (the ceiling on synthetic files)";
    return s;
}

Scoring perGraphLinearScoring(double heldOutConfigs) {
    if (heldOutConfigs <= 0)
        throw FormatError(
            "--baseline per-graph-linear needs --held-out-configs FRAC (it fits each graph on "
            "its other configs)");
    Scoring s;
    s.scorer = [heldOutConfigs](const TpuGraph& g, const std::vector<int64_t>& ids) {
        std::vector<int64_t> train;
        const std::vector<char> held = nn::heldOutConfigs(g, heldOutConfigs);
        for (int64_t c = 0; c < g.numConfigs(); ++c)
            if (!held[static_cast<size_t>(c)] && g.normalizedRuntime(c) > 0) train.push_back(c);
        LinearConfigRanker ranker;
        ranker.fit(g, train);
        return ranker.predict(g, ids);
    };
    s.what = "per-graph LinearConfigRanker (fitted on each graph's other configs)";
    return s;
}

Scoring graphBlindScoring(const EvalOptions& o, const std::vector<DatasetFile>& all,
                          Collection kind) {
    const auto train = nn::selectCollection(all, o.collection, "train");
    if (train.empty())
        throw FormatError(o.data + ": the baseline needs train files for '" + o.collection + "'");
    ProgressBar bar("fitting graph-blind baseline", static_cast<int64_t>(train.size()));
    LoadOptions lo;
    lo.backgroundConfigs = false;
    std::shared_ptr<nn::GraphBlindLinearRanker> baseline;
    for (size_t i = 0; i < train.size(); ++i) {
        const TpuGraph g = loadTpuGraph(train[i].path, lo);
        if (!baseline)
            baseline = std::make_shared<nn::GraphBlindLinearRanker>(kind, g.configFeatureWidth());
        baseline->addGraph(g, 1000, o.heldOutConfigs);
        bar.update(static_cast<double>(i + 1));
    }
    baseline->fit();
    bar.finish();
    Scoring s;
    s.scorer = [baseline](const TpuGraph& g, const std::vector<int64_t>& ids) {
        return baseline->score(g, ids);
    };
    s.what = "graph-blind linear baseline (" +
             countOf(baseline->graphsSeen(), "train graph", "train graphs") + ")";
    return s;
}

// The model's scorer moves the bar within a graph (one of 100,000 configurations takes minutes):
// `graphsDone` is how many graphs came before it.
Scoring modelScoring(const EvalOptions& o, Collection kind, bool programTies,
                     ProgressBar& evaluating, const size_t& graphsDone) {
    nn::CostModel model =
        o.model.empty() ? nn::defaultModel(kind, o.collection) : nn::CostModel::load(o.model);
    if (model.kind() != kind)
        throw FormatError(model.label() + ": trained for " + model.info().collection +
                          ", cannot score " + collectionName(kind) + " files");
    if (o.heldOutConfigs > 0 &&
        std::abs(model.info().heldOutConfigFraction - o.heldOutConfigs) > 1e-12)
        std::fprintf(stderr,
                     "warning: %s was trained holding out %.3g of each graph's configs, not %.3g\n",
                     model.label().c_str(), model.info().heldOutConfigFraction, o.heldOutConfigs);
    model.setTieSamePrograms(programTies);
    Scoring s;
    s.scorer = [model, &evaluating, &graphsDone](const TpuGraph& g,
                                                 const std::vector<int64_t>& ids) {
        const std::string name = std::filesystem::path(g.path()).stem().string();
        return scoreFile(model, g, &ids, [&](double part, const std::string& what) {
            evaluating.update(static_cast<double>(graphsDone) + part, name + " " + what);
        });
    };
    s.what = model.label() + " (trained for " + model.info().collection + ")";
    return s;
}

void printMean(Collection kind, const std::vector<nn::GraphMetrics>& metrics) {
    const nn::ValidationSummary s = nn::summarize(kind, metrics);
    nn::GraphMetrics mean;
    mean.id = "mean (" + countOf(s.graphs, "graph", "graphs") + ")";
    mean.opa = s.opa;
    mean.kendall = s.kendall;
    mean.slowdown1 = s.slowdown1;
    mean.slowdown5 = s.slowdown5;
    mean.slowdown10 = s.slowdown10;
    mean.tileScore = s.score;
    mean.configs = 0;
    for (const auto& m : metrics) mean.configs += m.configs;
    printGraph(kind, mean);
}

void printHeader(const EvalOptions& o, Collection kind, const std::string& what, size_t graphs) {
    std::printf(
        "evaluating %s on %s of %s%s\n", what.c_str(),
        countOf(static_cast<int64_t>(graphs), o.split + " graph", o.split + " graphs").c_str(),
        o.collection.c_str(), o.heldOutConfigs > 0 ? " (held-out configs only)" : "");
    if (kind == Collection::Layout)
        std::printf("%-48s %8s  %8s  %8s\n", "graph", "configs", "OPA", "Kendall");
    else
        std::printf("%-48s %8s  %8s  %8s  %8s  %8s\n", "graph", "configs", "top1", "top5", "top10",
                    "score");
}

void run(const EvalOptions& o) {
    if (!(o.heldOutConfigs >= 0 && o.heldOutConfigs < 1))
        throw FormatError("--held-out-configs: expected the fraction train reserved, in [0, 1)");
    if (o.threads > 0) nn::setThreads(o.threads);
    const auto all = scanDataset(o.data);
    const auto files = nn::selectCollection(all, o.collection, o.split);
    if (files.empty()) throw FormatError(noFilesMessage(o.data, o.collection, o.split, all));
    const Collection kind = files.front().kind;
    for (const auto& f : files)
        if (f.kind != kind)
            throw FormatError("--collection '" + o.collection +
                              "' mixes tile and layout files; pick one kind");
    checkBaselineOption(o);
    const bool programTies = parseOnOff(o.programTies, "--program-ties");

    ProgressBar evaluating("evaluating", static_cast<int64_t>(files.size()));
    size_t graphsDone = 0;
    Scoring scoring = o.baseline == "synthetic-tpu"      ? noiseFreeTpuScoring()
                      : o.baseline == "per-graph-linear" ? perGraphLinearScoring(o.heldOutConfigs)
                      : !o.baseline.empty()
                          ? graphBlindScoring(o, all, kind)
                          : modelScoring(o, kind, programTies, evaluating, graphsDone);
    if (programTies && (o.baseline == "graph-blind" || o.baseline == "per-graph-linear")) {
        // The same rule as the model's scoring, so the comparison stays even.
        scoring.scorer = [inner = scoring.scorer](const TpuGraph& g,
                                                  const std::vector<int64_t>& ids) {
            std::vector<double> scores = inner(g, ids);
            synth::shareScoresWithinPrograms(g, ids, scores);
            return scores;
        };
    }
    printHeader(o, kind, scoring.what, files.size());
    nn::EvaluationOptions eo;
    eo.maxConfigsPerGraph = o.maxConfigs;
    eo.heldOutConfigFraction = o.heldOutConfigs;
    const auto metrics =
        nn::evaluateFiles(files, scoring.scorer, eo, [&](size_t done, const nn::GraphMetrics* m) {
            evaluating.clear();  // the graph's line where the bar stood
            if (m) printGraph(kind, *m);
            std::fflush(stdout);
            graphsDone = done;
        });
    evaluating.clear();
    if (metrics.empty())
        throw FormatError(o.data + ": no " + o.split + " graph has known runtimes to evaluate on");
    printMean(kind, metrics);
}

}  // namespace

void addEvalCommand(CLI::App& app) {
    auto o = std::make_shared<EvalOptions>();
    auto* cmd = app.add_subcommand("eval", learnCommandDescription("eval"));
    cmd->add_option("--model", o->model,
                    "Model file (default: the built-in model of the collection's kind)");
    cmd->add_option("--data", o->data, "Dataset folder")->required();
    cmd->add_option("--collection", o->collection,
                    "layout:xla:random, tile:xla, ... ('layout' = every layout collection)")
        ->required()
        ->check(CLI::Validator(collectionProblem, "COLLECTION"));
    cmd->add_option("--split", o->split,
                    "train, valid or test (test: by the ground truth shipped beside the dataset, "
                    "where it has one)")
        ->check(CLI::IsMember({"train", "valid", "test"}))
        ->capture_default_str();
    cmd->add_option("--max-configs", o->maxConfigs,
                    "Score a fixed random subset of at most N configs per graph (0 = all)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    cmd->add_option(
        "--held-out-configs", o->heldOutConfigs,
        "Only the configs `train --held-out-configs FRAC` reserved (use with --split train)");
    cmd->add_option("--baseline", o->baseline,
                    "Instead of a model: 'graph-blind' (one linear config-only model fitted on the "
                    "train split) or "
                    "'per-graph-linear' (LinearConfigRanker fitted per graph on the configs "
                    "--held-out-configs leaves) or 'synthetic-tpu' (the synthetic TPU's noise-free "
                    "runtime: the best any model can rank synthetic files)");
    cmd->add_option("--threads", o->threads, "Torch threads (0 = all cores)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--program-ties", o->programTies,
                    "on: configs that compile to the same program (by the synthetic TPU's model of the "
                    "compiler) share one score, their mean, for the model and the linear baselines "
                    "alike, as scoring does everywhere; off: each config's own score")
        ->capture_default_str();
    cmd->callback([o] { run(*o); });
}

}  // namespace tpg::cli
