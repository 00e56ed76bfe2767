#include "CostModel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <thread>

#include "CostModelImpl.h"
#include "LayoutSlotShapes.h"
#include "NnLimits.h"
#include "TensorArchive.h"
#include "TileBoundsFeatures.h"
#include "TorchArchiveReader.h"
#include "graph/Schema.h"
#include "io/Error.h"
#include "synth/SameProgramScores.h"

namespace tpg::nn {

namespace {

torch::Tensor longTensor(const std::vector<int64_t>& v) {
    return torch::from_blob(const_cast<int64_t*>(v.data()), {static_cast<int64_t>(v.size())},
                            torch::kLong)
        .clone();
}

GraphEdges makeEdges(const std::vector<std::array<int32_t, 2>>& edges,
                     const std::vector<int64_t>& producerCount,
                     const std::vector<int64_t>& consumerCount) {
    std::vector<int64_t> cons(edges.size()), prod(edges.size());
    for (size_t i = 0; i < edges.size(); ++i) {
        cons[i] = edges[i][0];
        prod[i] = edges[i][1];
    }
    auto inverse = [](const std::vector<int64_t>& count) {
        std::vector<float> inv(count.size());
        for (size_t i = 0; i < count.size(); ++i)
            inv[i] = count[i] > 0 ? 1.0f / static_cast<float>(count[i]) : 0.0f;
        return torch::from_blob(inv.data(), {static_cast<int64_t>(inv.size()), 1}, torch::kFloat)
            .clone();
    };
    GraphEdges e{longTensor(cons), longTensor(prod), inverse(producerCount), inverse(consumerCount), {}, {}};
    const auto n = static_cast<int64_t>(producerCount.size());
    e.fromProducers = makeNeighbourMean(e.consumer, e.producer, e.invProducerCount, n);
    e.fromConsumers = makeNeighbourMean(e.producer, e.consumer, e.invConsumerCount, n);
    return e;
}

// The first non-blank line: LibTorch's script errors begin with a line break.
std::string firstLine(const std::string& s) {
    const size_t begin = std::min(s.find_first_not_of(" \n"), s.size());
    return s.substr(begin, s.find('\n', begin) - begin);
}

// A diverged run's NaN, or a damaged file, must not load as a model that ranks at random.
void requireFiniteWeights(torch::nn::Module& module, const std::string& label) {
    for (const auto& [name, t] : namedState(module))
        if (!torch::isfinite(t).all().item<bool>())
            throwFormatError(label, "weights",
                             "tensor '" + name +
                                 "' holds NaN or infinite values (a training run that diverged?)");
}

// NaN scores cannot be ranked (sorting them is undefined), so a score the model could not
// compute is refused, naming the configuration, rather than ranked at random.
void requireFiniteScores(const TpuGraph& g, const float* scores, int64_t count,
                         const int64_t* configs) {
    for (int64_t i = 0; i < count; ++i)
        if (!std::isfinite(scores[i]))
            throwFormatError(g.path().empty() ? g.name() : g.path(), "",
                             (configs ? "configuration " + std::to_string(configs[i])
                                      : std::string("an edited configuration")) +
                                 ": the model's score is not finite (a feature value beyond what "
                                 "it was trained on?)");
}

}  // namespace

void CostModel::Impl::build() {
    // Slot features read node_feat's shape and layout columns and the config's 18 slot values.
    if (info.kind != Collection::Layout || info.nodeFeatureWidth != schema::kNodeFeatureWidth ||
        info.configWidth != schema::kLayoutConfigWidth)
        info.settings.slotFeatures = false;
    info.settings.flowFeatures = info.settings.flowFeatures && info.settings.slotFeatures;  // extends them
    info.settings.relayoutFeatures = info.settings.relayoutFeatures && info.settings.flowFeatures;
    // Bounds, spill and traffic features read node_feat's shape columns and the 24 named bounds.
    if (info.kind != Collection::Tile || info.nodeFeatureWidth != schema::kNodeFeatureWidth ||
        info.configWidth != schema::kTileConfigWidth)
        info.settings.boundsFeatures = info.settings.spillFeatures = info.settings.trafficFeatures = false;
    CostNetOptions o;
    o.nodeFeatureWidth = info.nodeFeatureWidth;
    o.configWidth = info.configWidth;
    o.hidden = info.settings.hidden;
    o.layers = info.settings.layers;
    o.opcodeDim = info.settings.opcodeDim;
    o.attentionHeads = info.settings.attentionHeads;
    o.violationFeature = info.kind == Collection::Layout && info.settings.violationFeature;
    o.configAttention = info.settings.configAttention;
    o.slotFeatures = info.settings.slotFeatures;
    o.flowFeatures = info.settings.flowFeatures;
    o.relayoutFeatures = info.settings.relayoutFeatures;
    o.nodeCostReadout = info.kind == Collection::Layout && info.settings.nodeCostReadout;
    o.boundsFeatures = info.settings.boundsFeatures;
    o.spillFeatures = info.settings.spillFeatures;
    o.trafficFeatures = info.settings.trafficFeatures;
    o.pooledHead = takesPooledHead(info.settings);
    if (info.kind == Collection::Layout)
        layout = LayoutCostNet(o);
    else
        tile = TileCostNet(o);
}

torch::nn::Module& CostModel::Impl::module() {
    return layout ? static_cast<torch::nn::Module&>(*layout)
                  : static_cast<torch::nn::Module&>(*tile);
}

std::shared_ptr<torch::nn::Module> CostModel::Impl::modulePtr() {
    return layout ? std::static_pointer_cast<torch::nn::Module>(layout.ptr())
                  : std::static_pointer_cast<torch::nn::Module>(tile.ptr());
}

PreparedGraph CostModel::Impl::prepare(const TpuGraph& g) const {
    return prepareGraph(g, info.kind == Collection::Layout ? info.settings.pruneHops : -1);
}

GraphTensors CostModel::Impl::makeTensors(const PreparedGraph& p) const {
    GraphTensors t;
    const int64_t n = p.numNodes();
    t.numNodes = n;
    std::vector<float> x(p.features);
    for (int64_t i = 0; i < n; ++i) info.stats.node.apply(x.data() + i * p.featureWidth);
    t.x = torch::from_blob(x.data(), {n, p.featureWidth}, torch::kFloat).clone();
    t.opcode = longTensor(p.opcodes);
    std::vector<int64_t> producerCount(static_cast<size_t>(n)),
        consumerCount(static_cast<size_t>(n));
    for (const auto& e : p.edges) {
        producerCount[static_cast<size_t>(e[0])]++;
        consumerCount[static_cast<size_t>(e[1])]++;
    }
    t.full = makeEdges(p.edges, producerCount, consumerCount);
    if (info.kind != Collection::Layout) return t;

    // D: nodes whose embedding after `layers` layers depends on the config; S: D plus a halo.
    std::vector<int32_t> seeds(p.configurablePos.begin(), p.configurablePos.end());
    const int layers = info.settings.layers;
    const std::vector<int32_t> dependent = neighbourhood(n, p.edges, seeds, layers);
    const std::vector<int32_t> subset = neighbourhood(n, p.edges, seeds, layers + 1);
    std::vector<int32_t> pos(static_cast<size_t>(n), -1);
    for (size_t i = 0; i < subset.size(); ++i)
        pos[static_cast<size_t>(subset[i])] = static_cast<int32_t>(i);
    std::vector<char> inD(static_cast<size_t>(n), 0);
    for (int32_t v : dependent) inD[static_cast<size_t>(v)] = 1;

    std::vector<std::array<int32_t, 2>> local;
    for (const auto& e : p.edges) {
        const int32_t a = pos[static_cast<size_t>(e[0])], b = pos[static_cast<size_t>(e[1])];
        if (a >= 0 && b >= 0 && (inD[static_cast<size_t>(e[0])] || inD[static_cast<size_t>(e[1])]))
            local.push_back({a, b});
    }
    std::vector<int64_t> subsetIds(subset.begin(), subset.end()), localProd, localCons, haloPos,
        haloIds, depPos, outside, confPos;
    for (int32_t v : subset) {
        localProd.push_back(producerCount[static_cast<size_t>(v)]);
        localCons.push_back(consumerCount[static_cast<size_t>(v)]);
        if (inD[static_cast<size_t>(v)])
            depPos.push_back(pos[static_cast<size_t>(v)]);
        else {
            haloPos.push_back(pos[static_cast<size_t>(v)]);
            haloIds.push_back(v);
        }
    }
    for (int64_t v = 0; v < n; ++v)
        if (!inD[static_cast<size_t>(v)]) outside.push_back(v);
    for (int64_t c : p.configurablePos) confPos.push_back(pos[static_cast<size_t>(c)]);
    t.subset = longTensor(subsetIds);
    t.local = makeEdges(local, localProd, localCons);
    t.haloPos = longTensor(haloPos);
    t.haloIds = longTensor(haloIds);
    t.dependentPos = longTensor(depPos);
    t.outsideIds = longTensor(outside);
    t.configPos = longTensor(confPos);
    if (info.settings.slotFeatures) {
        std::vector<RelayoutOp> relayouts;
        std::vector<RelayoutOp>* wanted = info.settings.relayoutFeatures ? &relayouts : nullptr;
        const std::vector<LayoutSlotShape> shapes = layoutSlotShapes(p.graph, wanted);
        t.slotTensors = makeLayoutSlotTensors(shapes, wanted);
    }
    return t;
}

ConfigBatch CostModel::Impl::batchForRows(const PreparedGraph& p, const float* rows,
                                          int64_t count) const {
    ConfigBatch b;
    const int64_t w = info.configWidth;
    if (info.kind == Collection::Layout) {
        const int64_t nc = static_cast<int64_t>(p.configurablePos.size());
        b.config =
            torch::from_blob(const_cast<float*>(rows), {count, nc, w}, torch::kFloat).clone();
        if (info.settings.violationFeature) {
            std::vector<float> v(static_cast<size_t>(count));
            for (int64_t c = 0; c < count; ++c)
                v[static_cast<size_t>(c)] = violationRatio(p, rows + c * nc * w, w);
            b.violation = torch::from_blob(v.data(), {count}, torch::kFloat).clone();
        }
    } else {
        const bool bounds = info.settings.boundsFeatures, spill = info.settings.spillFeatures,
                   traffic = info.settings.trafficFeatures;
        const int64_t extra = tileExtraColumns(bounds, spill, traffic);
        const TileOperands operands = extra ? tileOperands(p.graph) : TileOperands{};
        std::vector<float> x(static_cast<size_t>(count * (w + extra)));
        for (int64_t c = 0; c < count; ++c) {
            float* dst = x.data() + c * (w + extra);
            const float* raw = rows + c * w;
            transformTileConfig(raw, w, dst);
            info.stats.tileConfig.apply(dst);
            if (bounds) tileBoundsFeatures(operands, raw, dst + w);
            if (spill) tileSpillFeatures(operands, raw, dst + w + tileExtraColumns(bounds, false));
            if (traffic) tileTrafficFeatures(operands, raw, dst + w + tileExtraColumns(bounds, spill));
        }
        b.config = torch::from_blob(x.data(), {count, w + extra}, torch::kFloat).clone();
    }
    return b;
}

ConfigBatch CostModel::Impl::batchForConfigs(const PreparedGraph& p, const int64_t* configs,
                                             int64_t count) const {
    const TpuGraph& g = p.graph;
    if (info.kind == Collection::Layout) {
        const auto& table = *g.layoutConfigs();
        const int64_t row = table.rowSize();
        std::vector<float> rows(static_cast<size_t>(count * row));
        for (int64_t i = 0; i < count;) {  // contiguous runs in one read
            int64_t j = i + 1;
            while (j < count && configs[j] == configs[j - 1] + 1) ++j;
            table.read(configs[i], j - i, rows.data() + i * row);
            i = j;
        }
        return batchForRows(p, rows.data(), count);
    }
    const int64_t w = g.configFeatureWidth();
    std::vector<float> rows(static_cast<size_t>(count * w));
    for (int64_t i = 0; i < count; ++i)
        std::copy(g.tileConfig(configs[i]), g.tileConfig(configs[i]) + w, rows.data() + i * w);
    return batchForRows(p, rows.data(), count);
}

torch::Tensor CostModel::Impl::forward(const GraphTensors& t, const ConfigBatch& b) {
    return layout ? layout->forward(t, b.config, b.violation) : tile->forward(t, b.config);
}

std::vector<int64_t> CostModel::Impl::weightsStamp() {
    std::vector<int64_t> stamp;
    auto add = [&](const torch::Tensor& t) {
        stamp.push_back(reinterpret_cast<int64_t>(t.unsafeGetTensorImpl()));
        stamp.push_back(static_cast<int64_t>(t._version()));
    };
    for (const auto& p : module().parameters()) add(p);
    for (const auto& b : module().buffers()) add(b);
    return stamp;
}

const LayoutSharedPass& CostModel::Impl::sharedFor(const GraphTensors& t) {
    auto stamp = weightsStamp();
    if (!cachedShared || stamp != cachedSharedStamp) {
        cachedShared = std::make_shared<LayoutSharedPass>(layout->sharedPass(t));
        cachedSharedStamp = std::move(stamp);
        editedState.reset();  // built on the old pass
    }
    return *cachedShared;
}

torch::Tensor CostModel::Impl::forwardCached(const GraphTensors& t, const ConfigBatch& b) {
    if (!layout || &t != cachedTensors.get()) return forward(t, b);
    return layout->forward(t, sharedFor(t), b.config, b.violation);
}

std::unique_lock<std::mutex> CostModel::Impl::lockInteractive() {
    ++interactiveWaiting;
    std::unique_lock<std::mutex> lock(mutex);
    --interactiveWaiting;
    return lock;
}

int64_t CostModel::Impl::scoringBatchSize(const GraphTensors& t) const {
    const int64_t perConfigNodes =
        layout ? std::max<int64_t>(1, t.subset.numel()) : std::max<int64_t>(1, t.numNodes);
    // Live activations per config: a few [nodes, H] tensors per layer (index_select, cat of 3 H).
    const int64_t perConfig = perConfigNodes * info.settings.hidden * 8;
    return std::clamp<int64_t>(limits::kScoreBatchFloats / perConfig, 1,
                               limits::kScoreBatchConfigs);
}

std::pair<std::shared_ptr<PreparedGraph>, std::shared_ptr<GraphTensors>> CostModel::Impl::cached(
    const TpuGraph& g) {
    if (cachedGraph != &g.data() || cachedPath != g.path() || cachedNodes != g.numNodes()) {
        cachedPrepared = std::make_shared<PreparedGraph>(prepare(g));
        cachedTensors = std::make_shared<GraphTensors>(makeTensors(*cachedPrepared));
        cachedGraph = &g.data();
        cachedPath = g.path();
        cachedNodes = g.numNodes();
        cachedShared.reset();
        editedState.reset();
        adjacency.reset();
    }
    return {cachedPrepared, cachedTensors};
}

void setThreads(int n) {
    if (n > 0) torch::set_num_threads(n);
}

CostModel::CostModel() = default;
CostModel::~CostModel() = default;
CostModel::CostModel(const CostModel&) = default;
CostModel& CostModel::operator=(const CostModel&) = default;

const ModelInfo& CostModel::info() const {
    return d->info;
}
ModelInfo& CostModel::info() {
    return d->info;
}
const std::string& CostModel::label() const {
    return d->label;
}

CostModel CostModel::create(const ModelInfo& info) {
    CostModel m;
    m.d = std::make_shared<Impl>();
    m.d->info = info;
    m.d->label = "new " + std::string(collectionName(info.kind)) + " model";
    m.d->build();
    return m;
}

int64_t CostModel::parameterCount() const {
    int64_t n = 0;
    for (const auto& p : d->module().parameters()) n += p.numel();
    return n;
}

namespace {

std::string weightBytes(torch::nn::Module& module) {
    return encodeTensorArchive(namedTensorsOf(module, ""));
}

[[noreturn]] void throwOtherShape(const std::string& label, const std::string& name,
                                  const std::string& got, c10::IntArrayRef needed) {
    throwFormatError(label, "weights",
                     "parameter '" + name + "' has shape " + got +
                         ", the network its metadata describes needs " + c10::str(needed) +
                         " (a model from another version?)");
}

// A model file's tensors by name: each must be exactly what the network needs, no more.
void loadStoredTensors(torch::nn::Module& module, std::map<std::string, NamedTensor> stored,
                       const std::string& label) {
    requireNamedTensors(module, stored, "", label);
    loadNamedTensors(module, stored, "");
    if (!stored.empty())
        throwFormatError(label, "weights",
                         "tensor '" + stored.begin()->first +
                             "' belongs to no part of the network its metadata describes (a model "
                             "from another version?)");
}

void loadTensorArchive(torch::nn::Module& module, const std::string& bytes,
                       const std::string& label) {
    std::map<std::string, NamedTensor> stored;
    for (NamedTensor& t : decodeTensorArchive(bytes, label, "weights"))
        stored.emplace(t.name, std::move(t));
    loadStoredTensors(module, std::move(stored), label);
}

// Model files written before TensorArchive (format 1): LibTorch's archive, read by our reader.
void loadTorchArchive(torch::nn::Module& module, const std::string& bytes,
                      const std::string& label) {
    loadStoredTensors(module, readTorchArchive(bytes, label, "weights").tensors, label);
}

}  // namespace

std::vector<std::pair<std::string, torch::Tensor>> namedState(torch::nn::Module& module) {
    std::vector<std::pair<std::string, torch::Tensor>> state;
    for (const auto& p : module.named_parameters()) state.emplace_back(p.key(), p.value());
    for (const auto& b : module.named_buffers()) state.emplace_back(b.key(), b.value());
    return state;
}

NamedTensor namedTensorOf(std::string name, const torch::Tensor& t) {
    const torch::Tensor c = t.detach().to(torch::kFloat).contiguous();
    const float* v = c.data_ptr<float>();
    return {std::move(name), c.sizes().vec(), std::vector<float>(v, v + c.numel())};
}

std::vector<NamedTensor> namedTensorsOf(torch::nn::Module& module, const std::string& prefix) {
    std::vector<NamedTensor> tensors;
    for (const auto& [name, t] : namedState(module))
        tensors.push_back(namedTensorOf(prefix + name, t));
    return tensors;
}

void requireNamedTensors(torch::nn::Module& module,
                         const std::map<std::string, NamedTensor>& stored,
                         const std::string& prefix, const std::string& label) {
    for (const auto& [name, target] : namedState(module)) {
        const auto it = stored.find(prefix + name);
        if (it == stored.end()) throwOtherShape(label, prefix + name, "none", target.sizes());
        if (it->second.shape != target.sizes().vec())
            throwOtherShape(label, prefix + name, c10::str(c10::IntArrayRef(it->second.shape)),
                            target.sizes());
    }
}

void loadNamedTensors(torch::nn::Module& module, std::map<std::string, NamedTensor>& stored,
                      const std::string& prefix) {
    torch::NoGradGuard noGrad;
    for (auto& [name, target] : namedState(module)) {
        const auto it = stored.find(prefix + name);
        if (!it->second.values.empty())
            target.copy_(
                torch::from_blob(it->second.values.data(), it->second.shape, torch::kFloat));
        stored.erase(it);
    }
}

std::string CostModel::toBytes() const {
    return encodeModelFile(kModelMagic, {modelInfoToJson(d->info), weightBytes(d->module())});
}

void CostModel::save(const std::string& path) const {
    writeModelFile(path, kModelMagic, {modelInfoToJson(d->info), weightBytes(d->module())});
}

CostModel CostModel::fromContents(const ModelFileContents& c, const std::string& label) {
    CostModel m;
    m.d = std::make_shared<Impl>();
    m.d->info = modelInfoFromJson(c.json, label);
    m.d->label = label;
    try {
        m.d->build();
        if (isTensorArchive(c.weights))
            loadTensorArchive(m.d->module(), c.weights, label);
        else
            loadTorchArchive(m.d->module(), c.weights, label);
        requireFiniteWeights(m.d->module(), label);
    } catch (const FormatError&) {
        throw;
    } catch (const c10::Error& e) {
        throwFormatError(label, "weights",
                         "do not match the network its metadata describes (" +
                             firstLine(e.what_without_backtrace()) + ")");
    } catch (const std::exception& e) {
        throwFormatError(label, "weights", std::string("unreadable: ") + firstLine(e.what()));
    }
    m.d->module().eval();
    return m;
}

CostModel CostModel::fromBytes(const std::string& bytes, const std::string& label) {
    return fromContents(parseModelBytes(bytes, label, kModelMagic), label);
}

CostModel CostModel::load(const std::string& path) {
    return fromContents(readModelFile(path, kModelMagic), path);
}

std::string CostModel::incompatibility(const TpuGraph& g) const {
    const ModelInfo& i = d->info;
    const std::string file = g.path().empty() ? g.name() : g.path();
    if (g.collection() != i.kind)
        return d->label + ": trained for " +
               (i.collection.empty() ? collectionName(i.kind) : i.collection) + ", cannot score " +
               collectionName(g.collection()) + " files (" + file + ")";
    if (g.nodeFeatureWidth() != i.nodeFeatureWidth)
        return d->label + ": trained on " + std::to_string(i.nodeFeatureWidth) +
               " node feature columns, " + file + " has " + std::to_string(g.nodeFeatureWidth());
    if (g.configFeatureWidth() != i.configWidth)
        return d->label + ": trained on " + std::to_string(i.configWidth) +
               " config feature columns, " + file + " has " +
               std::to_string(g.configFeatureWidth());
    if (g.isLayout() && g.numConfigurable() == 0)
        return file + ": has no configurable nodes to score";
    return {};
}

void CostModel::requireCompatible(const TpuGraph& g) const {
    const std::string why = incompatibility(g);
    if (!why.empty()) throw FormatError(why);
}

std::vector<double> CostModel::scoreConfigs(const TpuGraph& g, const std::vector<int64_t>& configs,
                                            const CancelToken* cancel, const Progress& progress,
                                            const std::vector<uint64_t>* programKeys) const {
    requireCompatible(g);
    for (int64_t c : configs)
        if (c < 0 || c >= g.numConfigs())
            throwFormatError(g.path(), "", "config " + std::to_string(c) + " out of range");
    std::lock_guard<std::mutex> lock(d->mutex);
    torch::NoGradGuard noGrad;
    d->module().eval();
    auto [prepared, tensors] = d->cached(g);
    const int64_t batch = d->scoringBatchSize(*tensors);
    std::vector<double> out(configs.size());
    for (size_t begin = 0; begin < configs.size(); begin += static_cast<size_t>(batch)) {
        if (cancel && cancel->cancelled()) break;
        const int64_t n = std::min<int64_t>(batch, static_cast<int64_t>(configs.size() - begin));
        auto scores =
            d->forwardCached(*tensors, d->batchForConfigs(*prepared, configs.data() + begin, n))
                .contiguous();
        const float* s = scores.data_ptr<float>();
        requireFiniteScores(g, s, n, configs.data() + begin);
        for (int64_t i = 0; i < n; ++i) out[begin + static_cast<size_t>(i)] = s[i];
        if (progress)
            progress(static_cast<int64_t>(begin) + n, static_cast<int64_t>(configs.size()));
    }
    tieSamePrograms(g, &configs, out, cancel, programKeys);
    return out;
}

std::vector<double> CostModel::scoreAll(const TpuGraph& g, const Progress& progress, const CancelToken* cancel,
                                        const std::vector<uint64_t>* programKeys) const {
    requireCompatible(g);
    std::vector<double> out(static_cast<size_t>(g.numConfigs()));
    torch::NoGradGuard noGrad;
    std::vector<int64_t> ids;
    for (int64_t begin = 0; begin < g.numConfigs();) {
        if (cancel && cancel->cancelled()) break;
        int64_t n = 0;
        {
            // Locked a batch at a time: an edit waiting for the model goes between two batches.
            std::unique_lock<std::mutex> lock(d->mutex);
            d->module().eval();
            auto [prepared, tensors] = d->cached(g);
            n = std::min(d->scoringBatchSize(*tensors), g.numConfigs() - begin);
            ids.resize(static_cast<size_t>(n));
            std::iota(ids.begin(), ids.end(), begin);
            auto scores = d->forwardCached(*tensors, d->batchForConfigs(*prepared, ids.data(), n))
                              .contiguous();
            const float* s = scores.data_ptr<float>();
            requireFiniteScores(g, s, n, ids.data());
            for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(begin + i)] = s[i];
        }
        begin += n;
        if (progress) progress(begin, g.numConfigs());
        while (d->interactiveWaiting.load() > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(limits::kInteractiveYieldPollMs));
    }
    tieSamePrograms(g, nullptr, out, cancel, programKeys);
    return out;
}

