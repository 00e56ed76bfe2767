#include "graph/GraphFile.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "graph/DatasetIndex.h"
#include "graph/Schema.h"
#include "io/Error.h"
#include "io/Limits.h"
#include "io/NpzArchive.h"
#include "io/NpzWriter.h"

namespace tpg {

namespace {

class Reader {
public:
    explicit Reader(const std::string& path) : m_archive(path), m_path(path) {}

    NpzArchive& archive() { return m_archive; }

    NpyHeader header(const char* key) { return m_archive.header(key); }

    [[noreturn]] void fail(const char* key, const std::string& what) { throwFormatError(m_path, key, what); }

    void expectRank(const char* key, const NpyHeader& h, size_t rank, const char* expected) {
        if (h.shape.size() != rank) fail(key, std::string("expected shape ") + expected + ", got " + h.shapeString());
    }

    NpyArray readInteger(const char* key, const NpyHeader& h) {
        if (!dtypeIsInteger(h.dtype))
            fail(key, std::string("expected an integer dtype, got ") + dtypeName(h.dtype));
        return m_archive.read(key);
    }

    std::vector<double> readRuntimes(const char* key, size_t rank1Length) {
        NpyHeader h = header(key);
        expectRank(key, h, 1, "(c,)");
        if (static_cast<size_t>(h.shape[0]) != rank1Length)
            fail(key, "expected shape (" + std::to_string(rank1Length) + ",) to match config_runtime, got " + h.shapeString());
        return m_archive.read(key).toDouble();
    }

private:
    NpzArchive m_archive;
    std::string m_path;
};

std::string stemOf(const std::string& path) { return std::filesystem::path(path).stem().string(); }

std::vector<int32_t> toInt32(const std::vector<int64_t>& v, Reader& r, const char* key, int64_t limit) {
    std::vector<int32_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
        if (v[i] < 0 || v[i] >= limit)
            r.fail(key, "value " + std::to_string(v[i]) + " at position " + std::to_string(i) +
                            " outside [0, " + std::to_string(limit) + ")");
        out[i] = static_cast<int32_t>(v[i]);
    }
    return out;
}

constexpr const char* kCollectionNameKey = "collection_name";

// The explorer's own key: the search a What-if export's configurations came from (uint8 text),
// so the file opened alone is scored by that collection's model. Any other text is ignored, with
// a warning.
std::string readCollectionName(NpzArchive& a, Collection kind, std::vector<std::string>& warnings) {
    if (!a.has(kCollectionNameKey)) return {};
    const NpyHeader h = a.header(kCollectionNameKey);
    std::string name;
    if (h.shape.size() == 1 && h.shape[0] <= limits::kMaxCollectionNameBytes &&
        dtypeIsInteger(h.dtype))
        for (const int64_t b : a.read(kCollectionNameKey).toInt64())
            name += static_cast<char>(b & 0xff);
    std::string expected;
    for (const std::string& c : knownCollections()) {
        if (c.rfind(collectionName(kind), 0) != 0) continue;
        if (c == name) return name;
        expected += (expected.empty() ? "" : ", ") + c;
    }
    warnings.push_back(std::string(kCollectionNameKey) + ": expected one of " + expected +
                       " (uint8 text); ignored");
    return {};
}

void readNodes(Reader& r, TpuGraphData& d) {
    NpyHeader hf = r.header("node_feat");
    r.expectRank("node_feat", hf, 2, "(n, 140)");
    d.numNodes = hf.shape[0];
    d.nodeFeatureWidth = hf.shape[1];
    if (d.numNodes == 0) r.fail("node_feat", "expected at least one node, got shape " + hf.shapeString());
    if (d.numNodes > limits::kMaxNodes) r.fail("node_feat", "too many nodes: " + hf.shapeString());
    if (d.nodeFeatureWidth != schema::kNodeFeatureWidth)
        d.warnings.push_back("node_feat has " + std::to_string(d.nodeFeatureWidth) + " columns, not " +
                             std::to_string(schema::kNodeFeatureWidth) +
                             ": a trimmed copy? Feature names are unknown.");
    d.nodeFeatures = r.archive().read("node_feat").toFloat();
    for (size_t i = 0; i < d.nodeFeatures.size(); ++i)
        if (!std::isfinite(d.nodeFeatures[i]))
            r.fail("node_feat", "value at node " + std::to_string(i / static_cast<size_t>(std::max<int64_t>(1, d.nodeFeatureWidth))) +
                                    " is not finite (expected finite features)");
}

void readOpcodes(Reader& r, TpuGraphData& d) {
    NpyHeader ho = r.header("node_opcode");
    if (ho.shape.size() != 1 || ho.shape[0] != d.numNodes)
        r.fail("node_opcode", "expected shape (" + std::to_string(d.numNodes) + ",) to match node_feat, got " + ho.shapeString());
    auto ops = r.readInteger("node_opcode", ho).toInt64();
    d.opcodes.resize(ops.size());
    int unknown = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
        if (ops[i] < 0 || ops[i] > 65535)
            r.fail("node_opcode", "node " + std::to_string(i) + " has opcode " +
                                      std::to_string(ops[i]) + " (expected an id in [0, 65535])");
        d.opcodes[i] = static_cast<int32_t>(ops[i]);
        if (!schema::opcodeKnown(d.opcodes[i])) ++unknown;
    }
    if (unknown)
        d.warnings.push_back(std::to_string(unknown) +
                             (unknown == 1 ? " node has an opcode id" : " nodes have opcode ids") +
                             " the schema does not list");
}

