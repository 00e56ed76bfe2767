#include "TrainingRun.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>

#include "Evaluation.h"
#include "TensorArchive.h"
#include "TorchArchiveReader.h"
#include "TrainingStateArchive.h"
#include "graph/GraphFile.h"
#include "graph/GroundTruth.h"
#include "io/Error.h"
#include "io/NpzArchive.h"
#include "modules/Dense.h"
#include "modules/RankingLosses.h"
#include "synth/SameProgramScores.h"

namespace tpg::nn {

// A training or validation graph ready for the network.
struct PreparedEntry {
    PreparedGraph prepared;
    GraphTensors tensors;
    size_t bytes = 0;
};

// The configs a graph trains on: one per distinct config, minus held-out ones.
struct TrainableConfigs {
    std::vector<int64_t> index;
    std::vector<double> runtime;
};

namespace {

size_t tensorBytes(const torch::Tensor& t) {
    return t.defined() ? static_cast<size_t>(t.numel() * t.element_size()) : 0;
}

size_t tensorsBytes(const GraphTensors& t) {
    size_t b = tensorBytes(t.x) + tensorBytes(t.opcode) + tensorBytes(t.subset) +
               tensorBytes(t.haloPos) + tensorBytes(t.haloIds) + tensorBytes(t.dependentPos) +
               tensorBytes(t.outsideIds) + tensorBytes(t.configPos);
    for (const GraphEdges* e : {&t.full, &t.local}) {
        b += tensorBytes(e->consumer) + tensorBytes(e->producer) +
             tensorBytes(e->invProducerCount) + tensorBytes(e->invConsumerCount);
        for (const NeighbourMean* m : {&e->fromProducers, &e->fromConsumers})
            for (const CompressedRows* c : {&m->gather, &m->scatter})  // (rowScale views invCount)
                b += tensorBytes(c->rowStart) + tensorBytes(c->column) + tensorBytes(c->weight);
    }
    return b;
}

TrainableConfigs trainableConfigs(const TpuGraph& g, double heldOutFraction) {
    const DistinctConfigs d = distinctConfigs(g);
    const std::vector<char> held = heldOutConfigs(g, d, heldOutFraction);  // whole groups
    TrainableConfigs t;
    for (size_t i = 0; i < d.index.size(); ++i)
        if (!held[static_cast<size_t>(d.index[i])] && d.runtime[i] > 0) {
            t.index.push_back(d.index[i]);
            t.runtime.push_back(d.runtime[i]);
        }
    return t;
}

struct FileCounts {
    int64_t configs = 0;
    int64_t cost = 0;
};

// The nodes of a layout file that carry a per-configuration state in the network: those within
// the reach of its configurable nodes, as far as pruning keeps them (read from its edges only).
int64_t perConfigNodes(NpzArchive& archive, const std::string& path, int64_t numNodes, int reach) {
    std::vector<int32_t> seeds;
    for (const int64_t id : archive.read("node_config_ids").toInt64()) {
        if (id < 0 || id >= numNodes)
            throwFormatError(path, "node_config_ids", "value " + std::to_string(id) + " outside [0, " +
                                                          std::to_string(numNodes) + ")");
        seeds.push_back(static_cast<int32_t>(id));
    }
    const std::vector<int64_t> flat = archive.read("edge_index").toInt64();
    std::vector<std::array<int32_t, 2>> edges;
    edges.reserve(flat.size() / 2);
    for (size_t i = 0; i + 1 < flat.size(); i += 2) {
        if (std::min(flat[i], flat[i + 1]) < 0 || std::max(flat[i], flat[i + 1]) >= numNodes)
            throwFormatError(path, "edge_index", "edge " + std::to_string(i / 2) + " has a node outside [0, " +
                                                     std::to_string(numNodes) + ")");
        edges.push_back({static_cast<int32_t>(flat[i]), static_cast<int32_t>(flat[i + 1])});
    }
    return static_cast<int64_t>(neighbourhood(numNodes, edges, seeds, reach).size());
}

// A file's configurations and what a training step on it costs: the whole graph once, and each
// sampled config over the nodes with a per-configuration state (layout) or the whole graph
// (tile). Size-matched steps pair graphs by it, so it must track the step's time.
FileCounts countsOf(const DatasetFile& f, const TrainSettings& st) {
    NpzArchive archive(f.path);
    const NpyHeader runtimes = archive.header("config_runtime");
    if (runtimes.shape.size() != 1)
        throwFormatError(f.path, "config_runtime", "expected shape (c,), got " + runtimes.shapeString());
    const NpyHeader nodes = archive.header("node_feat");
    if (nodes.shape.size() != 2)
        throwFormatError(f.path, "node_feat", "expected shape (n, features), got " + nodes.shapeString());
    const int64_t n = nodes.shape[0];
    if (!archive.has("node_config_ids")) return {runtimes.shape[0], n * (1 + st.configsPerStep)};
    // The network's state changes with the config up to layers + 1 hops out, within the pruned graph.
    const int hops = st.model.pruneHops;
    ModelSettings m = st.model;
    resolveModelShape(m, Collection::Layout);  // node_config_ids: a layout file
    const int reach = hops < 0 ? m.layers + 1 : std::min(hops, m.layers + 1);
    return {runtimes.shape[0], n + perConfigNodes(archive, f.path, n, reach) * st.configsPerStep};
}

// States written before TrainingStateArchive hold LibTorch's archive: read by our reader and
// renamed to the new archive's names ("model.x" to "model/x", "average.i" to "average/i"), so
// the same checks and loader take them. Adam's state there is keyed by each parameter's address,
// which the param group lists in the optimiser's order.
void loadTorchArchiveState(const std::string& bytes, const std::string& path,
                           torch::nn::Module& module, torch::optim::Adam& optimizer,
                           std::vector<torch::Tensor>& average) {
    TorchArchiveContents old = readTorchArchive(bytes, path, "weights");
    std::map<std::string, NamedTensor> stored;
    auto rename = [&](const std::string& from, const std::string& to) {
        auto node = old.tensors.extract(from);
        if (node.empty()) return;  // loadTrainingTensors names what is missing
        node.mapped().name = to;
        stored.emplace(to, std::move(node.mapped()));
    };
    for (auto it = old.tensors.begin(); it != old.tensors.end();) {
        const std::string name = (it++)->first;  // a copy: `rename` takes the entry out
        const std::string part = name.substr(0, name.find('.'));
        if (part == "model" || part == "average")
            rename(name, part + "/" + name.substr(part.size() + 1));
    }
    std::vector<int64_t> adamSteps(module.parameters().size(), 0);
    for (size_t i = 0; i < adamSteps.size(); ++i) {
        const auto id =
            old.strings.find("optimizer.param_groups.param_groups/0.params/" + std::to_string(i));
        if (id == old.strings.end()) continue;
        const std::string state = "optimizer.state." + id->second + ".";
        const auto step = old.integers.find(state + "step");
        if (step == old.integers.end()) continue;
        adamSteps[i] = step->second;
        rename(state + "exp_avg", "adam/" + std::to_string(i) + "/exp_avg");
        rename(state + "exp_avg_sq", "adam/" + std::to_string(i) + "/exp_avg_sq");
    }
    loadTrainingTensors(std::move(stored), adamSteps, path, module, optimizer, average);
}

ModelFileContents runStateContents(const ModelInfo& info, CostModel::Impl& model, torch::optim::Adam& optimizer,
                                    const RunState& s, const std::vector<torch::Tensor>& average) {
    nlohmann::json j;
    j["model"] = modelInfoToJson(info);
    j["epoch"] = s.epoch;
    auto finiteOrNull = [](double v) {
        return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
    };
    j["best"] = finiteOrNull(s.bestScore);
    j["best_kendall"] = finiteOrNull(s.bestKendall);
    j["bad_epochs"] = s.badEpochs;
    j["elapsed"] = s.elapsed;
    j["global_step"] = s.globalStep;
    j["step_in_epoch"] = s.stepInEpoch;
    j["rng"] = s.rngState;
    j["epoch_loss_sum"] = s.epochLossSum;
    j["epoch_loss_count"] = s.epochLossCount;
    std::vector<int64_t> adamSteps;
    std::string weights = encodeTrainingState(model.module(), optimizer, average, adamSteps);
    j["adam_steps"] = adamSteps;
    return {j.dump(), std::move(weights)};
}

// A count in a state's JSON (an epoch, a step): a whole number from 0 to `most`, or `fallback`
// where the key is absent (states from before it).
int64_t countField(const nlohmann::json& j, const char* key, const std::string& path,
                   std::optional<int64_t> fallback = std::nullopt,
                   int64_t most = std::numeric_limits<int64_t>::max()) {
    const auto it = j.find(key);
    if (it == j.end() && fallback) return *fallback;
    if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() < 0 ||
        it->get<int64_t>() > most)
        throwFormatError(path, key, "expected a whole number from 0 to " + std::to_string(most));
    return it->get<int64_t>();
}

// Adam's step count per parameter (TrainingStateArchive.h).
std::vector<int64_t> adamStepsOf(const nlohmann::json& j, const std::string& path) {
    const auto it = j.find("adam_steps");
    if (it == j.end() || !it->is_array())
        throwFormatError(path, "adam_steps",
                         "expected an array of Adam's step counts, one per parameter");
    std::vector<int64_t> steps;
    for (const auto& v : *it) {
        if (!v.is_number_integer())
            throwFormatError(path, "adam_steps", "expected whole numbers, found " + v.dump());
        steps.push_back(v.get<int64_t>());
    }
    return steps;
}

// A figure of the kept epoch from a state: null or absent is -infinity (none scored yet).
double keptFigure(const nlohmann::json& v) {
    const double d = v.is_number() ? v.get<double>() : NAN;
    return std::isfinite(d) ? d : -std::numeric_limits<double>::infinity();
}

// Where the run stands, from a state's JSON (`saved`: its model info), each field checked.
RunState runStateOf(const nlohmann::json& j, const ModelInfo& saved, const std::string& path) {
    RunState s;
    constexpr int64_t kMostInt = std::numeric_limits<int>::max();
    s.epoch = static_cast<int>(countField(j, "epoch", path, std::nullopt, kMostInt));
    s.bestScore = keptFigure(j.value("best", nlohmann::json()));
    // A state from before best_kendall: the kept epoch's Kendall is in its model info.
    s.bestKendall = keptFigure(j.value("best_kendall", nlohmann::json(saved.validation.kendall)));
    s.badEpochs = static_cast<int>(countField(j, "bad_epochs", path, std::nullopt, kMostInt));
    const auto elapsed = j.find("elapsed");
    s.elapsed = elapsed != j.end() && elapsed->is_number() ? elapsed->get<double>() : -1.0;
    if (!std::isfinite(s.elapsed) || s.elapsed < 0)
        throwFormatError(path, "elapsed",
                         "expected the seconds trained so far, a number of 0 or more");
    s.globalStep = countField(j, "global_step", path);
    s.stepInEpoch = countField(j, "step_in_epoch", path, 0);
    const auto rng = j.find("rng");
    if (rng != j.end() && !rng->is_string())
        throwFormatError(path, "rng", "expected the sampler's state as text");
    s.rngState = rng != j.end() ? rng->get<std::string>() : std::string();
    const auto lossSum = j.find("epoch_loss_sum");
    if (lossSum != j.end() && !lossSum->is_number())
        throwFormatError(path, "epoch_loss_sum", "expected a number");
    s.epochLossSum = lossSum != j.end() ? lossSum->get<double>() : 0.0;
    s.epochLossCount = countField(j, "epoch_loss_count", path, 0);
    return s;
}

[[noreturn]] void throwUnreadableState(const std::string& path, const std::string& what) {
    throwFormatError(path, "", "unreadable training state: " + what.substr(0, what.find('\n')));
}

// A state saved without an average (or by a run without one) leaves `average` empty: averaging,
// when asked for, starts afresh from the resumed weights. Everything is checked before the
// weights change.
bool loadRunState(const ModelFileContents& c, const std::string& path, const ModelInfo& info,
                  CostModel::Impl& model, torch::optim::Adam& optimizer, RunState& s,
                  std::vector<torch::Tensor>& average, std::string& why) {
    try {
        const auto j = nlohmann::json::parse(c.json);
        if (!j.is_object() || !j.contains("model") || !j.at("model").is_string())
            throwFormatError(path, "model", "expected the model's metadata as text");
        const ModelInfo saved = modelInfoFromJson(j.at("model").get<std::string>(), path);
        if (saved.kind != info.kind || saved.collection != info.collection ||
            saved.nodeFeatureWidth != info.nodeFeatureWidth ||
            saved.configWidth != info.configWidth || saved.settings != info.settings) {
            why = path +
                  ": saved for a different collection, widths or network settings; starting afresh";
            return false;
        }
        // Runs saved before "auto" (the hinge then) would otherwise go on under another loss.
        if (saved.loss != info.loss) {
            why = path + ": saved by a run with the " + saved.loss + " loss, where this run's is " + info.loss +
                  " (--loss " + saved.loss + " resumes it); starting afresh";
            return false;
        }
        RunState loaded = runStateOf(j, saved, path);
        if (isTensorArchive(c.weights))
            loadTrainingState(c.weights, adamStepsOf(j, path), path, model.module(), optimizer,
                              average);
        else
            loadTorchArchiveState(c.weights, path, model.module(), optimizer, average);
        s = std::move(loaded);
    } catch (const FormatError&) {
        throw;
    } catch (const c10::Error& e) {  // a backtrace follows LibTorch's messages
        throwUnreadableState(path, e.what_without_backtrace());
    } catch (const std::exception& e) {
        throwUnreadableState(path, e.what());
    }
    return true;
}

}  // namespace