void CostModel::tieSamePrograms(const TpuGraph& g, const std::vector<int64_t>* configs,
                                std::vector<double>& scores, const CancelToken* cancel,
                                const std::vector<uint64_t>* programKeys) const {
    if (!d->tieSamePrograms || (cancel && cancel->cancelled())) return;
    if (programKeys && programKeys->size() == scores.size()) {
        synth::shareScoresWithinPrograms(*programKeys, scores);
        return;
    }
    std::vector<int64_t> all;
    if (!configs) {
        all.resize(scores.size());
        std::iota(all.begin(), all.end(), 0);
    }
    synth::shareScoresWithinPrograms(g, configs ? *configs : all, scores,
                                     [cancel] { return cancel && cancel->cancelled(); });
}

void CostModel::setTieSamePrograms(bool on) {
    d->tieSamePrograms = on;
}

bool CostModel::tiesSamePrograms() const {
    return d->tieSamePrograms;
}

bool CostModel::indexesPrograms(const TpuGraph& g) const {
    return g.isLayout() && d->tieSamePrograms;
}

std::vector<double> CostModel::scoreRows(const TpuGraph& g, const float* rows,
                                         int64_t count) const {
    requireCompatible(g);
    const std::unique_lock<std::mutex> lock = d->lockInteractive();
    torch::NoGradGuard noGrad;
    d->module().eval();
    auto [prepared, tensors] = d->cached(g);
    auto scores = d->forwardCached(*tensors, d->batchForRows(*prepared, rows, count)).contiguous();
    requireFiniteScores(g, scores.data_ptr<float>(), count, nullptr);
    return std::vector<double>(scores.data_ptr<float>(), scores.data_ptr<float>() + count);
}

}  // namespace tpg::nn

