#include "Trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <list>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <sstream>
#include <unordered_map>

#include "CostModelImpl.h"
#include "graph/DatasetIndex.h"
#include "io/Error.h"
#include "Evaluation.h"
#include "graph/GraphFile.h"
#include "modules/RankingLosses.h"

namespace tpg::nn {

namespace {

using Clock = std::chrono::steady_clock;

// A training or validation graph ready for the network.
struct PreparedEntry {
    PreparedGraph prepared;
    GraphTensors tensors;
    size_t bytes = 0;
};

size_t tensorBytes(const torch::Tensor& t) {
    return t.defined() ? static_cast<size_t>(t.numel() * t.element_size()) : 0;
}

size_t tensorsBytes(const GraphTensors& t) {
    size_t b = tensorBytes(t.x) + tensorBytes(t.opcode) + tensorBytes(t.subset) +
               tensorBytes(t.haloPos) + tensorBytes(t.haloIds) + tensorBytes(t.dependentPos) +
               tensorBytes(t.outsideIds) + tensorBytes(t.configPos);
    for (const GraphEdges* e : {&t.full, &t.local})
        b += tensorBytes(e->consumer) + tensorBytes(e->producer) +
             tensorBytes(e->invProducerCount) + tensorBytes(e->invConsumerCount);
    return b;
}

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
        e->prepared = m_model.prepare(loadTpuGraph(path, lo));
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
    size_t bytes() const { return m_bytes; }

private:
    CostModel::Impl& m_model;
    size_t m_budget;
    size_t m_bytes = 0;
    std::list<std::string> m_order;
    std::unordered_map<std::string,
                       std::pair<std::shared_ptr<PreparedEntry>, std::list<std::string>::iterator>>
        m_map;
};

// The configs a graph trains on: one per distinct config, minus held-out ones.
struct TrainableConfigs {
    std::vector<int64_t> index;
    std::vector<double> runtime;
};

TrainableConfigs trainableConfigs(const TpuGraph& g, double heldOutFraction) {
    const DistinctConfigs d = distinctConfigs(g);
    std::vector<char> excluded(d.index.size(), 0);
    if (heldOutFraction > 0)  // a group is held out when any duplicate in it is
        for (int64_t c = 0; c < g.numConfigs(); ++c)
            if (configHeldOut(g.name(), c, heldOutFraction))
                excluded[static_cast<size_t>(d.groupOf[static_cast<size_t>(c)])] = 1;
    TrainableConfigs t;
    for (size_t i = 0; i < d.index.size(); ++i)
        if (!excluded[i] && d.runtime[i] > 0) {
            t.index.push_back(d.index[i]);
            t.runtime.push_back(d.runtime[i]);
        }
    return t;
}

void setLearningRate(torch::optim::Adam& optimizer, double lr) {
    for (auto& group : optimizer.param_groups())
        static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
}

std::string describeFiles(const std::vector<DatasetFile>& files) {
    std::map<std::string, int> counts;
    for (const auto& f : files) counts[f.collection + (f.split.empty() ? "" : " " + f.split)]++;
    std::string s;
    for (const auto& [k, n] : counts)
        s += (s.empty() ? "" : ", ") + k + " (" + std::to_string(n) + ")";
    return s.empty() ? "none" : s;
}

struct ResumeState {
    int epoch = 0;  // epochs completed
    double best = -std::numeric_limits<double>::infinity();
    int badEpochs = 0;
    double elapsed = 0;
    int64_t globalStep = 0;
};

void saveResumeState(const std::string& path, const ModelInfo& info, CostModel::Impl& model,
                     torch::optim::Adam& optimizer, const ResumeState& s) {
    nlohmann::json j;
    j["model"] = modelInfoToJson(info);
    j["epoch"] = s.epoch;
    j["best"] = std::isfinite(s.best) ? nlohmann::json(s.best) : nlohmann::json(nullptr);
    j["bad_epochs"] = s.badEpochs;
    j["elapsed"] = s.elapsed;
    j["global_step"] = s.globalStep;
    torch::serialize::OutputArchive archive, modelArchive, optimArchive;
    model.module().save(modelArchive);
    optimizer.save(optimArchive);
    archive.write("model", modelArchive);
    archive.write("optimizer", optimArchive);
    std::ostringstream weights;
    archive.save_to(weights);
    writeModelFile(path, kResumeMagic, {j.dump(), weights.str()});
}

// Restores model weights and optimiser state; returns false when the state belongs to another
// setup (then training starts afresh, with a warning).
bool loadResumeState(const std::string& path, const ModelInfo& info, CostModel::Impl& model,
                     torch::optim::Adam& optimizer, ResumeState& s, std::string& why) {
    const ModelFileContents c = readModelFile(path, kResumeMagic);
    try {
        const auto j = nlohmann::json::parse(c.json);
        const ModelInfo saved = modelInfoFromJson(j.at("model").get<std::string>(), path);
        if (saved.kind != info.kind || saved.collection != info.collection ||
            saved.nodeFeatureWidth != info.nodeFeatureWidth ||
            saved.configWidth != info.configWidth || saved.settings != info.settings) {
            why = path +
                  ": saved for a different collection, widths or network settings; starting afresh";
            return false;
        }
        std::istringstream in(c.weights);
        torch::serialize::InputArchive archive, modelArchive, optimArchive;
        archive.load_from(in);
        archive.read("model", modelArchive);
        archive.read("optimizer", optimArchive);
        model.module().load(modelArchive);
        optimizer.load(optimArchive);
        s.epoch = j.at("epoch").get<int>();
        s.best = j.at("best").is_null() ? -std::numeric_limits<double>::infinity()
                                        : j.at("best").get<double>();
        s.badEpochs = j.at("bad_epochs").get<int>();
        s.elapsed = j.at("elapsed").get<double>();
        s.globalStep = j.at("global_step").get<int64_t>();
    } catch (const FormatError&) {
        throw;
    } catch (const std::exception& e) {
        throwFormatError(path, "", std::string("unreadable training state: ") + e.what());
    }
    return true;
}

}  // namespace