// Prepared graphs by path, least recently used evicted past the byte budget (NLP layout files do
// not all fit in memory). The entry in use is never evicted (it is held by a shared_ptr).
class PreparedGraphCache {
public:
    PreparedGraphCache(CostModel::Impl& model, size_t budget) : m_model(model), m_budget(budget) {}

    std::shared_ptr<PreparedEntry> get(const std::string& path) {
        auto it = m_map.find(path);
        if (it != m_map.end()) {
            m_order.splice(m_order.begin(), m_order, it->second.second);
            return it->second.first;
        }
        LoadOptions lo;
        lo.backgroundConfigs = false;  // training samples configs at random: decode all now
        auto e = std::make_shared<PreparedEntry>();
        e->prepared = m_model.prepare(loadWithGroundTruth(path, lo));
        e->tensors = m_model.makeTensors(e->prepared);
        e->bytes = e->prepared.memoryBytes() + tensorsBytes(e->tensors);
        m_order.push_front(path);
        m_map[path] = {e, m_order.begin()};
        m_bytes += e->bytes;
        while (m_bytes > m_budget && m_order.size() > 1) {
            const std::string victim = m_order.back();
            m_order.pop_back();
            m_bytes -= m_map[victim].first->bytes;
            m_map.erase(victim);
        }
        return e;
    }

private:
    CostModel::Impl& m_model;
    size_t m_budget;
    size_t m_bytes = 0;
    std::list<std::string> m_order;
    std::unordered_map<std::string,
                       std::pair<std::shared_ptr<PreparedEntry>, std::list<std::string>::iterator>>
        m_map;
};

