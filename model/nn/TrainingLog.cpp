#include "TrainingLog.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>

#include "TensorMemory.h"
#include "io/Error.h"
#include "io/ReplacingFile.h"

namespace tpg::nn {

namespace {

using nlohmann::json;

// JSON has no NaN: a metric that does not apply is written as null and read back as NaN.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

double numberOr(const json& j, const char* key, double fallback) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    return it->is_number() ? it->get<double>() : fallback;
}

json validationToJson(const ValidationSummary& v) {
    return {{"graphs", v.graphs},          {"score", number(v.score)},
            {"kendall", number(v.kendall)}, {"opa", number(v.opa)},
            {"slowdown1", number(v.slowdown1)}, {"slowdown5", number(v.slowdown5)},
            {"slowdown10", number(v.slowdown10)}};
}

ValidationSummary validationFromJson(const json& j) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    ValidationSummary v;
    v.graphs = static_cast<int>(numberOr(j, "graphs", 0));
    v.score = numberOr(j, "score", nan);
    v.kendall = numberOr(j, "kendall", nan);
    v.opa = numberOr(j, "opa", nan);
    v.slowdown1 = numberOr(j, "slowdown1", nan);
    v.slowdown5 = numberOr(j, "slowdown5", nan);
    v.slowdown10 = numberOr(j, "slowdown10", nan);
    return v;
}

std::string nowText() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    return buf;
}

template <typename T>
const char* typeName() {
    if constexpr (std::is_same_v<T, std::string>) return "string";
    else if constexpr (std::is_same_v<T, bool>) return "boolean";
    else return "number";
}

// Reads `key` into `out` when present; a present key of the wrong type is an error naming it.
template <typename T>
void read(const json& j, const char* key, T& out, const std::string& file) {
    const auto it = j.find(key);
    if (it == j.end()) return;
    try {
        out = it->get<T>();
    } catch (const json::exception&) {
        throwFormatError(file, key, std::string("expected a ") + typeName<T>() + ", got " + it->dump());
    }
}

int64_t stepOf(const json& j) { return j.value("step", int64_t{0}); }

// Whether a resumed run keeps a line of its log: not the end, nor records after the checkpoint's
// step, nor a line the reader skips (torn by a kill, or edited into another type by hand).
bool keptOnResume(const std::string& line, int64_t keepUpToStep) {
    const json j = json::parse(line, nullptr, false);
    if (!j.is_object()) return false;
    try {
        const std::string type = j.value("type", std::string());
        return type != "end" && !((type == "step" || type == "epoch") && stepOf(j) > keepUpToStep);
    } catch (const json::exception&) {
        return false;
    }
}

json settingsToJson(const TrainSettings& s) {
    const ModelSettings& m = s.model;
    return {
        {"data", s.dataDir},
        {"collection", s.collection},
        {"train_file", s.trainFile},
        {"out", s.outPath},
        {"epochs", s.epochs},
        {"minutes", s.minutes},
        {"seed", s.seed},
        {"threads", s.threads},
        {"hidden", m.hidden},
        {"layers", m.layers},
        {"opcode_dim", m.opcodeDim},
        {"attention_heads", m.attentionHeads},
        {"hops", m.pruneHops},
        {"violation_feature", m.violationFeature},
        {"config_attention", m.configAttention},
        {"slot_features", m.slotFeatures},
        {"node_cost_readout", m.nodeCostReadout},
        {"bounds_features", m.boundsFeatures},
        {"spill_features", m.spillFeatures},
        {"traffic_features", m.trafficFeatures},
        {"flow_features", m.flowFeatures},
        {"relayout_features", m.relayoutFeatures},
        {"pooled_head", m.pooledHead},
        {"loss", lossName(s.loss)},
        {"margin", s.margin},
        {"temperature", s.temperature},
        {"lr", s.learningRate},
        {"lr_schedule", scheduleName(s.schedule)},
        {"weight_decay", s.weightDecay},
        {"dropout", s.dropout},
        {"listmle_weight", s.listMleWeight},
        {"weight_average", s.weightAverage},
        {"configs_per_step", s.configsPerStep},
        {"graphs_per_step", s.graphsPerStep},
        {"patience", s.patience},
        {"select_by", selectionName(s.selectBy)},
        {"cache_bytes", s.cacheBytes},
        {"valid_configs", s.validConfigsPerGraph},
        {"held_out_configs", s.heldOutConfigFraction},
        {"max_graphs", s.maxTrainGraphs},
        {"checkpoint_seconds", s.checkpointSeconds},
        {"products", productsName(s.products)},
    };
}

