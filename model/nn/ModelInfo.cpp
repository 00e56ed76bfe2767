#include "ModelInfo.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "Crc32.h"
#include "NnLimits.h"
#include "io/Error.h"
#include "io/ReplacingFile.h"

namespace tpg::nn {

using nlohmann::json;

const char* lossName(LossKind k) {
    switch (k) {
        case LossKind::Auto:
            return "auto";
        case LossKind::PairwiseHinge:
            return "hinge";
        case LossKind::ListMle:
            return "listmle";
        case LossKind::LogRuntimeMse:
            return "mse";
        case LossKind::PairwiseLogistic:
            return "logistic";
    }
    return "hinge";
}

ModelShape defaultModelShape(Collection kind) {
    return kind == Collection::Layout ? ModelShape{48, 2} : ModelShape{64, 3};
}

bool takesPooledHead(const ModelSettings& m) {
    return m.pooledHead || !m.nodeCostReadout || m.configAttention || m.violationFeature;
}

void resolveModelShape(ModelSettings& m, Collection kind) {
    const ModelShape best = defaultModelShape(kind);
    if (m.hidden == 0) m.hidden = best.hidden;
    if (m.layers == 0) m.layers = best.layers;
}

LossKind defaultLoss(Collection kind) {
    return kind == Collection::Layout ? LossKind::PairwiseLogistic : LossKind::PairwiseHinge;
}

LossKind resolveLoss(LossKind k, Collection kind, double listMleWeight) {
    if (k != LossKind::Auto) return k;
    return listMleWeight > 0 ? LossKind::PairwiseHinge : defaultLoss(kind);
}

const char* lossChoices() { return "auto, hinge, listmle, mse or logistic"; }

bool parseLoss(const std::string& s, LossKind& out) {
    for (LossKind k : {LossKind::Auto, LossKind::PairwiseHinge, LossKind::ListMle, LossKind::LogRuntimeMse,
                       LossKind::PairwiseLogistic})
        if (s == lossName(k)) {
            out = k;
            return true;
        }
    return false;
}

namespace {

json statsJson(const ColumnStats& s) {
    return json{{"mean", s.mean}, {"inv_std", s.invStd}};
}

// NaN is not JSON: store null and read it back as NaN.
json number(double v) {
    return std::isfinite(v) ? json(v) : json(nullptr);
}
double numberOr(const json& j, const char* key) {
    if (!j.contains(key) || j[key].is_null()) return std::nan("");
    return j[key].get<double>();
}

}  // namespace

std::string modelInfoToJson(const ModelInfo& i) {
    const ModelSettings& s = i.settings;
    json j;
    j["format_version"] = ModelInfo::kFormatVersion;
    j["kind"] = collectionName(i.kind);
    j["collection"] = i.collection;
    j["settings"] = {{"hidden", s.hidden},
                     {"layers", s.layers},
                     {"opcode_dim", s.opcodeDim},
                     {"attention_heads", s.attentionHeads},
                     {"prune_hops", s.pruneHops},
                     {"violation_feature", s.violationFeature},
                     {"config_attention", s.configAttention},
                     {"slot_features", s.slotFeatures},
                     {"node_cost_readout", s.nodeCostReadout},
                     {"bounds_features", s.boundsFeatures},
                     {"spill_features", s.spillFeatures},
                     {"traffic_features", s.trafficFeatures},
                     {"flow_features", s.flowFeatures},
                     {"relayout_features", s.relayoutFeatures},
                     {"pooled_head", s.pooledHead}};
    j["node_feature_width"] = i.nodeFeatureWidth;
    j["config_width"] = i.configWidth;
    j["stats"] = {{"node", statsJson(i.stats.node)},
                  {"tile_config", statsJson(i.stats.tileConfig)}};
    j["training"] = {{"loss", i.loss},
                     {"margin", i.margin},
                     {"temperature", i.temperature},
                     {"listmle_weight", i.listMleWeight},
                     {"train_graphs", i.trainGraphs},
                     {"train_configs", i.trainConfigs},
                     {"valid_graphs", i.validGraphs},
                     {"epochs", i.epochs},
                     {"seconds", i.trainSeconds},
                     {"seed", i.seed},
                     {"held_out_config_fraction", i.heldOutConfigFraction},
                     {"data", i.dataDescription}};
    const ValidationSummary& v = i.validation;
    j["validation"] = {{"graphs", v.graphs},
                       {"score", number(v.score)},
                       {"kendall", number(v.kendall)},
                       {"opa", number(v.opa)},
                       {"slowdown_top1", number(v.slowdown1)},
                       {"slowdown_top5", number(v.slowdown5)},
                       {"slowdown_top10", number(v.slowdown10)}};
    return j.dump(1);
}

ModelInfo modelInfoFromJson(const std::string& text, const std::string& file) {
    ModelInfo i;
    std::string where = "metadata";
    try {
        const json j = json::parse(text);
        where = "format_version";
        const int version = j.at("format_version").get<int>();
        if (version < 1 || version > ModelInfo::kFormatVersion)
            throwFormatError(
                file, "format_version",
                "model format " + std::to_string(version) + " is not supported (expected 1 to " +
                    std::to_string(ModelInfo::kFormatVersion) + ": a newer version's?)");
        where = "kind";
        const std::string kind = j.at("kind").get<std::string>();
        if (kind == "layout")
            i.kind = Collection::Layout;
        else if (kind == "tile")
            i.kind = Collection::Tile;
        else
            throwFormatError(file, "kind", "expected 'layout' or 'tile', got '" + kind + "'");
        where = "collection";
        i.collection = j.at("collection").get<std::string>();
        where = "settings";
        const json& s = j.at("settings");
        i.settings.hidden = s.at("hidden").get<int>();
        i.settings.layers = s.at("layers").get<int>();
        i.settings.opcodeDim = s.at("opcode_dim").get<int>();
        i.settings.attentionHeads = s.at("attention_heads").get<int>();
        i.settings.pruneHops = s.at("prune_hops").get<int>();
        i.settings.violationFeature = s.at("violation_feature").get<bool>();
        i.settings.configAttention = s.at("config_attention").get<bool>();
        const ModelSettings old = ModelSettings::beforeOptions();
        i.settings.slotFeatures = s.value("slot_features", old.slotFeatures);
        i.settings.nodeCostReadout = s.value("node_cost_readout", old.nodeCostReadout);
        i.settings.boundsFeatures = s.value("bounds_features", old.boundsFeatures);
        i.settings.spillFeatures = s.value("spill_features", old.spillFeatures);
        i.settings.trafficFeatures = s.value("traffic_features", old.trafficFeatures);
        i.settings.flowFeatures = s.value("flow_features", old.flowFeatures);
        i.settings.relayoutFeatures = s.value("relayout_features", old.relayoutFeatures);
        i.settings.pooledHead = s.value("pooled_head", old.pooledHead);
        where = "node_feature_width";
        i.nodeFeatureWidth = j.at("node_feature_width").get<int64_t>();
        where = "config_width";
        i.configWidth = j.at("config_width").get<int64_t>();
        where = "stats";
        const json& st = j.at("stats");
        i.stats.node.mean = st.at("node").at("mean").get<std::vector<float>>();
        i.stats.node.invStd = st.at("node").at("inv_std").get<std::vector<float>>();
        i.stats.tileConfig.mean = st.at("tile_config").at("mean").get<std::vector<float>>();
        i.stats.tileConfig.invStd = st.at("tile_config").at("inv_std").get<std::vector<float>>();
        where = "training";
        const json& t = j.at("training");
        i.loss = t.at("loss").get<std::string>();
        i.margin = t.value("margin", kDefaultMargin);
        i.temperature = t.value("temperature", kDefaultTemperature);
        i.listMleWeight = t.value("listmle_weight", 0.0);
        i.trainGraphs = t.at("train_graphs").get<int64_t>();
        i.trainConfigs = t.at("train_configs").get<int64_t>();
        i.validGraphs = t.at("valid_graphs").get<int64_t>();
        i.epochs = t.at("epochs").get<int>();
        i.trainSeconds = t.at("seconds").get<double>();
        i.seed = t.at("seed").get<uint64_t>();
        i.heldOutConfigFraction = t.at("held_out_config_fraction").get<double>();
        i.dataDescription = t.at("data").get<std::string>();
        where = "validation";
        const json& v = j.at("validation");
        i.validation.graphs = v.at("graphs").get<int>();
        i.validation.score = numberOr(v, "score");
        i.validation.kendall = numberOr(v, "kendall");
        i.validation.opa = numberOr(v, "opa");
        i.validation.slowdown1 = numberOr(v, "slowdown_top1");
        i.validation.slowdown5 = numberOr(v, "slowdown_top5");
        i.validation.slowdown10 = numberOr(v, "slowdown_top10");
    } catch (const json::exception& e) {
        throwFormatError(file, where, std::string("unreadable model metadata: ") + e.what());
    }
    const auto& s = i.settings;
    if (s.hidden < 1 || s.hidden > 4096 || s.layers < 0 || s.layers > 64 || s.opcodeDim < 1 ||
        s.opcodeDim > 1024 || s.attentionHeads < 1 || s.hidden % s.attentionHeads != 0)
        throwFormatError(file, "settings", "network shape out of range");
    if (i.nodeFeatureWidth < 1 || i.configWidth < 1 ||
        i.stats.node.mean.size() != size_t(i.nodeFeatureWidth) ||
        i.stats.node.invStd.size() != size_t(i.nodeFeatureWidth))
        throwFormatError(file, "stats", "normalisation statistics do not match the feature widths");
    if (i.kind == Collection::Tile && (i.stats.tileConfig.mean.size() != size_t(i.configWidth) ||
                                       i.stats.tileConfig.invStd.size() != size_t(i.configWidth)))
        throwFormatError(file, "stats", "tile config statistics do not match the config width");
    return i;
}

namespace {

// Little-endian unsigned fields of `bytes` bytes (the lengths: 8, the checksum: 4).
void putLittleEndian(std::string& s, uint64_t v, int bytes) {
    for (int b = 0; b < bytes; ++b) s.push_back(static_cast<char>((v >> (8 * b)) & 0xff));
}
uint64_t getLittleEndian(const std::string& s, size_t at, int bytes) {
    uint64_t v = 0;
    for (int b = 0; b < bytes; ++b)
        v |= static_cast<uint64_t>(static_cast<uint8_t>(s[at + size_t(b)])) << (8 * b);
    return v;
}

}  // namespace

std::string encodeModelFile(const std::string& magic, const ModelFileContents& c) {
    std::string out = magic;
    putLittleEndian(out, c.json.size(), 8);
    out += c.json;
    putLittleEndian(out, c.weights.size(), 8);
    out += c.weights;
    // A changed digit of the metadata (a normalisation statistic) must not load without a word.
    const uint32_t crc = crc32Of(out);
    putLittleEndian(out, crc, 4);
    return out;
}

void writeModelFile(const std::string& path, const std::string& magic, const ModelFileContents& c) {
    writeFileWhole(path, encodeModelFile(magic, c));
}

ModelFileContents parseModelBytes(const std::string& bytes, const std::string& label,
                                  const std::string& magic) {
    if (bytes.compare(0, magic.size(), magic) != 0) {
        const bool other = bytes.rfind("TPUGRAPHS-", 0) == 0;
        throwFormatError(label, "",
                         other ? "this is a training-state file, not a model (or the reverse)"
                               : "not a tpugraphs cost model file");
    }
    size_t at = magic.size();
    auto need = [&](uint64_t n, const char* what) {
        if (bytes.size() < at || bytes.size() - at < n)
            throwFormatError(label, "", std::string("truncated file (") + what + " cut short)");
    };
    need(8, "metadata length");
    const uint64_t jsonLen = getLittleEndian(bytes, at, 8);
    at += 8;
    if (jsonLen > limits::kMaxMetadataBytes)
        throwFormatError(label, "", "corrupt header (metadata length)");
    need(jsonLen, "metadata");
    ModelFileContents c;
    c.json = bytes.substr(at, jsonLen);
    at += jsonLen;
    need(8, "weights length");
    const uint64_t wLen = getLittleEndian(bytes, at, 8);
    at += 8;
    need(wLen, "weights");
    c.weights = bytes.substr(at, wLen);
    at += wLen;
    // Files written before 2026-11-28 end with their weights; since then with a CRC-32.
    if (bytes.size() - at == 4) {
        if (getLittleEndian(bytes, at, 4) != crc32Of(std::string_view(bytes).substr(0, at)))
            throwFormatError(label, "", "damaged: the file's checksum does not match its contents");
    } else if (bytes.size() != at) {
        throwFormatError(
            label, "",
            std::to_string(bytes.size() - at) + " unexpected bytes after the weights (damaged?)");
    }
    return c;
}

ModelFileContents readModelFile(const std::string& path, const std::string& magic) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throwFormatError(path, "", "no such model file");
    std::ifstream f(path, std::ios::binary);
    if (!f) throwFormatError(path, "", "cannot open (" + std::string(std::strerror(errno)) + ")");
    // Check the magic before reading the rest: a wrong (maybe huge) file is refused at once.
    std::string head(magic.size(), '\0');
    f.read(head.data(), static_cast<std::streamsize>(head.size()));
    if (head != magic) return parseModelBytes(head, path, magic);
    std::ostringstream ss;
    ss << head << f.rdbuf();
    return parseModelBytes(ss.str(), path, magic);
}

ModelInfo readModelInfo(const std::string& path) {
    return modelInfoFromJson(readModelFile(path, kModelMagic).json, path);
}

}  // namespace tpg::nn