namespace {

// The train and valid files, and what validation will be measured on.
void selectTrainingFiles(const TrainSettings& st, TrainingData& d,
                         const std::function<void(const std::string&)>& say) {
    std::vector<DatasetFile> all;
    if (!st.trainFile.empty()) {
        const DatasetFile file = describeFile(st.trainFile);
        if (!file.error.empty()) throw FormatError(file.error);
        d.train = {file};
    } else {
        say("scanning " + st.dataDir);
        all = scanDataset(st.dataDir);
        d.train = selectCollection(all, st.collection, "train");
        d.valid = selectCollection(all, st.collection, "valid");
    }
    if (d.train.empty()) throw FormatError(noFilesMessage(st.dataDir, st.collection, "train", all));
    if (st.maxTrainGraphs > 0 && static_cast<int64_t>(d.train.size()) > st.maxTrainGraphs)
        d.train.resize(static_cast<size_t>(st.maxTrainGraphs));
    if (!st.trainFile.empty()) {
        d.valid = d.train;
        d.validateOnHeldOutConfigs = st.heldOutConfigFraction > 0;
        if (!d.validateOnHeldOutConfigs)
            d.warnings.push_back(st.trainFile + ": no configs held out; validating on the trained ones");
    } else if (d.valid.empty()) {
        d.valid = d.train;
        d.validateOnHeldOutConfigs = st.heldOutConfigFraction > 0;
        d.warnings.push_back("no valid split for " + st.collection +
                             (d.validateOnHeldOutConfigs
                                  ? ": validating on the train graphs' held-out configs"
                                  : ": validating on training graphs (hold configs out with "
                                    "--held-out-configs for an honest figure)"));
    }
    const Collection kind = d.train.front().kind;
    for (const auto& f : d.train)
        if (f.kind != kind)
            throw FormatError(st.dataDir + ": '" + st.collection +
                              "' mixes tile and layout files; a model holds one kind");
}

// Normalisation statistics and widths come from a spread of training graphs, which must agree.
std::vector<TpuGraph> loadStatsGraphs(const TrainSettings& st, TrainingData& d,
                                      const std::function<void()>& checkCancel) {
    std::vector<TpuGraph> statsGraphs;
    LoadOptions statsLoad;
    statsLoad.deferDecoding = true;
    const size_t stride = std::max<size_t>(1, d.train.size() / limits::kStatsGraphs);
    for (size_t i = 0;
         i < d.train.size() && statsGraphs.size() < static_cast<size_t>(limits::kStatsGraphs);
         i += stride) {
        checkCancel();
        statsGraphs.push_back(loadWithGroundTruth(d.train[i].path, statsLoad));
    }
    const TpuGraph& first = statsGraphs.front();
    // One file: the statistics' graph is it. A test split's zeros had run the whole budget
    // learning nothing and saved an untrained model, "kendall nan".
    if (!st.trainFile.empty() && !first.runtimesKnown())
        throwFormatError(
            first.path(), "config_runtime",
            "no measured runtimes (all zero, as in a test split): nothing to train on");
    for (const auto& g : statsGraphs) {
        if (g.nodeFeatureWidth() != first.nodeFeatureWidth() ||
            g.configFeatureWidth() != first.configFeatureWidth())
            throwFormatError(g.path(), "node_feat",
                             "feature widths (" + std::to_string(g.nodeFeatureWidth()) + ", " +
                                 std::to_string(g.configFeatureWidth()) + ") differ from " +
                                 first.path() + " (" + std::to_string(first.nodeFeatureWidth()) +
                                 ", " + std::to_string(first.configFeatureWidth()) +
                                 "): one model needs one width");
        for (const auto& w : g.warnings())
            if (std::find(d.warnings.begin(), d.warnings.end(), w) == d.warnings.end())
                d.warnings.push_back(w);
    }
    return statsGraphs;
}

void describeModel(const TrainSettings& st, TrainingData& d,
                   const std::vector<TpuGraph>& statsGraphs) {
    const Collection kind = d.train.front().kind;
    const TpuGraph& first = statsGraphs.front();
    ModelInfo& info = d.info;
    info.kind = kind;
    info.collection = !st.trainFile.empty() ? d.train.front().collection
                      : st.collection.empty()  ? collectionName(kind)
                                               : st.collection;
    info.settings = st.model;
    resolveModelShape(info.settings, kind);
    info.nodeFeatureWidth = first.nodeFeatureWidth();
    info.configWidth = first.configFeatureWidth();
    if (kind == Collection::Tile) info.settings.violationFeature = false;
    info.stats = computeFeatureStats(statsGraphs);
    info.loss = lossName(resolveLoss(st.loss, kind, st.listMleWeight));
    info.margin = st.margin;
    info.temperature = st.temperature;
    info.listMleWeight = st.listMleWeight;
    info.trainGraphs = static_cast<int64_t>(d.train.size());
    info.validGraphs = static_cast<int64_t>(d.valid.size());
    info.seed = st.seed;
    info.heldOutConfigFraction = st.heldOutConfigFraction;
    info.dataDescription = st.trainFile.empty() ? st.dataDir : st.trainFile;
}

}  // namespace