namespace tpg::nn {

double CostModel::Impl::scoreIncrementally(const TpuGraph& g, const PreparedGraph& prepared,
                                           const GraphTensors& tensors, const float* row) {
    const LayoutSharedPass& shared = sharedFor(tensors);
    const ConfigBatch b = batchForRows(prepared, row, 1);
    const int64_t w = info.configWidth;
    const auto rowSize = static_cast<size_t>(g.numConfigurable() * w);
    std::vector<int64_t> changed;
    if (editedState && editedRow.size() == rowSize)
        for (int64_t k = 0; k < g.numConfigurable(); ++k)
            if (!std::equal(row + k * w, row + (k + 1) * w, editedRow.data() + k * w)) changed.push_back(k);
    torch::Tensor score;
    if (!editedState || editedRow.size() != rowSize || static_cast<int64_t>(changed.size()) > limits::kIncrementalNodes ||
        editsSinceFullPass >= limits::kIncrementalEditsBeforeFullPass) {
        editedState = std::make_shared<LayoutConfigState>();
        score = layout->configState(tensors, shared, b.config, b.violation, *editedState);
        editsSinceFullPass = 0;
    } else {
        if (!adjacency) adjacency = std::make_shared<LocalAdjacency>(tensors);
        score = layout->rescore(tensors, shared, *adjacency, b.config, changed, b.violation, *editedState);
        ++editsSinceFullPass;
    }
    editedRow.assign(row, row + rowSize);
    const auto value = score.item<float>();
    requireFiniteScores(g, &value, 1, nullptr);
    return value;
}

double CostModel::scoreEdited(const TpuGraph& g, const float* row) const {
    if (!d->layout) return scoreRows(g, row, 1).at(0);
    requireCompatible(g);
    const std::unique_lock<std::mutex> lock = d->lockInteractive();
    torch::NoGradGuard noGrad;
    d->module().eval();
    auto [prepared, tensors] = d->cached(g);
    return d->scoreIncrementally(g, *prepared, *tensors, row);
}

}  // namespace tpg::nn
