#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>

#include "Commands.h"
#include "LearnCommands.h"
#include "graph/DatasetIndex.h"
#include "io/Error.h"
#include "ProgressBar.h"
#include "Trainer.h"

namespace tpg::cli {

namespace {

struct TrainOptions {
    nn::TrainSettings settings;
    std::string loss = "hinge";
    std::string hops = "1";
    std::string violation = "off";
    std::string attention = "off";
    std::string slotFeatures = nn::ModelSettings{}.slotFeatures ? "on" : "off";
    std::string nodeCost = nn::ModelSettings{}.nodeCostReadout ? "on" : "off";
    std::string boundsFeatures = nn::ModelSettings{}.boundsFeatures ? "on" : "off";
    double cacheMiB = static_cast<double>(nn::limits::kDefaultCacheBytes >> 20);
};

bool parseOnOff(const std::string& s, const char* option) {
    if (s == "on") return true;
    if (s == "off") return false;
    throw FormatError(std::string(option) + ": expected 'on' or 'off', got '" + s + "'");
}

std::string validationText(Collection kind, const nn::ValidationSummary& v) {
    char buf[200];
    if (kind == Collection::Layout)
        std::snprintf(buf, sizeof buf, "kendall %.4f  opa %.4f  (%d graphs)", v.kendall, v.opa,
                      v.graphs);
    else
        std::snprintf(buf, sizeof buf,
                      "top1 %.4f  top5 %.4f  top10 %.4f slowdown  score %.4f  (%d graphs)",
                      v.slowdown1, v.slowdown5, v.slowdown10, v.score, v.graphs);
    return buf;
}

std::string epochLabel(const nn::TrainProgress& p) {
    char buf[40];
    if (p.epochs > 0) std::snprintf(buf, sizeof buf, "epoch %3d/%d", p.epoch, p.epochs);
    else std::snprintf(buf, sizeof buf, "epoch %3d", p.epoch);
    return buf;
}

std::string etaText(double seconds) {
    if (seconds < 0) return "";
    char buf[40];
    const auto s = static_cast<long long>(seconds);
    std::snprintf(buf, sizeof buf, ", ETA %lld:%02lld", s / 60, s % 60);
    return buf;
}

void run(TrainOptions& o) {
    nn::TrainSettings& s = o.settings;
    if (s.dataDir.empty() == s.trainFile.empty())
        throw FormatError("train: give --data FOLDER (with --collection) or --file FILE.npz, not both");
    if (!s.dataDir.empty() && s.collection.empty())
        throw FormatError("train: --data needs --collection (e.g. layout:xla:random or tile:xla)");
    if (!s.trainFile.empty() && s.heldOutConfigFraction <= 0)
        s.heldOutConfigFraction = nn::limits::kSingleFileHeldOutFraction;
    if (!nn::parseLoss(o.loss, s.loss))
        throw FormatError("--loss: expected hinge, listmle or mse, got '" + o.loss + "'");
    if (o.hops == "full")
        s.model.pruneHops = -1;
    else {
        try {
            s.model.pruneHops = std::stoi(o.hops);
        } catch (const std::exception&) {
            throw FormatError("--hops: expected a number of hops or 'full', got '" + o.hops + "'");
        }
        if (s.model.pruneHops < 0) throw FormatError("--hops: expected >= 0 or 'full'");
    }
    s.model.violationFeature = parseOnOff(o.violation, "--violation-feature");
    s.model.configAttention = parseOnOff(o.attention, "--config-attention");
    s.model.slotFeatures = parseOnOff(o.slotFeatures, "--slot-features");
    s.model.nodeCostReadout = parseOnOff(o.nodeCost, "--node-cost-readout");
    s.model.boundsFeatures = parseOnOff(o.boundsFeatures, "--bounds-features");
    if (s.model.hidden % s.model.attentionHeads != 0)
        throw FormatError("--hidden must be a multiple of " +
                          std::to_string(s.model.attentionHeads));
    s.cacheBytes = static_cast<size_t>(std::max(64.0, o.cacheMiB)) << 20;

    std::unique_ptr<ProgressBar> bar;
    int barEpoch = -1;
    int64_t trainSteps = 0;
    const Collection kind = !s.trainFile.empty()               ? describeFile(s.trainFile).kind
                            : s.collection.rfind("tile", 0) == 0 ? Collection::Tile
                                                                 : Collection::Layout;
    auto onProgress = [&](const nn::TrainProgress& p) {
        char detail[160];
        switch (p.phase) {
            case nn::TrainProgress::Phase::Preparing:
                std::printf("%s\n", p.message.c_str());
                std::fflush(stdout);
                break;
            case nn::TrainProgress::Phase::Training:
                if (barEpoch != p.epoch) {
                    bar = std::make_unique<ProgressBar>(epochLabel(p), p.steps);
                    barEpoch = p.epoch;
                    trainSteps = p.steps;
                }
                std::snprintf(detail, sizeof detail, "loss %.4f lr %.2g %.0f configs/s%s", p.loss,
                              p.learningRate, p.configsPerSecond, etaText(p.etaSeconds).c_str());
                bar->update(p.step, detail);
                break;
            case nn::TrainProgress::Phase::Validating:
                if (bar) {
                    std::snprintf(detail, sizeof detail, "loss %.4f, validating %lld/%lld", p.loss,
                                  static_cast<long long>(p.step), static_cast<long long>(p.steps));
                    bar->update(trainSteps, detail);
                }
                break;
            case nn::TrainProgress::Phase::EpochDone:
                if (bar) bar->finish();
                bar.reset();
                barEpoch = -1;
                std::printf("%s  loss %.4f  valid %s  %.1fs  %.0f configs/s%s\n",
                            epochLabel(p).c_str(), p.loss, validationText(kind, p.validation).c_str(),
                            p.elapsedSeconds, p.configsPerSecond, p.improved ? "  * saved" : "");
                std::fflush(stdout);
                break;
            case nn::TrainProgress::Phase::Finished:
                if (bar) bar->finish(p.message);
                break;
            case nn::TrainProgress::Phase::Checkpointed:
                break;
        }
    };
    const nn::TrainResult r = nn::trainCostModel(s, onProgress);
    for (const auto& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const char* why = r.cancelled      ? "cancelled"
                      : r.timedOut     ? "time budget reached"
                      : r.earlyStopped ? "stopped early (no validation gain)"
                                       : "all epochs done";
    if (!r.saved)
        throw FormatError("train: no model saved (" + std::string(why) +
                          " before the first validation)");
    std::printf("%s after %d epochs, %lld steps, %.1fs. best valid %s -> %s\n", why, r.epochsRun,
                static_cast<long long>(r.steps), r.seconds, validationText(kind, r.best).c_str(),
                s.outPath.c_str());
}

}  // namespace

void addTrainCommand(CLI::App& app) {
    auto o = std::make_shared<TrainOptions>();
    nn::TrainSettings& s = o->settings;
    auto* cmd = app.add_subcommand("train", learnCommandDescription("train"));
    cmd->add_option("--data", s.dataDir, "Dataset folder (with npz/{tile,layout}/... below it)");
    cmd->add_option("--collection", s.collection,
                    "layout:xla:random, layout:nlp:default, tile:xla, ... ('layout' = every layout "
                    "collection)");
    cmd->add_option("--file", s.trainFile,
                    "Train on this one file's measured configs instead of --data, validating on "
                    "the --held-out-configs share of them (default 0.2)");
    cmd->add_option("--out", s.outPath,
                    "Model file to write (the best epoch; MODEL.state keeps the training state)")
        ->required();
    cmd->add_option("--minutes", s.minutes,
                    "Wall-clock budget in minutes, validation included: the run trains until it "
                    "is spent or validation stops improving (0 = no budget; then give --epochs)")
        ->capture_default_str();
    cmd->add_option("--epochs", s.epochs,
                    "Epoch limit (0 = none). An epoch samples every train graph's configurations "
                    "about once (at most 16,384 per graph)")
        ->capture_default_str();
    cmd->add_option("--seed", s.seed, "Random seed (weights, shuffling, config sampling)")
        ->capture_default_str();
    cmd->add_option("--threads", s.threads, "Torch threads (0 = all cores)")->capture_default_str();
    cmd->add_option("--hidden", s.model.hidden, "Hidden width")->capture_default_str();
    cmd->add_option("--layers", s.model.layers, "GraphSAGE layers")->capture_default_str();
    cmd->add_option(
           "--hops", o->hops,
           "Layout pruning: keep configurable nodes and their K-hop neighbourhood, or 'full'")
        ->capture_default_str();
    cmd->add_option("--loss", o->loss, "hinge (pairwise), listmle or mse (log runtime)")
        ->capture_default_str();
    cmd->add_option("--margin", s.margin, "Pairwise hinge margin")->capture_default_str();
    cmd->add_option("--lr", s.learningRate, "Adam learning rate (cosine decay)")
        ->capture_default_str();
    cmd->add_option("--configs-per-step", s.configsPerStep,
                    "Distinct configs sampled per graph per step")
        ->capture_default_str();
    cmd->add_option("--graphs-per-step", s.graphsPerStep,
                    "Graphs per optimiser step (0 = 1 layout, 8 tile)")
        ->capture_default_str();
    cmd->add_option("--patience", s.patience, "Stop after this many epochs without validation gain")
        ->capture_default_str();
    cmd->add_option("--violation-feature", o->violation,
                    "Layout: add the graph-level violation-ratio input (on/off)")
        ->capture_default_str();
    cmd->add_option("--slot-features", o->slotFeatures,
                    "Layout: describe each slot's layout physically (minor dims' sizes, tile "
                    "padding, the op's preferred minor dim) beside its raw values (on/off)")
        ->capture_default_str();
    cmd->add_option("--node-cost-readout", o->nodeCost,
                    "Layout: each node predicts its own cost and the score adds the log of their "
                    "sum (on/off)")
        ->capture_default_str();
    cmd->add_option("--bounds-features", o->boundsFeatures,
                    "Tile: describe what the bounds mean for the kernel's tensors (tile count, "
                    "partial and lane-padded tiles, tile bytes, working set) beside them (on/off)")
        ->capture_default_str();
    cmd->add_option("--config-attention", o->attention,
                    "Configs of a batch attend to each other (on/off)")
        ->capture_default_str();
    cmd->add_option(
           "--held-out-configs", s.heldOutConfigFraction,
           "Reserve this fraction of every train graph's configs (see eval --held-out-configs)")
        ->capture_default_str();
    cmd->add_option("--max-graphs", s.maxTrainGraphs,
                    "Use at most this many train graphs (0 = all)")
        ->capture_default_str();
    cmd->add_option("--valid-configs", s.validConfigsPerGraph,
                    "Configs scored per valid graph each epoch (0 = all)")
        ->capture_default_str();
    cmd->add_option("--cache-mb", o->cacheMiB, "Memory for prepared graphs (LRU), MiB")
        ->capture_default_str();
    cmd->add_flag("--resume", s.resume, "Continue from MODEL.state if it exists");
    cmd->add_option("--log", s.logPath,
                    "Write the metrics the explorer plots as JSON lines: a start record, one per "
                    "optimiser step and epoch, an end record (resumed runs continue it)");
    cmd->add_option("--checkpoint-seconds", s.checkpointSeconds,
                    "Also save the training state this often within an epoch (a killed run "
                    "resumes from it with --resume)")
        ->capture_default_str();
    cmd->callback([o] { run(*o); });
}

}  // namespace tpg::cli