TrainingData loadTrainingData(const TrainSettings& st,
                              const std::function<void(const std::string&)>& say,
                              const CancelToken* cancel) {
    const std::function<void()> checkCancel = [cancel] {
        if (cancel && cancel->cancelled()) throw PreparationCancelled{};
    };
    TrainingData d;
    selectTrainingFiles(st, d, say);
    for (const auto& f : d.train) {
        checkCancel();
        const FileCounts counts = countsOf(f, st);
        d.trainConfigCounts.push_back(counts.configs);
        d.trainStepCosts.push_back(counts.cost);
    }

    say("reading feature statistics");
    const std::vector<TpuGraph> statsGraphs = loadStatsGraphs(st, d, checkCancel);
    describeModel(st, d, statsGraphs);
    return d;
}

bool bfloat16TrainingAvailable() { return bfloat16ProductsSupported(); }

namespace {
bool useBFloat16Products(TrainSettings::Products requested) {
    const bool supported = bfloat16ProductsSupported();
    if (requested == TrainSettings::Products::BFloat16 && !supported)
        throw FormatError("products: bfloat16 asked for, but this CPU has no bfloat16 units (AVX512-BF16); "
                          "oneDNN would emulate them, slower than float: use float or auto");
    return requested == TrainSettings::Products::BFloat16 ||
           (requested == TrainSettings::Products::Auto && supported);
}
}  // namespace

