#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>

#include "Commands.h"
#include "DataParallelGroup.h"
#include "LearnCommands.h"
#include "LocalLauncher.h"
#include "NumberText.h"
#include "ProgressBar.h"
#include "Trainer.h"
#include "graph/DatasetIndex.h"
#include "io/Error.h"

namespace tpg::cli {

namespace {

// Workers of a data-parallel run wait this long for each other to start (loading LibTorch and
// the data's statistics on a busy machine takes a while; torchrun's default rendezvous is longer).
constexpr int kDefaultJoinSeconds = 120;

struct TrainOptions {
    nn::TrainSettings settings;
    std::string loss = nn::lossName(nn::TrainSettings{}.loss);
    std::string hops = "1";
    std::string violation = "off";
    std::string attention = "off";
    std::string slotFeatures = nn::ModelSettings{}.slotFeatures ? "on" : "off";
    std::string nodeCost = nn::ModelSettings{}.nodeCostReadout ? "on" : "off";
    std::string boundsFeatures = nn::ModelSettings{}.boundsFeatures ? "on" : "off";
    std::string spillFeatures = nn::ModelSettings{}.spillFeatures ? "on" : "off";
    std::string trafficFeatures = nn::ModelSettings{}.trafficFeatures ? "on" : "off";
    std::string flowFeatures = nn::ModelSettings{}.flowFeatures ? "on" : "off";
    std::string relayoutFeatures = nn::ModelSettings{}.relayoutFeatures ? "on" : "off";
    std::string pooledHead = "auto";
    double cacheMiB = static_cast<double>(nn::limits::kDefaultCacheBytes >> 20);
    std::string sizeMatched = "auto";
    std::string products = nn::productsName(nn::TrainSettings{}.products);
    std::string schedule = nn::scheduleName(nn::TrainSettings{}.schedule);
    std::string selectBy = nn::selectionName(nn::TrainSettings{}.selectBy);
    int worldSize = 0;  // 0: from WORLD_SIZE when a launcher set RANK, else 1
    int joinSeconds = kDefaultJoinSeconds;
};

std::string validationText(Collection kind, const nn::ValidationSummary& v) {
    char buf[200];
    if (kind == Collection::Layout)
        std::snprintf(buf, sizeof buf, "kendall %.4f  opa %.4f", v.kendall, v.opa);
    else
        std::snprintf(buf, sizeof buf, "top1 %.4f  top5 %.4f  top10 %.4f slowdown  score %.4f",
                      v.slowdown1, v.slowdown5, v.slowdown10, v.score);
    return std::string(buf) + "  (" + countOf(v.graphs, "graph", "graphs") + ")";
}

std::string epochLabel(const nn::TrainProgress& p) {
    char buf[40];
    if (p.epochs > 0) std::snprintf(buf, sizeof buf, "epoch %3d/%d", p.epoch, p.epochs);
    else std::snprintf(buf, sizeof buf, "epoch %3d", p.epoch);
    return buf;
}

std::string etaText(double seconds) {
    return seconds < 0 ? "" : ", ETA " + clockText(seconds);
}

void applyOptions(TrainOptions& o) {
    nn::TrainSettings& s = o.settings;
    if (s.dataDir.empty() && s.trainFile.empty())
        throw FormatError("train: give --data FOLDER (with --collection) or --file FILE.npz");
    if (!s.dataDir.empty() && !s.trainFile.empty())
        throw FormatError("train: give --data FOLDER (with --collection) or --file FILE.npz, not both");
    if (!s.dataDir.empty() && s.collection.empty())
        throw FormatError("train: --data needs --collection (e.g. layout:xla:random or tile:xla)");
    if (!s.trainFile.empty() && s.heldOutConfigFraction <= 0)
        s.heldOutConfigFraction = nn::limits::kSingleFileHeldOutFraction;
    if (!nn::parseLoss(o.loss, s.loss))
        throw FormatError(std::string("--loss: expected ") + nn::lossChoices() + ", got '" + o.loss + "'");
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
    s.model.spillFeatures = parseOnOff(o.spillFeatures, "--spill-features");
    s.model.trafficFeatures = parseOnOff(o.trafficFeatures, "--traffic-features");
    s.model.flowFeatures = parseOnOff(o.flowFeatures, "--flow-features");
    s.model.relayoutFeatures = parseOnOff(o.relayoutFeatures, "--relayout-features");
    if (s.model.relayoutFeatures && !s.model.flowFeatures)
        throw FormatError("--relayout-features on needs --flow-features on: they extend the flow features");
    // auto: the default, and the head wherever something needs it (recorded so in the model file)
    s.model.pooledHead = o.pooledHead == "auto" ? nn::takesPooledHead(s.model) : parseOnOff(o.pooledHead, "--pooled-head");
    if (!s.model.pooledHead && !s.model.nodeCostReadout)
        throw FormatError("--pooled-head off needs --node-cost-readout on: a layout score needs one of them");
    if (!s.model.pooledHead && (s.model.configAttention || s.model.violationFeature))
        throw FormatError("--config-attention and --violation-feature act on the pooled embedding: "
                          "they need --pooled-head on");
    if (s.model.hidden < 0 || s.model.layers < 0)
        throw FormatError("--hidden and --layers: expected 0 (the kind's default) or more");
    if (s.model.hidden % s.model.attentionHeads != 0)
        throw FormatError("--hidden must be a multiple of " +
                          std::to_string(s.model.attentionHeads));
    if (!(o.cacheMiB >= nn::limits::kMinCacheMiB && o.cacheMiB < nn::limits::kMaxCacheMiB))
        throw FormatError("--cache-mb: expected " +
                          std::to_string(static_cast<int>(nn::limits::kMinCacheMiB)) +
                          " MiB or more (and under a petabyte)");
    s.cacheBytes = static_cast<size_t>(o.cacheMiB) << 20;
    if (o.worldSize < 0) throw FormatError("--world-size: expected 1 or more workers");
    using M = nn::TrainSettings::Matching;
    if (o.sizeMatched != "auto" && o.sizeMatched != "on" && o.sizeMatched != "off")
        throw FormatError("--size-matched-steps: expected on, off or auto, got '" + o.sizeMatched + "'");
    s.sizeMatchedSteps = o.sizeMatched == "auto" ? M::Auto : o.sizeMatched == "on" ? M::On : M::Off;
    if (!nn::parseProducts(o.products, s.products))
        throw FormatError("--products: expected auto, float or bfloat16, got '" + o.products + "'");
    if (!nn::parseSelection(o.selectBy, s.selectBy))
        throw FormatError("--select-by: expected score or kendall, got '" + o.selectBy + "'");
    if (!nn::parseSchedule(o.schedule, s.schedule))
        throw FormatError(std::string("--lr-schedule: expected ") + nn::scheduleChoices() + ", got '" + o.schedule +
                          "'");
    if (o.joinSeconds < 1) throw FormatError("--join-seconds: expected 1 or more");
}

// Without RANK in the environment, --world-size N > 1 starts N workers here (each a copy of this
// command, with torchrun's variables) and waits for them.
void launchLocalWorkers(const TrainOptions& o) {
    std::string why;
    if (!nn::distributedTrainingAvailable(why)) throw FormatError("--world-size: " + why);
    nn::WorkerEnvironment local;
    local.localWorldSize = o.worldSize;
    nn::LocalLaunch launch;
    launch.workers = o.worldSize;
    launch.arguments = nn::thisProcessArguments();
    launch.say = [](const std::string& line) {
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    };
    launch.say(std::to_string(o.worldSize) + " workers x " +
               std::to_string(nn::workerThreads(o.settings.threads, local)) + " threads");
    nn::runLocalWorkers(launch);
}

// The data-parallel group this process belongs to as a worker (RANK set), or none.
std::unique_ptr<nn::DataParallelGroup> joinGroup(TrainOptions& o, const nn::WorkerEnvironment& env) {
    if (o.worldSize > 0 && o.worldSize != env.worldSize)
        throw FormatError("--world-size " + std::to_string(o.worldSize) + " disagrees with WORLD_SIZE=" +
                          std::to_string(env.worldSize) + " in the environment");
    if (env.worldSize == 1) return nullptr;
    o.settings.threads = nn::workerThreads(o.settings.threads, env);
    return nn::DataParallelGroup::join(env, std::chrono::seconds(o.joinSeconds));
}

std::string scalingText(const nn::TrainResult& r) {
    const auto perStep = [](double seconds, int64_t steps) {
        return steps ? 1e3 * seconds / static_cast<double>(steps) : 0.0;
    };
    const double all = perStep(r.allReduceSeconds, r.allReduces);
    // Unknown for a run of one step (the ranks learn each other's time a step late).
    const double settled =
        r.allReduceSettledSteps ? perStep(r.allReduceSettledSeconds, r.allReduceSettledSteps) : all;
    char buf[320];
    std::snprintf(
        buf, sizeof buf,
        "%d workers: gradient all-reduce %.2f ms per step (%.1f%% of the run): %.2f ms once "
        "the last worker arrived, %.2f ms waiting for the slowest; replicas bit-identical "
        "at all %d epoch-end checks",
        r.workers, all, r.seconds > 0 ? 100.0 * r.allReduceSeconds / r.seconds : 0.0, settled,
        std::max(0.0, all - settled), r.replicaChecks);
    return buf;
}

void train(TrainOptions& o, nn::DataParallelGroup* group) {
    nn::TrainSettings& s = o.settings;
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
    nn::TrainResult r;
    try {
        r = nn::trainCostModel(s, onProgress, nullptr, nullptr, group);
    } catch (const nn::DistributedError&) {
        throw;
    } catch (const nn::NothingToLearn&) {
        if (group && group->rank() != 0) return;  // every rank stopped alike; rank 0 says why
        throw;
    } catch (const std::exception& e) {
        if (!group) throw;
        const std::string message = "rank " + std::to_string(group->rank()) + ": " + e.what();
        group->reportFailure(message);  // the other ranks quote it
        throw std::runtime_error(message);
    }
    if (group && group->rank() != 0) return;  // rank 0 speaks for the run
    for (const auto& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const char* why = r.cancelled      ? "cancelled"
                      : r.timedOut     ? "time budget reached"
                      : r.earlyStopped ? "stopped early (no validation gain)"
                                       : "all epochs done";
    if (!r.saved)
        throw FormatError("train: no model saved (" + std::string(why) +
                          " before the first validation)");
    std::printf("%s after %s, %s, %.1fs. best valid %s -> %s\n", why,
                countOf(r.epochsRun, "epoch", "epochs").c_str(),
                countOf(r.steps, "step", "steps").c_str(), r.seconds,
                validationText(kind, r.best).c_str(), s.outPath.c_str());
    if (group) std::printf("%s\n", scalingText(r).c_str());
}

void run(TrainOptions& o) {
    applyOptions(o);
    const std::optional<nn::WorkerEnvironment> env = nn::workerEnvironmentFromProcess();
    if (!env && o.worldSize > 1) return launchLocalWorkers(o);
    std::unique_ptr<nn::DataParallelGroup> group = env ? joinGroup(o, *env) : nullptr;
    train(o, group.get());
}

// Where the data and the model file are, and the budget.
void addRunOptions(CLI::App* cmd, TrainOptions& o) {
    nn::TrainSettings& s = o.settings;
    cmd->add_option("--data", s.dataDir, "Dataset folder (with npz/{tile,layout}/... below it)");
    cmd->add_option("--collection", s.collection,
                    "layout:xla:random, layout:nlp:default, tile:xla, ... ('layout' = every layout "
                    "collection)")
        ->check(CLI::Validator(collectionProblem, "COLLECTION"));
    cmd->add_option("--file", s.trainFile,
                    "Train on this one file's measured configs instead of --data, validating on "
                    "the --held-out-configs share of them (default 0.2)");
    cmd->add_option("--out", s.outPath,
                    "Model file to write (the best epoch; MODEL.state keeps the training state)")
        ->required()
        ->check(CLI::Validator(outputFileProblem, "FILE"));
    cmd->add_option("--minutes", s.minutes,
                    "Wall-clock budget in minutes, validation included: the run trains until it "
                    "is spent (or --patience epochs pass without validation gain; 0 = no budget, then give "
                    "--epochs)")
        ->capture_default_str();
    cmd->add_option("--epochs", s.epochs,
                    "Epoch limit (0 = none). An epoch samples every train graph's configurations "
                    "about once (at most 16,384 per graph)")
        ->capture_default_str();
    cmd->add_option("--seed", s.seed, "Random seed (weights, shuffling, config sampling)")
        ->capture_default_str();
    cmd->add_option("--threads", s.threads, "Torch threads (0 = all cores)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
}

// The network's size, pruning and loss.
void addShapeAndLossOptions(CLI::App* cmd, TrainOptions& o) {
    nn::TrainSettings& s = o.settings;
    const nn::ModelShape layoutShape = nn::defaultModelShape(Collection::Layout),
                         tileShape = nn::defaultModelShape(Collection::Tile);
    cmd->add_option("--hidden", s.model.hidden,
                    "Hidden width; 0 = the measured best for the kind (layout " + std::to_string(layoutShape.hidden) +
                        ", tile " + std::to_string(tileShape.hidden) + ")")
        ->capture_default_str();
    cmd->add_option("--layers", s.model.layers,
                    "GraphSAGE layers; 0 = the measured best for the kind (layout " +
                        std::to_string(layoutShape.layers) + ", tile " + std::to_string(tileShape.layers) + ")")
        ->capture_default_str();
    cmd->add_option(
           "--hops", o.hops,
           "Layout pruning: keep configurable nodes and their K-hop neighbourhood, or 'full'")
        ->capture_default_str();
    cmd->add_option(
           "--loss", o.loss,
           std::string("auto (layout ") + nn::lossName(nn::defaultLoss(Collection::Layout)) +
               ", the measured best; tile " + nn::lossName(nn::defaultLoss(Collection::Tile)) +
               "), hinge (pairwise), listmle, mse (log runtime) or logistic (pairwise, RankNet)")
        ->capture_default_str();
    cmd->add_option("--margin", s.margin, "Pairwise hinge margin")->capture_default_str();
    cmd->add_option("--temperature", s.temperature,
                    "Pairwise logistic loss: the score gap (in log runtime) over which a pair's push fades")
        ->check(CLI::Range(1e-4, 10.0))
        ->capture_default_str();
    cmd->add_option("--listmle-weight", s.listMleWeight,
                    "Add this many times ListMLE to the pairwise hinge (--loss hinge, or auto)")
        ->capture_default_str();
}

// The optimiser, its schedule and the epoch kept.
void addOptimiserOptions(CLI::App* cmd, TrainOptions& o) {
    nn::TrainSettings& s = o.settings;
    cmd->add_option("--lr", s.learningRate, "Adam learning rate at the start (see --lr-schedule)")
        ->capture_default_str();
    cmd->add_option("--lr-schedule", o.schedule,
                    "cosine (down to 5% over the run), stable-decay (the full rate for 75% of the "
                    "run, then linear "
                    "down to 5%) or constant")
        ->capture_default_str();
    cmd->add_option("--dropout", s.dropout, "Layout: share of node encodings zeroed in each training step")
        ->capture_default_str();
    cmd->add_option("--weight-average", s.weightAverage,
                    "Validate and save a moving average of the weights with this decay per step (0 = off)")
        ->capture_default_str();
    cmd->add_option("--weight-decay", s.weightDecay, "Adam L2 penalty on the weights (added to each gradient)")
        ->capture_default_str();
    cmd->add_option("--configs-per-step", s.configsPerStep,
                    "Distinct configs sampled per graph per step")
        ->capture_default_str();
    cmd->add_option("--graphs-per-step", s.graphsPerStep,
                    "Graphs per optimiser step (0 = 1 layout, 8 tile)")
        ->capture_default_str();
    cmd->add_option("--patience", s.patience,
                    "Stop after this many epochs without validation gain (0 = auto: never while the learning "
                    "rate decays over the run, as cosine and stable-decay do; 6 with a constant rate)")
        ->capture_default_str();
    cmd->add_option(
           "--select-by", o.selectBy,
           "The validation figure whose best epoch is kept (and counts toward --patience): score = "
           "the collection's (Kendall for layout, the competition's tile score, from the top-5 "
           "slowdown, for tile) or kendall (for both)")
        ->capture_default_str();
}

// Inputs and heads turned on or off.
void addFeatureOptions(CLI::App* cmd, TrainOptions& o) {
    cmd->add_option("--violation-feature", o.violation,
                    "Layout: add the graph-level violation-ratio input (on/off)")
        ->capture_default_str();
    cmd->add_option("--slot-features", o.slotFeatures,
                    "Layout: describe each slot's layout physically (minor dims' sizes, tile "
                    "padding, the op's preferred minor dim) beside its raw values (on/off)")
        ->capture_default_str();
    cmd->add_option("--flow-features", o.flowFeatures,
                    "Layout, with slot features: how far each layout flows through elementwise "
                    "chains (the share of the program that takes an output layout and its "
                    "padding; copies where an operand's layout differs from the one arriving) "
                    "(on/off)")
        ->capture_default_str();
    cmd->add_option("--relayout-features", o.relayoutFeatures,
                    "Layout, with flow features: the reshapes and transposes each node's layouts "
                    "make physical relayouts instead of bitcasts, and the tile-padded elements "
                    "they move (on/off)")
        ->capture_default_str();
    cmd->add_option("--node-cost-readout", o.nodeCost,
                    "Layout: each node predicts its own cost and the score adds the log of their "
                    "sum (on/off)")
        ->capture_default_str();
    cmd->add_option(
           "--pooled-head", o.pooledHead,
           std::string(
               "Layout: the score also takes an MLP over the pooled graph embedding (off: the "
               "log of the summed node costs alone, so it decomposes into them; needs the "
               "node-cost readout) (on/off/auto = ") +
               (nn::ModelSettings{}.pooledHead ? "on" : "off") +
               ", and on where the node-cost readout is off or config attention or the violation "
               "feature on)")
        ->capture_default_str();
    cmd->add_option("--bounds-features", o.boundsFeatures,
                    "Tile: describe what the bounds mean for the kernel's tensors (tile count, "
                    "partial and lane-padded tiles, tile bytes, working set) beside them (on/off)")
        ->capture_default_str();
    cmd->add_option(
           "--spill-features", o.spillFeatures,
           "Tile: whether the double-buffered working set fits the on-chip memory (16 MiB, "
           "the synthetic TPU's) and by how much it misses or clears it (on/off)")
        ->capture_default_str();
    cmd->add_option(
           "--traffic-features", o.trafficFeatures,
           "Tile: what the tiles fetch from HBM (operand bytes in all and per tile, fetches) "
           "and whether a single tile leaves them exposed (on/off)")
        ->capture_default_str();
    cmd->add_option("--config-attention", o.attention,
                    "Configs of a batch attend to each other (on/off)")
        ->capture_default_str();
}

// Which data each epoch sees, memory, resuming and the metrics log.
void addDataOptions(CLI::App* cmd, TrainOptions& o) {
    nn::TrainSettings& s = o.settings;
    cmd->add_option(
           "--held-out-configs", s.heldOutConfigFraction,
           "Reserve this fraction of every train graph's distinct configs, each with its duplicates "
           "(see eval --held-out-configs)")
        ->capture_default_str();
    cmd->add_option("--max-graphs", s.maxTrainGraphs,
                    "Use at most this many train graphs (0 = all)")
        ->capture_default_str();
    cmd->add_option("--valid-configs", s.validConfigsPerGraph,
                    "Configs scored per valid graph each epoch (0 = all)")
        ->capture_default_str();
    cmd->add_option("--cache-mb", o.cacheMiB, "Memory for prepared graphs (LRU), MiB")
        ->capture_default_str();
    cmd->add_flag("--resume", s.resume, "Continue from MODEL.state if it exists");
    cmd->add_option("--log", s.logPath,
                    "Write the metrics the explorer plots as JSON lines: a start record, one per "
                    "optimiser step and epoch, an end record (resumed runs continue it)")
        ->check(CLI::Validator(outputFileProblem, "FILE"));
}

// Workers, products and checkpoints.
void addProcessOptions(CLI::App* cmd, TrainOptions& o) {
    nn::TrainSettings& s = o.settings;
    cmd->add_option(
           "--world-size", o.worldSize,
           "Data-parallel workers (c10d/Gloo). Without RANK in the environment, starts this many "
           "worker processes on this machine, sharing its cores; with torchrun's RANK, WORLD_SIZE, "
           "MASTER_ADDR, MASTER_PORT set, this process is one worker (0 = WORLD_SIZE or 1). "
           "--graphs-per-step is per worker")
        ->capture_default_str();
    cmd->add_option("--products", o.products,
                    "Training products: float, or bfloat16 (rounded factors and results, float "
                    "sums; markedly faster on a CPU "
                    "with bfloat16 units only while its other cores idle), or auto = bfloat16 on "
                    "such CPUs. Scoring "
                    "stays float")
        ->capture_default_str();
    cmd->add_option(
           "--size-matched-steps", o.sizeMatched,
           "Put graphs of similar size in one step (on/off/auto = on with several workers, where a "
           "step waits for the slowest)")
        ->capture_default_str();
    cmd->add_option("--join-seconds", o.joinSeconds,
                    "Data-parallel workers wait this long for each other to start")
        ->capture_default_str();
    cmd->add_option("--checkpoint-seconds", s.checkpointSeconds,
                    "Also save the training state this often within an epoch (a killed run "
                    "resumes from it with --resume)")
        ->capture_default_str();
}

}  // namespace

void addTrainCommand(CLI::App& app) {
    auto o = std::make_shared<TrainOptions>();
    auto* cmd = app.add_subcommand("train", learnCommandDescription("train"));
    addRunOptions(cmd, *o);
    addShapeAndLossOptions(cmd, *o);
    addOptimiserOptions(cmd, *o);
    addFeatureOptions(cmd, *o);
    addDataOptions(cmd, *o);
    addProcessOptions(cmd, *o);
    cmd->callback([o] { run(*o); });
}

}  // namespace tpg::cli