TrainSettings settingsFromJson(const json& j, const std::string& file) {
    if (!j.is_object()) throwFormatError(file, "settings", "expected an object");
    TrainSettings s;
    s.model = ModelSettings::beforeOptions();  // a key the log lacks: the run had no such option
    ModelSettings& m = s.model;
    read(j, "data", s.dataDir, file);
    read(j, "collection", s.collection, file);
    read(j, "train_file", s.trainFile, file);
    read(j, "out", s.outPath, file);
    read(j, "epochs", s.epochs, file);
    read(j, "minutes", s.minutes, file);
    read(j, "seed", s.seed, file);
    read(j, "threads", s.threads, file);
    read(j, "hidden", m.hidden, file);
    read(j, "layers", m.layers, file);
    read(j, "opcode_dim", m.opcodeDim, file);
    read(j, "attention_heads", m.attentionHeads, file);
    read(j, "hops", m.pruneHops, file);
    read(j, "violation_feature", m.violationFeature, file);
    read(j, "config_attention", m.configAttention, file);
    read(j, "slot_features", m.slotFeatures, file);
    read(j, "node_cost_readout", m.nodeCostReadout, file);
    read(j, "bounds_features", m.boundsFeatures, file);
    read(j, "spill_features", m.spillFeatures, file);
    read(j, "traffic_features", m.trafficFeatures, file);
    read(j, "flow_features", m.flowFeatures, file);
    read(j, "relayout_features", m.relayoutFeatures, file);
    read(j, "pooled_head", m.pooledHead, file);
    std::string loss = lossName(LossKind::PairwiseHinge);  // a log without one predates "auto"
    read(j, "loss", loss, file);
    if (!parseLoss(loss, s.loss)) throwFormatError(file, "loss", std::string("expected ") + lossChoices() + ", got '" + loss + "'");
    read(j, "margin", s.margin, file);
    read(j, "temperature", s.temperature, file);
    read(j, "lr", s.learningRate, file);
    std::string schedule = scheduleName(s.schedule);
    read(j, "lr_schedule", schedule, file);
    if (!parseSchedule(schedule, s.schedule))
        throwFormatError(file, "lr_schedule", std::string("expected ") + scheduleChoices() + ", got '" + schedule + "'");
    read(j, "weight_decay", s.weightDecay, file);
    read(j, "dropout", s.dropout, file);
    read(j, "listmle_weight", s.listMleWeight, file);
    read(j, "weight_average", s.weightAverage, file);
    read(j, "configs_per_step", s.configsPerStep, file);
    read(j, "graphs_per_step", s.graphsPerStep, file);
    read(j, "patience", s.patience, file);
    std::string selectBy = "score";  // a log without the key: a run before the option, by score
    read(j, "select_by", selectBy, file);
    if (!parseSelection(selectBy, s.selectBy))
        throwFormatError(file, "select_by", "expected score or kendall, got '" + selectBy + "'");
    read(j, "cache_bytes", s.cacheBytes, file);
    read(j, "valid_configs", s.validConfigsPerGraph, file);
    read(j, "held_out_configs", s.heldOutConfigFraction, file);
    read(j, "max_graphs", s.maxTrainGraphs, file);
    read(j, "checkpoint_seconds", s.checkpointSeconds, file);
    std::string products = productsName(s.products);
    read(j, "products", products, file);
    if (!parseProducts(products, s.products))
        throwFormatError(file, "products", "expected auto, float or bfloat16, got '" + products + "'");
    return s;
}

}  // namespace

std::string trainSettingsToJson(const TrainSettings& s) { return settingsToJson(s).dump(); }