TrainingRun::TrainingRun(const TrainSettings& st, TrainingData data)
    : m_settings(st), m_data(std::move(data)), m_bfloat16Products(useBFloat16Products(st.products)) {
    m_model = CostModel::create(m_data.info);
    CostModel::Impl& net = m_model.impl();
    m_data.info.settings = net.info.settings;  // as built: options the data cannot feed are off
    net.label = st.outPath;
    if (net.layout) net.layout->nodeDropout = st.dropout;
    m_parameters = net.module().parameters();
    m_optimizer = std::make_unique<torch::optim::Adam>(
        m_parameters, torch::optim::AdamOptions(st.learningRate).weight_decay(st.weightDecay));
    m_cache = std::make_unique<PreparedGraphCache>(net, st.cacheBytes);
    m_loss = rankingLossOf(m_data.info);  // as the model file records it, for `tune` to fine-tune with
}

TrainingRun::~TrainingRun() = default;

bool TrainingRun::resume(std::string& why) {
    const std::string path = m_settings.outPath + ".state";
    if (!m_settings.resume || !std::filesystem::exists(path)) return false;
    return loadRunState(readModelFile(path, kResumeMagic), path, m_data.info, m_model.impl(), *m_optimizer, m_state,
                        m_average, why);
}

ModelFileContents TrainingRun::stateContents() {
    return runStateContents(m_model.impl().info, m_model.impl(), *m_optimizer, m_state, m_average);
}