void readEdges(Reader& r, TpuGraphData& d) {
    NpyHeader he = r.header("edge_index");
    const bool emptyEdges = he.shape.size() == 1 && he.shape[0] == 0;
    if (!emptyEdges && (he.shape.size() != 2 || he.shape[1] != 2))
        r.fail("edge_index", "expected shape (m, 2), got " + he.shapeString());
    auto flat = r.readInteger("edge_index", he).toInt64();
    auto ids = toInt32(flat, r, "edge_index", d.numNodes);
    d.edges.resize(ids.size() / 2);
    for (size_t i = 0; i < d.edges.size(); ++i) d.edges[i] = {ids[2 * i], ids[2 * i + 1]};
}

void readTileConfigs(Reader& r, TpuGraphData& d, size_t c) {
    NpzArchive& a = r.archive();
    NpyHeader hc = r.header("config_feat");
    r.expectRank("config_feat", hc, 2, "(c, 24)");
    if (static_cast<size_t>(hc.shape[0]) != c)
        r.fail("config_feat", "expected " + std::to_string(c) +
                                  " rows (one per config_runtime), got " + hc.shapeString());
    d.configFeatureWidth = hc.shape[1];
    if (d.configFeatureWidth != schema::kTileConfigWidth)
        d.warnings.push_back("config_feat has " + std::to_string(d.configFeatureWidth) +
                             " columns, not " + std::to_string(schema::kTileConfigWidth) +
                             ": a trimmed copy? Feature names are unknown.");
    d.tileConfigFeatures = a.read("config_feat").toFloat();
    if (!a.has("config_runtime_normalizers"))
        r.fail("config_runtime_normalizers",
               "missing (expected one normaliser per configuration in a tile file)");
    d.runtimeNormalizers = r.readRuntimes("config_runtime_normalizers", c);
}

void readLayoutConfigs(Reader& r, TpuGraphData& d, size_t c, const LoadOptions& options) {
    NpzArchive& a = r.archive();
    NpyHeader hi = r.header("node_config_ids");
    r.expectRank("node_config_ids", hi, 1, "(nc,)");
    d.configurableNodes =
        toInt32(r.readInteger("node_config_ids", hi).toInt64(), r, "node_config_ids", d.numNodes);
    NpyHeader hn = r.header("node_config_feat");
    r.expectRank("node_config_feat", hn, 3, "(c, nc, 18)");
    if (static_cast<size_t>(hn.shape[0]) != c ||
        hn.shape[1] != static_cast<int64_t>(d.configurableNodes.size()))
        r.fail("node_config_feat",
               "expected shape (" + std::to_string(c) + ", " +
                   std::to_string(d.configurableNodes.size()) +
                   ", 18) (configs from config_runtime, nodes from node_config_ids), got " +
                   hn.shapeString());
    d.configFeatureWidth = hn.shape[2];
    if (d.configFeatureWidth != schema::kLayoutConfigWidth)
        d.warnings.push_back("node_config_feat has " + std::to_string(d.configFeatureWidth) +
                             " columns, not " + std::to_string(schema::kLayoutConfigWidth) +
                             ": a trimmed copy? Feature names are unknown.");
    const NpzEntry& e = a.require("node_config_feat");
    d.layoutConfigs =
        LayoutConfigTable::open(d.path, "node_config_feat", hn, e.stored, options.backgroundConfigs,
                                options.decodeStoredConfigs, options.deferDecoding);
}

}  // namespace

std::string recordedCollection(const std::string& path) {
    NpzArchive a(path);
    const Collection kind = a.has("node_config_feat") ? Collection::Layout : Collection::Tile;
    std::vector<std::string> ignored;
    return readCollectionName(a, kind, ignored);
}