TrainSettings trainSettingsFromJson(const std::string& text, const std::string& file) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throwFormatError(file, "settings", std::string("not JSON: ") + e.what());
    }
    return settingsFromJson(j, file);
}

TrainingHistory readTrainingLog(const std::string& path) {
    std::ifstream in(path);
    if (!in) throwFormatError(path, "", "cannot open the training log");
    TrainingHistory h;
    bool started = false;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
            ++h.skippedLines;
            continue;
        }
        const std::string type = j["type"].get<std::string>();
        try {
            if (type == "start") {
                started = true;
                h.settings = settingsFromJson(j.at("settings"), path);
                h.kind = j.value("kind", std::string("layout")) == "tile" ? Collection::Tile : Collection::Layout;
                h.trainedOn = j.value("trained_on", std::string());
                h.finished = false;  // a resumed run reopens the log
            } else if (type == "step") {
                h.steps.push_back({stepOf(j), j.value("epoch", 0), numberOr(j, "loss", 0), numberOr(j, "lr", 0),
                                   numberOr(j, "elapsed", 0), numberOr(j, "configs_per_s", 0)});
            } else if (type == "epoch") {
                h.epochs.push_back({j.value("epoch", 0), stepOf(j), numberOr(j, "loss", 0),
                                    validationFromJson(j.value("valid", json::object())), j.value("improved", false),
                                    numberOr(j, "elapsed", 0)});
            } else if (type == "end") {
                h.finished = true;
                h.endReason = j.value("reason", std::string());
            }
        } catch (const json::exception&) {
            ++h.skippedLines;
        }
    }
    if (!started) throwFormatError(path, "start", "no start record: not a training log");
    return h;
}

TrainingLogWriter::TrainingLogWriter(const std::string& path, const TrainSettings& settings, Collection kind,
                                     const std::string& trainedOn, int64_t keepUpToStep)
    : m_path(path) {
    namespace fs = std::filesystem;
    if (keepUpToStep >= 0 && fs::exists(path)) {
        std::ifstream in(path);
        std::ostringstream kept;
        std::string line;
        while (std::getline(in, line)) {
            if (!keptOnResume(line, keepUpToStep)) continue;
            kept << line << '\n';
        }
        in.close();
        writeFileWhole(path, kept.str());
    }
    m_out.open(path, keepUpToStep >= 0 ? std::ios::app : std::ios::trunc);
    if (!m_out) throwFormatError(path, "", "cannot write the training log");
    const json start = {{"type", "start"},
                        {"time", nowText()},
                        {"kind", kind == Collection::Tile ? "tile" : "layout"},
                        {"trained_on", trainedOn},
                        {"allocator", allocatorName()},
                        // The loss trained with, where the settings may say "auto".
                        {"loss", lossName(resolveLoss(settings.loss, kind, settings.listMleWeight))},
                        {"settings", settingsToJson(settings)}};
    writeLine(start.dump());
    flush();
}

void TrainingLogWriter::step(const StepRecord& r) {
    writeLine(json{{"type", "step"},
                   {"step", r.step},
                   {"epoch", r.epoch},
                   {"loss", number(r.loss)},
                   {"lr", r.learningRate},
                   {"elapsed", r.elapsedSeconds},
                   {"configs_per_s", r.configsPerSecond}}
                  .dump());
}

void TrainingLogWriter::epoch(const EpochRecord& r) {
    writeLine(json{{"type", "epoch"},
                   {"epoch", r.epoch},
                   {"step", r.step},
                   {"loss", number(r.loss)},
                   {"valid", validationToJson(r.validation)},
                   {"improved", r.improved},
                   {"elapsed", r.elapsedSeconds}}
                  .dump());
    flush();
}

void TrainingLogWriter::end(const std::string& reason, int64_t steps, double elapsedSeconds) {
    writeLine(json{{"type", "end"}, {"reason", reason}, {"steps", steps}, {"elapsed", elapsedSeconds}}.dump());
    flush();
}

void TrainingLogWriter::flush() { m_out.flush(); }

void TrainingLogWriter::writeLine(const std::string& line) { m_out << line << '\n'; }

}  // namespace tpg::nn