bool TrainingRun::loadStateContents(const ModelFileContents& contents, const std::string& label, std::string& why) {
    return loadRunState(contents, label, m_data.info, m_model.impl(), *m_optimizer, m_state, m_average, why);
}

const TrainableConfigs& TrainingRun::trainable(const DatasetFile& file, const PreparedEntry& e) {
    auto& slot = m_trainable[file.path];
    if (!slot) {
        slot = std::make_unique<TrainableConfigs>(
            trainableConfigs(e.prepared.graph, m_settings.heldOutConfigFraction));
        m_trainConfigs += static_cast<int64_t>(slot->index.size());
    }
    return *slot;
}

namespace {

// Leaves standing in for the shared pass's outputs: chunks accumulate their gradients here, and
// they flow into the shared pass once at the end.
LayoutSharedPass detachedLeaves(const LayoutSharedPass& s) {
    auto leaf = [](const torch::Tensor& t) { return t.defined() ? t.detach().requires_grad_(true) : t; };
    LayoutSharedPass d{leaf(s.subsetInput), leaf(s.configurableInput), {},
                       leaf(s.restSum),     leaf(s.restMax),           leaf(s.restCost)};
    for (const auto& h : s.halo) d.halo.push_back(leaf(h));
    return d;
}

void backwardIntoSharedPass(const LayoutSharedPass& shared, const LayoutSharedPass& leaves) {
    std::vector<torch::Tensor> outputs, grads;
    auto add = [&](const torch::Tensor& out, const torch::Tensor& leaf) {
        if (out.defined() && out.requires_grad() && leaf.grad().defined()) {
            outputs.push_back(out);
            grads.push_back(leaf.grad());
        }
    };
    add(shared.subsetInput, leaves.subsetInput);
    add(shared.configurableInput, leaves.configurableInput);
    add(shared.restSum, leaves.restSum);
    add(shared.restMax, leaves.restMax);
    add(shared.restCost, leaves.restCost);
    for (size_t l = 0; l < shared.halo.size(); ++l) add(shared.halo[l], leaves.halo[l]);
    if (!outputs.empty()) torch::autograd::backward(outputs, grads);
}

}  // namespace

double layoutGradientsInChunks(CostModel::Impl& net, const PreparedGraph& prepared, const GraphTensors& tensors,
                               const std::vector<int64_t>& ids, const RankingLoss& loss,
                               const torch::Tensor& target, double share, int64_t chunk,
                               const CancelToken* cancel) {
    const auto n = static_cast<int64_t>(ids.size());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const LayoutSharedPass shared = net.layout->sharedPass(tensors);
    const LayoutSharedPass leaves = detachedLeaves(shared);
    std::vector<torch::Tensor> scores;
    for (int64_t b = 0; b < n; b += chunk) {
        if (cancel && cancel->cancelled()) return nan;
        const ConfigBatch batch = net.batchForConfigs(prepared, ids.data() + b, std::min(chunk, n - b));
        scores.push_back(net.layout->forward(tensors, leaves, batch.config, batch.violation));
    }
    std::vector<torch::Tensor> detached;
    detached.reserve(scores.size());
    for (const auto& s : scores) detached.push_back(s.detach());
    auto all = torch::cat(detached).requires_grad_(true);
    auto value = loss(all, target) / share;
    value.backward();
    const torch::Tensor& grad = all.grad();
    int64_t start = 0;
    for (const auto& s : scores) {
        if (cancel && cancel->cancelled()) return nan;
        s.backward(grad.slice(0, start, start + s.size(0)));
        start += s.size(0);
    }
    backwardIntoSharedPass(shared, leaves);
    return value.item<double>();
}