TrainResult trainCostModel(const TrainSettings& st, const TrainCallback& callback,
                           const CancelToken* cancel) {
    const auto start = Clock::now();
    TrainResult result;
    TrainProgress progress;
    progress.epochs = st.epochs;
    auto report = [&](TrainProgress::Phase phase, const std::string& message = {}) {
        progress.phase = phase;
        progress.message = message;
        if (callback) callback(progress);
    };
    auto cancelled = [&] { return cancel && cancel->cancelled(); };

    if (st.outPath.empty()) throw FormatError("train: no output model path given");
    if (st.configsPerStep < 2) throw FormatError("train: configs per step must be at least 2");
    if (st.epochs < 1) throw FormatError("train: epochs must be at least 1");
    if (st.threads > 0) torch::set_num_threads(st.threads);
    torch::manual_seed(st.seed);

    // Files
    report(TrainProgress::Phase::Preparing, "scanning " + st.dataDir);
    const auto all = scanDataset(st.dataDir);
    std::vector<DatasetFile> train = selectCollection(all, st.collection, "train");
    std::vector<DatasetFile> valid = selectCollection(all, st.collection, "valid");
    if (train.empty())
        throw FormatError(st.dataDir + ": no training files for collection '" + st.collection +
                          "' (found: " + describeFiles(all) + ")");
    if (st.maxTrainGraphs > 0 && static_cast<int64_t>(train.size()) > st.maxTrainGraphs)
        train.resize(static_cast<size_t>(st.maxTrainGraphs));
    if (valid.empty()) {
        result.warnings.push_back("no valid split for " + st.collection +
                                  ": validating on training graphs");
        valid = train;
    }
    const Collection kind = train.front().kind;
    for (const auto& f : train)
        if (f.kind != kind)
            throw FormatError(st.dataDir + ": '" + st.collection +
                              "' mixes tile and layout files; a model holds one kind");

    // Normalisation statistics and widths, from a spread of training graphs.
    report(TrainProgress::Phase::Preparing, "reading feature statistics");
    std::vector<TpuGraph> statsGraphs;
    LoadOptions statsLoad;
    statsLoad.deferDecoding = true;
    const size_t statsStride = std::max<size_t>(1, train.size() / limits::kStatsGraphs);
    for (size_t i = 0;
         i < train.size() && statsGraphs.size() < static_cast<size_t>(limits::kStatsGraphs);
         i += statsStride)
        statsGraphs.push_back(loadTpuGraph(train[i].path, statsLoad));
    const TpuGraph& first = statsGraphs.front();
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
            if (std::find(result.warnings.begin(), result.warnings.end(), w) ==
                result.warnings.end())
                result.warnings.push_back(w);
    }

    ModelInfo info;
    info.kind = kind;
    info.collection = st.collection.empty() ? collectionName(kind) : st.collection;
    info.settings = st.model;
    if (kind == Collection::Tile) info.settings.violationFeature = false;
    info.nodeFeatureWidth = first.nodeFeatureWidth();
    info.configWidth = first.configFeatureWidth();
    info.stats = computeFeatureStats(statsGraphs);
    statsGraphs.clear();
    info.loss = lossName(st.loss);
    info.trainGraphs = static_cast<int64_t>(train.size());
    info.validGraphs = static_cast<int64_t>(valid.size());
    info.seed = st.seed;
    info.heldOutConfigFraction = st.heldOutConfigFraction;
    info.dataDescription = st.dataDir;

    CostModel model = CostModel::create(info);
    CostModel::Impl& net = model.impl();
    net.label = st.outPath;
    auto parameters = net.module().parameters();
    torch::optim::Adam optimizer(
        parameters, torch::optim::AdamOptions(st.learningRate).weight_decay(st.weightDecay));

    ResumeState state;
    const std::string statePath = st.outPath + ".state";
    if (st.resume && std::filesystem::exists(statePath)) {
        std::string why;
        if (loadResumeState(statePath, info, net, optimizer, state, why))
            report(TrainProgress::Phase::Preparing,
                   "resuming after epoch " + std::to_string(state.epoch));
        else
            result.warnings.push_back(why);
    }

    PairwiseHingeLoss hinge(st.margin);
    ListMleLoss listMle;
    LogRuntimeMseLoss mse;
    auto lossOf = [&](const torch::Tensor& pred, const torch::Tensor& runtime) {
        switch (st.loss) {
            case LossKind::ListMle:
                return listMle(pred, runtime);
            case LossKind::LogRuntimeMse:
                return mse(pred, runtime);
            default:
                return hinge(pred, runtime);
        }
    };

    const int graphsPerStep =
        st.graphsPerStep > 0 ? st.graphsPerStep : (kind == Collection::Tile ? 8 : 1);
    const int64_t stepsPerEpoch =
        (static_cast<int64_t>(train.size()) + graphsPerStep - 1) / graphsPerStep;
    const int64_t totalSteps = stepsPerEpoch * st.epochs;
    const double budget = st.minutes > 0 ? st.minutes * 60.0 : 0.0;
    PreparedGraphCache cache(net, st.cacheBytes);
    std::unordered_map<std::string, TrainableConfigs> trainable;  // small: kept for every graph
    double lastValidationSeconds = 0;
    const double resumedSeconds = state.elapsed;  // time spent by the runs this one resumes
    auto elapsed = [&] {
        return resumedSeconds + std::chrono::duration<double>(Clock::now() - start).count();
    };
    const EvaluationOptions validOptions{st.validConfigsPerGraph, st.seed, 0.0};

    auto validate = [&]() {
        torch::NoGradGuard noGrad;
        net.module().eval();
        std::vector<GraphMetrics> metrics;
        for (size_t i = 0; i < valid.size() && !cancelled(); ++i) {
            auto e = cache.get(valid[i].path);
            const TpuGraph& g = e->prepared.graph;
            if (!g.runtimesKnown()) continue;
            const std::vector<int64_t> ids = evaluationConfigs(g, validOptions);
            if (ids.size() < 2) continue;
            std::vector<double> scores, truth;
            const int64_t batch = net.scoringBatchSize(e->tensors);
            for (size_t b = 0; b < ids.size(); b += static_cast<size_t>(batch)) {
                const int64_t n = std::min<int64_t>(batch, static_cast<int64_t>(ids.size() - b));
                auto s =
                    net.forward(e->tensors, net.batchForConfigs(e->prepared, ids.data() + b, n))
                        .contiguous();
                scores.insert(scores.end(), s.data_ptr<float>(), s.data_ptr<float>() + n);
            }
            for (int64_t c : ids) truth.push_back(g.normalizedRuntime(c));
            metrics.push_back(graphMetrics(valid[i].competitionId(), scores, truth));
            progress.step = static_cast<int64_t>(i + 1);
            progress.steps = static_cast<int64_t>(valid.size());
            progress.elapsedSeconds = elapsed();
            report(TrainProgress::Phase::Validating);
        }
        net.module().train();
        return summarize(kind, metrics);
    };

    std::vector<size_t> order(train.size());
    std::iota(order.begin(), order.end(), 0);
    int64_t trainConfigs = 0;
    for (int epoch = state.epoch + 1; epoch <= st.epochs; ++epoch) {
        if (cancelled()) break;
        if (budget > 0 && elapsed() + lastValidationSeconds >= budget) {
            result.timedOut = true;
            break;
        }
        net.module().train();
        std::mt19937_64 rng(st.seed * 1000003ull + static_cast<uint64_t>(epoch));
        std::shuffle(order.begin(), order.end(), rng);
        progress.epoch = epoch;
        progress.steps = stepsPerEpoch;
        double lossSum = 0;
        int64_t lossCount = 0;
        bool stoppedEarly = false;
        for (int64_t step = 0; step < stepsPerEpoch; ++step) {
            if (cancelled()) break;
            if (budget > 0 && elapsed() + lastValidationSeconds >= budget) {
                result.timedOut = stoppedEarly = true;
                break;
            }
            const double progressFraction =
                std::max(static_cast<double>(state.globalStep) /
                             static_cast<double>(std::max<int64_t>(1, totalSteps)),
                         budget > 0 ? elapsed() / budget : 0.0);
            // Cosine decay to 5% of the base rate over the run (steps or time, whichever ends
            // first).
            const double lr =
                st.learningRate *
                (0.05 + 0.95 * 0.5 * (1.0 + std::cos(M_PI * std::min(1.0, progressFraction))));
            setLearningRate(optimizer, lr);
            optimizer.zero_grad();
            double stepLoss = 0;
            int used = 0;
            for (int k = 0; k < graphsPerStep; ++k) {
                const size_t slot = static_cast<size_t>(step * graphsPerStep + k);
                if (slot >= order.size()) break;
                const DatasetFile& file = train[order[slot]];
                auto e = cache.get(file.path);
                auto it = trainable.find(file.path);
                if (it == trainable.end()) {
                    it = trainable
                             .emplace(file.path,
                                      trainableConfigs(e->prepared.graph, st.heldOutConfigFraction))
                             .first;
                    trainConfigs += static_cast<int64_t>(it->second.index.size());
                }
                const TrainableConfigs& tc = it->second;
                if (tc.index.size() < 2) continue;
                std::vector<size_t> pick(tc.index.size());
                std::iota(pick.begin(), pick.end(), 0);
                const size_t n = std::min(pick.size(), static_cast<size_t>(st.configsPerStep));
                for (size_t i = 0; i < n; ++i)  // partial Fisher-Yates: n distinct configs
                    std::swap(pick[i], pick[i + std::uniform_int_distribution<size_t>(
                                                    0, pick.size() - 1 - i)(rng)]);
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
                auto pred = net.forward(
                    e->tensors,
                    net.batchForConfigs(e->prepared, ids.data(), static_cast<int64_t>(ids.size())));
                auto target =
                    torch::from_blob(runtime.data(), {static_cast<int64_t>(runtime.size())},
                                     torch::kFloat)
                        .clone();
                auto loss = lossOf(pred, target) / static_cast<double>(graphsPerStep);
                loss.backward();
                stepLoss += loss.item<double>();
                ++used;
            }
            if (used > 0) {
                torch::nn::utils::clip_grad_norm_(parameters, 1.0);
                optimizer.step();
                lossSum += stepLoss * graphsPerStep / used;
                ++lossCount;
            }
            ++state.globalStep;
            progress.step = step + 1;
            progress.loss = lossCount ? lossSum / static_cast<double>(lossCount) : 0.0;
            progress.learningRate = lr;
            progress.elapsedSeconds = elapsed();
            report(TrainProgress::Phase::Training);
        }
        if (cancelled()) break;

        const auto validationStart = Clock::now();
        const ValidationSummary v = validate();
        lastValidationSeconds =
            std::chrono::duration<double>(Clock::now() - validationStart).count();
        if (cancelled()) break;
        state.epoch = epoch;
        result.epochsRun = epoch;
        const bool improved =
            !std::isfinite(state.best) || (std::isfinite(v.score) && v.score > state.best + 1e-6);
        if (improved) {
            state.best = std::isfinite(v.score) ? v.score : state.best;
            state.badEpochs = 0;
            net.info.validation = v;
            net.info.epochs = epoch;
            net.info.trainSeconds = elapsed();
            net.info.trainConfigs = trainConfigs;
            model.save(st.outPath);
            result.saved = true;
            result.best = v;
        } else {
            ++state.badEpochs;
        }
        ResumeState saved = state;
        saved.elapsed = elapsed();
        saveResumeState(statePath, net.info, net, optimizer, saved);
        progress.validation = v;
        progress.improved = improved;
        progress.elapsedSeconds = elapsed();
        report(TrainProgress::Phase::EpochDone);
        if (state.badEpochs >= st.patience) {
            result.earlyStopped = true;
            break;
        }
        if (stoppedEarly) break;
    }
    result.cancelled = cancelled();
    result.seconds = elapsed();
    if (!result.saved && state.epoch > 0 && std::filesystem::exists(st.outPath))
        result.saved = true;  // resumed run
    report(TrainProgress::Phase::Finished, result.cancelled      ? "cancelled"
                                           : result.timedOut     ? "time budget reached"
                                           : result.earlyStopped ? "stopped early"
                                                                 : "done");
    return result;
}

}  // namespace tpg::nn