Collection detectCollection(const std::string& path) {
    NpzArchive a(path);
    if (a.has("node_config_feat")) return Collection::Layout;
    if (a.has("config_feat")) return Collection::Tile;
    throwFormatError(
        path, "",
        "neither 'node_config_feat' (layout) nor 'config_feat' (tile) found: not a TpuGraphs file");
}

TpuGraph loadTpuGraph(const std::string& path, const LoadOptions& options) {
    Reader r(path);
    NpzArchive& a = r.archive();
    TpuGraphData d;
    d.path = path;
    d.name = stemOf(path);
    if (a.has("node_config_feat"))
        d.collection = Collection::Layout;
    else if (a.has("config_feat"))
        d.collection = Collection::Tile;
    else
        throwFormatError(path, "",
                         "neither 'node_config_feat' (layout) nor 'config_feat' (tile) found: not "
                         "a TpuGraphs file");
    readNodes(r, d);
    readOpcodes(r, d);
    readEdges(r, d);
    if (a.has("node_splits")) {
        NpyHeader hs = r.header("node_splits");
        const bool ok = hs.shape.size() == 1 || (hs.shape.size() == 2 && hs.shape[0] == 1);
        if (!ok) r.fail("node_splits", "expected shape (k,) or (1, k), got " + hs.shapeString());
        d.nodeSplits = r.readInteger("node_splits", hs).toInt64();
    }

    d.searchCollection = readCollectionName(a, d.collection, d.warnings);

    NpyHeader hr = r.header("config_runtime");
    r.expectRank("config_runtime", hr, 1, "(c,)");
    const auto c = static_cast<size_t>(hr.shape[0]);
    d.runtimes = a.read("config_runtime").toDouble();
    if (d.collection == Collection::Tile)
        readTileConfigs(r, d, c);
    else
        readLayoutConfigs(r, d, c, options);
    return TpuGraph(std::move(d));
}

void saveTpuGraph(const TpuGraph& g, const std::string& path, bool compressed) {
    const TpuGraphData& d = g.data();
    NpzWriter w(compressed);
    w.addFloat32("node_feat", {d.numNodes, d.nodeFeatureWidth}, d.nodeFeatures);
    std::vector<uint8_t> ops(d.opcodes.begin(), d.opcodes.end());
    const bool fitsU8 = std::all_of(d.opcodes.begin(), d.opcodes.end(), [](int32_t o) { return o < 256; });
    if (fitsU8) {
        w.add("node_opcode", DType::U8, {d.numNodes}, ops.data());
    } else {
        std::vector<int64_t> wide(d.opcodes.begin(), d.opcodes.end());
        w.addInt64("node_opcode", {d.numNodes}, wide);
    }
    std::vector<int64_t> edges;
    edges.reserve(d.edges.size() * 2);
    for (const auto& e : d.edges) edges.insert(edges.end(), {e[0], e[1]});
    w.addInt64("edge_index", {static_cast<int64_t>(d.edges.size()), 2}, edges);
    const auto c = static_cast<int64_t>(d.runtimes.size());
    auto asInt = [](const std::vector<double>& v) {
        std::vector<int64_t> out(v.size());
        for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<int64_t>(std::llround(v[i]));
        return out;
    };
    w.addInt64("config_runtime", {c}, asInt(d.runtimes));
    if (!d.nodeSplits.empty())
        w.addInt64("node_splits", {1, static_cast<int64_t>(d.nodeSplits.size())}, d.nodeSplits);
    if (!d.searchCollection.empty())
        w.add(kCollectionNameKey, DType::U8, {static_cast<int64_t>(d.searchCollection.size())},
              d.searchCollection.data());
    if (d.collection == Collection::Tile) {
        w.addFloat32("config_feat", {c, d.configFeatureWidth}, d.tileConfigFeatures);
        w.addInt64("config_runtime_normalizers", {c}, asInt(d.runtimeNormalizers));
    } else {
        std::vector<int64_t> ids(d.configurableNodes.begin(), d.configurableNodes.end());
        w.addInt64("node_config_ids", {static_cast<int64_t>(ids.size())}, ids);
        const auto& t = *d.layoutConfigs;
        std::vector<float> all(static_cast<size_t>(t.numConfigs() * t.rowSize()));
        t.read(0, t.numConfigs(), all.data());
        w.addFloat32("node_config_feat", {t.numConfigs(), t.numNodes(), t.width()}, all);
    }
    w.save(path);
}

}  // namespace tpg