double TrainingRun::graphGradients(const PreparedEntry& e, const std::vector<int64_t>& ids,
                                   const torch::Tensor& target, double share, const CancelToken* cancel) {
    CostModel::Impl& net = m_model.impl();
    const auto n = static_cast<int64_t>(ids.size());
    const int64_t perConfig = std::max<int64_t>(1, e.tensors.subset.numel());
    const int64_t chunk = std::max<int64_t>(1, m_settings.chunkNodeConfigs / perConfig);
    // Attention mixes the configs of a batch: chunks would change the scores, so it runs whole.
    if (net.layout && !net.info.settings.configAttention && chunk < n)
        return layoutGradientsInChunks(net, e.prepared, e.tensors, ids, m_loss, target, share, chunk, cancel);
    auto loss = m_loss(net.forward(e.tensors, net.batchForConfigs(e.prepared, ids.data(), n)), target) / share;
    loss.backward();
    return loss.item<double>();
}

StepTally TrainingRun::accumulateGradients(const std::vector<size_t>& files, std::mt19937_64& rng, double share,
                                           const CancelToken* cancel) {
    StepTally tally;
    CostModel::Impl& net = m_model.impl();
    net.module().train();
    const BFloat16ProductsScope products(m_bfloat16Products);
    for (size_t f : files) {
        const DatasetFile& file = m_data.train[f];
        auto e = m_cache->get(file.path);
        const TrainableConfigs& tc = trainable(file, *e);
        if (tc.index.size() < 2) continue;
        // n distinct configs by a partial Fisher-Yates shuffle, in file order.
        std::vector<size_t> pick(tc.index.size());
        std::iota(pick.begin(), pick.end(), 0);
        const size_t n = std::min(pick.size(), static_cast<size_t>(m_settings.configsPerStep));
        for (size_t i = 0; i < n; ++i)
            std::swap(pick[i], pick[i + std::uniform_int_distribution<size_t>(0, pick.size() - 1 - i)(rng)]);
        pick.resize(n);
        std::sort(pick.begin(), pick.end());
        std::vector<int64_t> ids;
        std::vector<float> runtime;
        for (size_t p : pick) {
            ids.push_back(tc.index[p]);
            runtime.push_back(static_cast<float>(tc.runtime[p]));
        }
        if (*std::max_element(runtime.begin(), runtime.end()) ==
            *std::min_element(runtime.begin(), runtime.end()))
            continue;
        auto target = torch::from_blob(runtime.data(), {static_cast<int64_t>(runtime.size())},
                                       torch::kFloat)
                          .clone();
        const double loss = graphGradients(*e, ids, target, share, cancel);
        if (std::isnan(loss) && cancel && cancel->cancelled()) {
            m_optimizer->zero_grad();
            tally.cancelled = true;
            return tally;
        }
        tally.lossSum += loss * share;
        tally.configs += static_cast<int64_t>(n);
        ++tally.graphs;
    }
    return tally;
}

void TrainingRun::applyGradients(double learningRate) {
    for (auto& group : m_optimizer->param_groups())
        static_cast<torch::optim::AdamOptions&>(group.options()).lr(learningRate);
    torch::nn::utils::clip_grad_norm_(m_parameters, 1.0);
    m_optimizer->step();
    m_optimizer->zero_grad();
    updateAverage();
    ++m_state.globalStep;
}

void TrainingRun::updateAverage() {
    if (m_settings.weightAverage <= 0) return;
    torch::NoGradGuard noGrad;
    if (m_average.empty()) {
        for (const auto& p : m_parameters) m_average.push_back(p.detach().clone());
        return;
    }
    // Early on the decay is smaller (as TensorFlow's ExponentialMovingAverage with num_updates),
    // so the average does not cling to the first steps' weights.
    const auto t = static_cast<double>(m_state.globalStep);
    const double decay = std::min(m_settings.weightAverage, (1 + t) / (10 + t));
    for (size_t i = 0; i < m_parameters.size(); ++i)
        m_average[i].mul_(decay).add_(m_parameters[i].detach(), 1 - decay);
}

void TrainingRun::swapAveragedWeights() {
    torch::NoGradGuard noGrad;
    for (size_t i = 0; i < m_average.size(); ++i) {
        torch::Tensor trained = m_parameters[i].detach().clone();
        m_parameters[i].detach().copy_(m_average[i]);
        m_average[i].copy_(trained);
    }
}

void TrainingRun::shareScoresWithinPrograms(size_t validIndex, const TpuGraph& g, const std::vector<int64_t>& ids,
                                            std::vector<double>& scores) {
    if (m_validProgramKeys.size() != m_data.valid.size()) m_validProgramKeys.assign(m_data.valid.size(), {});
    std::vector<uint64_t>& keys = m_validProgramKeys[validIndex];
    if (keys.size() != ids.size()) keys = synth::programKeys(g, ids);
    if (keys.size() == ids.size()) synth::shareScoresWithinPrograms(keys, scores);
}

