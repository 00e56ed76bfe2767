#include "synth/SyntheticDataset.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "graph/GraphFile.h"
#include "graph/Schema.h"
#include "io/CompactMatrix.h"
#include "io/Error.h"
#include "io/Limits.h"
#include "io/NpyFormat.h"
#include "io/ReplacingFile.h"
#include "synth/TpuCostModel.h"

namespace fs = std::filesystem;

namespace tpg::synth {

const std::vector<std::string>& synthCollections() {
    static const std::vector<std::string> c{"tile:xla", "layout:xla:random", "layout:xla:default",
                                            "layout:nlp:random", "layout:nlp:default"};
    return c;
}

RuntimeStats runtimeStats(const std::vector<double>& runtimes) {
    RuntimeStats s;
    std::vector<double> r(runtimes);
    std::sort(r.begin(), r.end());
    if (r.empty()) return s;
    s.spread = r.front() > 0 ? r.back() / r.front() : std::nan("");
    {
        std::vector<double> u(r);
        s.distinct = static_cast<int64_t>(std::unique(u.begin(), u.end()) - u.begin());
    }
    const auto n = static_cast<int64_t>(r.size());
    const double pairs = 0.5 * static_cast<double>(n) * static_cast<double>(n - 1);
    if (pairs <= 0) return s;
    double near = 0, exact = 0;
    for (int64_t i = 0, j = 0, k = 0; i < n; ++i) {
        // j: first index past the near-tie window of r[i]; k: past its exact ties.
        if (j < i + 1) j = i + 1;
        while (j < n && r[static_cast<size_t>(j)] <= r[static_cast<size_t>(i)] * (1 + kNearTie))
            ++j;
        if (k < i + 1) k = i + 1;
        while (k < n && r[static_cast<size_t>(k)] == r[static_cast<size_t>(i)]) ++k;
        near += static_cast<double>(j - i - 1);
        exact += static_cast<double>(k - i - 1);
    }
    s.tieRate = near / pairs;
    s.exactTies = exact / pairs;
    return s;
}

namespace {

using Progress = std::function<void(int64_t, int64_t, const std::string&)>;

int threadCount(int requested) {
    if (requested > 0) return requested;
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// The graph's structure as a valid TpuGraph with no configurations, for the cost model.
TpuGraph structureOf(TpuGraphData d) {
    d.runtimes.clear();
    d.runtimeNormalizers.clear();
    d.tileConfigFeatures.clear();
    if (d.collection == Collection::Layout) {
        d.configFeatureWidth = schema::kLayoutConfigWidth;
        const auto nc = static_cast<int64_t>(d.configurableNodes.size());
        d.layoutConfigs = LayoutConfigTable::fromMatrix(
            CompactMatrix(nc * schema::kLayoutConfigWidth), nc, schema::kLayoutConfigWidth);
    } else {
        d.configFeatureWidth = schema::kTileConfigWidth;
        d.layoutConfigs.reset();
    }
    return TpuGraph(std::move(d));
}

// Evaluates `count` configurations (rows of `rowSize` values) on `threads` threads; `progress`
// runs on the calling thread. Results are by index, so the thread count does not change them.
template <typename Evaluate>
std::vector<double> evaluateAll(int64_t count, int threads, const Evaluate& evaluate,
                                const std::function<void(int64_t)>& progress) {
    std::vector<double> out(static_cast<size_t>(count));
    std::atomic<int64_t> next{0}, done{0};
    constexpr int64_t kChunk = 8;
    auto work = [&](bool reporting) {
        for (;;) {
            const int64_t begin = next.fetch_add(kChunk);
            if (begin >= count) break;
            const int64_t end = std::min(count, begin + kChunk);
            for (int64_t c = begin; c < end; ++c) out[static_cast<size_t>(c)] = evaluate(c);
            done += end - begin;
            if (reporting && progress) progress(done.load());
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads && t < count / kChunk + 1; ++t) pool.emplace_back(work, false);
    work(true);
    for (auto& t : pool) t.join();
    if (progress) progress(count);
    return out;
}

std::vector<double> rounded(const std::vector<double>& v) {
    std::vector<double> r(v.size());
    for (size_t i = 0; i < v.size(); ++i) r[i] = static_cast<double>(std::llround(v[i]));
    return r;
}

// The synthetic TPU's machine, measured with this noise.
TpuParameters measuredWith(double noiseSigma) {
    TpuParameters p;
    p.noiseSigma = noiseSigma;
    return p;
}

// Layout configurations for a structure graph: sampled, evaluated, attached.
TpuGraphData attachLayoutConfigs(const TpuGraph& structure, int configs, LayoutSearch search,
                                 Rng& rng, int threads, const std::function<void(int64_t)>& progress,
                                 double noiseSigma = TpuParameters{}.noiseSigma) {
    const TpuCostModel model(structure, measuredWith(noiseSigma));
    const ConfigSampler sampler(model, structure.configurableNodes());
    const auto nc = static_cast<int64_t>(structure.numConfigurable());
    const int64_t rowSize = nc * schema::kLayoutConfigWidth;
    // Checked before anything is allocated: the table asked for could exceed memory
    // (std::bad_alloc).
    if (rowSize * configs > limits::kMaxSyntheticTableValues) {
        // One decimal: a whole number read "8 billion values, above the 8 billion" for 8.2.
        char billions[32];
        std::snprintf(billions, sizeof billions, "%.1f",
                      static_cast<double>(rowSize * configs) / 1e9);
        throw FormatError(
            "synth: " + std::to_string(configs) + " configurations of " + structure.name() + "'s " +
            std::to_string(nc) + " configurable nodes are " + billions +
            " billion values, above the " +
            std::to_string(limits::kMaxSyntheticTableValues / 1'000'000'000) +
            " billion a table may hold: ask for fewer --configs or a smaller --max-nodes");
    }
    // Values are -1..5: keep them as bytes while evaluating (a 50k-node program's table is large).
    std::vector<int8_t> rows(static_cast<size_t>(rowSize * configs));
    for (int64_t c = 0; c < configs; ++c) {
        const std::vector<float> row = sampler.layout(search, rng);
        for (int64_t i = 0; i < rowSize; ++i)
            rows[static_cast<size_t>(c * rowSize + i)] =
                static_cast<int8_t>(row[static_cast<size_t>(i)]);
    }
    auto evaluate = [&](int64_t c) {
        std::vector<float> row(static_cast<size_t>(rowSize));
        for (int64_t i = 0; i < rowSize; ++i)
            row[static_cast<size_t>(i)] = rows[static_cast<size_t>(c * rowSize + i)];
        return model.layoutRuntime(row.data());
    };
    TpuGraphData d = structure.data();
    d.runtimes = rounded(evaluateAll(configs, threads, evaluate, progress));
    CompactMatrix m(rowSize);
    m.reserveRows(configs);
    constexpr int64_t kBatch = 64;
    std::vector<float> batch;
    for (int64_t c = 0; c < configs; c += kBatch) {
        const int64_t k = std::min<int64_t>(kBatch, configs - c);
        batch.assign(rows.begin() + c * rowSize, rows.begin() + (c + k) * rowSize);
        m.appendRows(batch.data(), k);
    }
    d.configFeatureWidth = schema::kLayoutConfigWidth;
    d.layoutConfigs = LayoutConfigTable::fromMatrix(std::move(m), nc, schema::kLayoutConfigWidth);
    return d;
}

TpuGraphData attachTileConfigs(const TpuGraph& structure, int configs, Rng& rng,
                               double noiseSigma = TpuParameters{}.noiseSigma) {
    const TpuCostModel model(structure, measuredWith(noiseSigma));
    const ConfigSampler sampler(model, {});
    TpuGraphData d = structure.data();
    d.configFeatureWidth = schema::kTileConfigWidth;
    const double normaliser = std::llround(model.tileRuntime(model.defaultTileConfig().data()));
    for (int c = 0; c < configs; ++c) {
        const std::vector<float> row = sampler.tile(rng);
        d.tileConfigFeatures.insert(d.tileConfigFeatures.end(), row.begin(), row.end());
        d.runtimes.push_back(static_cast<double>(std::llround(model.tileRuntime(row.data()))));
        d.runtimeNormalizers.push_back(normaliser);
    }
    return d;
}

Recipe programRecipe(bool nlp, Rng& rng) {
    if (nlp) return Recipe::Transformer;
    const double u = rng.uniform();
    return u < 0.55 ? Recipe::ResNet : u < 0.75 ? Recipe::Mlp : Recipe::Transformer;
}

Recipe kernelRecipe(Rng& rng) {
    const double u = rng.uniform();
    return u < 0.45 ? Recipe::ConvKernel : u < 0.8 ? Recipe::DotKernel : Recipe::SoftmaxKernel;
}

// Split by graph index: ~80/10/10, at least one valid graph from 2 graphs and one test from 3.
const char* splitOf(int index, int total) {
    const int valid = total >= 2 ? std::max(1, total / 10) : 0;
    const int test = total >= 3 ? std::max(1, total / 10) : 0;
    const int train = total - valid - test;
    return index < train ? "train" : index < train + valid ? "valid" : "test";
}

void writeNpy(const fs::path& path, const std::vector<double>& values) {
    std::vector<int64_t> v(values.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::llround(values[i]);
    const std::vector<uint8_t> header = makeNpyHeader(DType::I64, {static_cast<int64_t>(v.size())});
    std::string bytes(header.begin(), header.end());
    bytes.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int64_t));
    writeFileWhole(path.string(), bytes);
}

void makeDirectories(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throwFormatError(dir.string(), "", "cannot create directory: " + ec.message());
}

void validate(const SynthOptions& o) {
    auto bad = [](const std::string& what) { throw std::invalid_argument(what); };
    if (o.outDir.empty()) bad("--out: an output directory is required");
    if (o.configs < 1 || o.configs > limits::kMaxSyntheticConfigs)
        bad("--configs: expected 1 to " + std::to_string(limits::kMaxSyntheticConfigs) + ", got " +
            std::to_string(o.configs));
    if (o.tileGraphs < 0 || o.layoutGraphs < 0)
        bad("--tile-graphs / --layout-graphs: expected a count >= 0");
    if (o.minNodes < 1 || o.maxNodes > limits::kMaxSyntheticNodes)
        bad("--min-nodes / --max-nodes: expected sizes in [1, " +
            std::to_string(limits::kMaxSyntheticNodes) + "]");
    if (o.minNodes > o.maxNodes)
        bad("--min-nodes " + std::to_string(o.minNodes) + " is above --max-nodes " +
            std::to_string(o.maxNodes));
    if (!(o.noiseSigma >= 0 && o.noiseSigma <= limits::kMaxNoiseSigma))
        bad("--noise: expected a log-normal sigma in [0, " + std::to_string(limits::kMaxNoiseSigma) + "], got " +
            std::to_string(o.noiseSigma));
    for (const auto& c : o.collections)
        if (std::find(synthCollections().begin(), synthCollections().end(), c) ==
            synthCollections().end())
            bad("unknown collection '" + c +
                "' (expected tile:xla, layout:xla:random, layout:xla:default, "
                "layout:nlp:random or layout:nlp:default)");
}

}  // namespace

TpuGraph makeLayoutGraph(Recipe recipe, uint64_t seed, int64_t targetNodes, int configs,
                         LayoutSearch search, const std::string& name, int threads) {
    Rng structureRng(deriveSeed(seed, {0}));
    const TpuGraph structure = structureOf(buildProgram(recipe, structureRng, targetNodes, name));
    Rng configRng(deriveSeed(seed, {1, static_cast<uint64_t>(search)}));
    return TpuGraph(
        attachLayoutConfigs(structure, configs, search, configRng, threadCount(threads), {}));
}

TpuGraph makeTileGraph(Recipe recipe, uint64_t seed, int configs, const std::string& name) {
    Rng structureRng(deriveSeed(seed, {0}));
    const TpuGraph structure = structureOf(buildKernel(recipe, structureRng, name));
    Rng configRng(deriveSeed(seed, {1}));
    return TpuGraph(attachTileConfigs(structure, configs, configRng));
}

namespace {

// One file to generate. Layout programs are shared by a source's two searches, as in the real
// data (the same programs timed by both searches).
struct WorkItem {
    std::string collection;
    int source = 0;  // 0 tile, 1 xla, 2 nlp
    int search = 0;  // 0 random, 1 default
    int index = 0, total = 0;
};

std::vector<WorkItem> workList(const SynthOptions& o) {
    const std::vector<std::string> wanted =
        o.collections.empty() ? synthCollections() : o.collections;
    auto want = [&](const std::string& c) {
        return std::find(wanted.begin(), wanted.end(), c) != wanted.end();
    };
    std::vector<WorkItem> items;
    if (want("tile:xla"))
        for (int i = 0; i < o.tileGraphs; ++i) items.push_back({"tile:xla", 0, 0, i, o.tileGraphs});
    for (int source = 1; source <= 2; ++source)
        for (int search = 0; search < 2; ++search) {
            const std::string c = std::string("layout:") + (source == 1 ? "xla" : "nlp") +
                                  (search == 0 ? ":random" : ":default");
            if (want(c))
                for (int i = 0; i < o.layoutGraphs; ++i)
                    items.push_back({c, source, search, i, o.layoutGraphs});
        }
    return items;
}

// Builds the item's graph and times its configurations; `f` gets its name and recipe.
TpuGraphData generateGraph(const WorkItem& it, const SynthOptions& o, int threads, SynthFile& f,
                           int64_t finished, int64_t total, const Progress& progress) {
    Rng structureRng(
        deriveSeed(o.seed, {static_cast<uint64_t>(it.source), static_cast<uint64_t>(it.index)}));
    Rng configRng(
        deriveSeed(o.seed, {static_cast<uint64_t>(10 + it.search), static_cast<uint64_t>(it.source),
                            static_cast<uint64_t>(it.index)}));
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "_%03d", it.index);
    if (it.source == 0) {
        const Recipe r = kernelRecipe(structureRng);
        f.recipe = recipeName(r);
        f.name = f.recipe + suffix;
        if (progress) progress(finished, total, f.collection + " " + f.name);
        return attachTileConfigs(structureOf(buildKernel(r, structureRng, f.name)), o.configs,
                                 configRng, o.noiseSigma);
    }
    const Recipe r = programRecipe(it.source == 2, structureRng);
    const auto target = static_cast<int64_t>(std::llround(
        structureRng.logUniform(static_cast<double>(o.minNodes), static_cast<double>(o.maxNodes))));
    f.recipe = recipeName(r);
    f.name = f.recipe + suffix;
    const TpuGraph structure = structureOf(buildProgram(r, structureRng, target, f.name));
    const std::string detail =
        f.collection + " " + f.name + " (" + std::to_string(structure.numNodes()) + " nodes)";
    if (progress) progress(finished, total, detail);
    return attachLayoutConfigs(
        structure, o.configs, it.search == 0 ? LayoutSearch::Random : LayoutSearch::Default,
        configRng, threads,
        [&](int64_t done) {
            if (progress) progress(finished + done, total, detail);
        },
        o.noiseSigma);
}

// npz/tile/xla/SPLIT or npz/layout/SRC/SEARCH/SPLIT, as the real tree; a test file's runtimes go
// to ground_truth/ and, unless asked for, are zeros in the file, as in the real test split.
void writeGraph(TpuGraphData data, const WorkItem& it, const SynthOptions& o, SynthFile& f) {
    std::string rel = it.collection;
    std::replace(rel.begin(), rel.end(), ':', '/');
    const fs::path dir = fs::path(o.outDir) / "npz" / rel / f.split;
    makeDirectories(dir);
    if (f.split == std::string("test")) {
        const fs::path truthDir = fs::path(o.outDir) / "ground_truth" / rel / f.split;
        makeDirectories(truthDir);
        writeNpy(truthDir / (f.name + ".config_runtime.npy"), data.runtimes);
        if (it.source == 0)
            writeNpy(truthDir / (f.name + ".config_runtime_normalizers.npy"),
                     data.runtimeNormalizers);
        if (!o.testRuntimes) {
            std::fill(data.runtimes.begin(), data.runtimes.end(), 0.0);
            std::fill(data.runtimeNormalizers.begin(), data.runtimeNormalizers.end(), 0.0);
        }
    }
    f.path = (dir / (f.name + ".npz")).string();
    saveTpuGraph(TpuGraph(std::move(data)), f.path, o.compressed);
}

}  // namespace

std::vector<SynthFile> generateDataset(const SynthOptions& o, const Progress& progress) {
    validate(o);
    const int threads = threadCount(o.threads);
    const std::vector<WorkItem> items = workList(o);
    const int64_t total = static_cast<int64_t>(items.size()) * o.configs;
    int64_t finished = 0;
    std::vector<SynthFile> files;
    for (const WorkItem& it : items) {
        SynthFile f;
        f.collection = it.collection;
        f.split = splitOf(it.index, it.total);
        TpuGraphData data = generateGraph(it, o, threads, f, finished, total, progress);
        finished += o.configs;
        f.nodes = data.numNodes;
        f.edges = static_cast<int64_t>(data.edges.size());
        f.configurable = static_cast<int64_t>(data.configurableNodes.size());
        f.configs = o.configs;
        std::vector<double> truth = data.runtimes;
        if (it.source == 0)
            for (size_t i = 0; i < truth.size(); ++i) truth[i] /= data.runtimeNormalizers[i];
        f.stats = runtimeStats(truth);
        writeGraph(std::move(data), it, o, f);
        files.push_back(std::move(f));
    }
    if (progress) progress(total, total, "done");
    return files;
}

}  // namespace tpg::synth