const std::vector<int64_t>& TrainingRun::validationConfigs(size_t validIndex, const TpuGraph& g,
                                                           const EvaluationOptions& options) {
    if (m_validIds.size() != m_data.valid.size()) m_validIds.resize(m_data.valid.size());
    auto& slot = m_validIds[validIndex];
    if (!slot)
        slot = std::make_unique<std::vector<int64_t>>(
            g.runtimesKnown() ? evaluationConfigs(g, options) : std::vector<int64_t>{});
    return *slot;
}

MetricSums TrainingRun::validate(const std::function<void(int64_t done, int64_t total)>& onGraph,
                                 const CancelToken* cancel, int shard, int shards) {
    torch::NoGradGuard noGrad;
    CostModel::Impl& net = m_model.impl();
    net.module().eval();
    const EvaluationOptions options{m_settings.validConfigsPerGraph, m_settings.seed,
                                    m_data.validateOnHeldOutConfigs ? m_settings.heldOutConfigFraction : 0.0};
    MetricSums sums;
    const auto& valid = m_data.valid;
    const auto step = static_cast<size_t>(std::max(1, shards));
    for (size_t i = static_cast<size_t>(shard); i < valid.size() && !(cancel && cancel->cancelled()); i += step) {
        auto e = m_cache->get(valid[i].path);
        const TpuGraph& g = e->prepared.graph;
        const std::vector<int64_t>& ids = validationConfigs(i, g, options);
        if (ids.size() >= 2) {
            std::vector<double> scores, truth;
            const int64_t batch = net.scoringBatchSize(e->tensors);
            for (size_t b = 0; b < ids.size() && !(cancel && cancel->cancelled()); b += static_cast<size_t>(batch)) {
                const int64_t n = std::min<int64_t>(batch, static_cast<int64_t>(ids.size() - b));
                auto s = net.forward(e->tensors, net.batchForConfigs(e->prepared, ids.data() + b, n))
                             .contiguous();
                scores.insert(scores.end(), s.data_ptr<float>(), s.data_ptr<float>() + n);
            }
            if (scores.size() < ids.size()) break;  // cancelled mid-graph
            if (m_model.tiesSamePrograms()) shareScoresWithinPrograms(i, g, ids, scores);  // as scoring does
            for (int64_t c : ids) truth.push_back(g.normalizedRuntime(c));
            sums.add(graphMetrics(valid[i].competitionId(), scores, truth));
        }
        if (onGraph) onGraph(static_cast<int64_t>(i + 1), static_cast<int64_t>(valid.size()));
    }
    net.module().train();
    return sums;
}

bool TrainingRun::recordEpoch(int epoch, const ValidationSummary& v, double elapsed, bool save) {
    m_state.epoch = epoch;
    CostModel::Impl& net = m_model.impl();
    // Without a score an epoch replaces the model only while none has scored: with no valid data
    // (the latest model is kept) or on the first epoch (a model file must exist). Valid graphs
    // but no score means every prediction tied (a collapsed model): a bad epoch, never a gain.
    const double value = selectedFigure(v.score, v.kendall, m_settings.selectBy),
                 kept = selectedFigure(m_state.bestScore, m_state.bestKendall, m_settings.selectBy);
    const bool improved =
        std::isfinite(value)
            ? isValidationGain(v, m_state.bestScore, m_state.bestKendall, m_settings.selectBy)
            : !std::isfinite(kept) && (v.graphs == 0 || net.info.epochs == 0);
    if (improved) {
        if (std::isfinite(value)) {
            m_state.bestScore = std::isfinite(v.score) ? v.score : m_state.bestScore;
            m_state.bestKendall = std::isfinite(v.kendall) ? v.kendall : m_state.bestKendall;
        }
        m_state.badEpochs = 0;
        net.info.validation = v;
        net.info.epochs = epoch;
        net.info.trainSeconds = elapsed;
        net.info.trainConfigs = m_trainConfigs;
        if (save) m_model.save(m_settings.outPath);
    } else {
        ++m_state.badEpochs;
    }
    return improved;
}

void TrainingRun::checkpoint(double elapsed) {
    m_state.elapsed = elapsed;
    writeModelFile(m_settings.outPath + ".state", kResumeMagic,
                   runStateContents(m_model.impl().info, m_model.impl(), *m_optimizer, m_state, m_average));
}

}  // namespace tpg::nn
