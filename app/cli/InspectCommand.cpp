#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "Commands.h"
#include "NumberText.h"
#include "ProgressBar.h"
#include "graph/DatasetIndex.h"
#include "graph/GraphFile.h"
#include "graph/GroundTruth.h"
#include "graph/Schema.h"
#include "io/Error.h"
#include "io/NpzArchive.h"

namespace tpg::cli {

namespace {

constexpr int kTopOpcodes = 10;  // the histogram a reader can take in at a glance

struct InspectOptions {
    std::vector<std::string> files;
    bool distinct = false;
};

void printRuntimes(const TpuGraph& g) {
    if (g.numConfigs() == 0) {
        std::printf("%-14s none\n", "runtime");
        return;
    }
    if (!g.runtimesKnown()) {
        std::printf("%-14s unknown (all zero, as in test splits)\n", "runtime");
        return;
    }
    std::vector<double> r(static_cast<size_t>(g.numConfigs()));
    for (int64_t i = 0; i < g.numConfigs(); ++i) r[static_cast<size_t>(i)] = g.normalizedRuntime(i);
    std::sort(r.begin(), r.end());
    const double median = r[r.size() / 2];
    const char* unit = g.isLayout() ? " ns" : " (x default)";
    if (g.isLayout())
        std::printf("%-14s min %s  median %s  max %s ns  (max/min %.2fx)\n", "runtime",
                    withCommas(static_cast<int64_t>(r.front())).c_str(), withCommas(static_cast<int64_t>(median)).c_str(),
                    withCommas(static_cast<int64_t>(r.back())).c_str(), r.front() > 0 ? r.back() / r.front() : 0.0);
    else
        std::printf("%-14s min %.4f  median %.4f  max %.4f%s  (max/min %.2fx)\n", "runtime", r.front(), median, r.back(),
                    unit, r.front() > 0 ? r.back() / r.front() : 0.0);
    if (!g.runtimeSource().empty())
        std::printf("%-14s the test split's ground truth, %s\n", "runtimes from",
                    g.runtimeSource().c_str());
}

void inspectFile(const std::string& file, bool distinctRows) {
    LoadOptions lo;
    lo.deferDecoding = true;
    TpuGraph g = loadWithGroundTruth(file, lo);
    NpzArchive archive(file);
    std::printf("%-14s %s\n", "file", file.c_str());
    if (g.searchCollection().empty())
        std::printf("%-14s %s\n", "collection", collectionName(g.collection()));
    else  // a What-if export: the search its configurations came from, whose model scores it
        std::printf("%-14s %s (recorded: %s)\n", "collection", collectionName(g.collection()),
                    g.searchCollection().c_str());
    std::printf("%-14s %s\n", "nodes", withCommas(g.numNodes()).c_str());
    std::printf("%-14s %s\n", "edges", withCommas(g.numEdges()).c_str());
    std::printf("%-14s %zu\n", "computations", g.nodeSplits().empty() ? size_t{1} : g.nodeSplits().size());
    std::printf("%-14s %lld columns\n", "node features", static_cast<long long>(g.nodeFeatureWidth()));
    if (g.isLayout()) {
        std::map<std::string, int> kinds;
        for (int32_t n : g.configurableNodes()) kinds[g.opcodeName(n)]++;
        std::string list;
        for (const auto& [name, count] : kinds)
            list += (list.empty() ? "" : ", ") + name + " " + withCommas(count);
        std::printf("%-14s %s%s%s%s\n", "configurable", withCommas(g.numConfigurable()).c_str(), list.empty() ? "" : " (",
                    list.c_str(), list.empty() ? "" : ")");
    }
    const char* configKey = g.isLayout() ? "node_config_feat" : "config_feat";
    const NpzEntry& ce = archive.require(configKey);
    std::printf("%-14s %s (%s%s, %s bytes in file)\n", "configs", withCommas(g.numConfigs()).c_str(),
                ce.stored ? "stored" : "deflated", archive.header(configKey).fortranOrder ? ", Fortran order" : "",
                withCommas(static_cast<int64_t>(ce.compressedSize)).c_str());
    std::printf("%-14s %lld columns per %s\n", "config feats", static_cast<long long>(g.configFeatureWidth()),
                g.isLayout() ? "configurable node" : "configuration");

    std::map<int, int64_t> hist;
    for (int64_t n = 0; n < g.numNodes(); ++n) hist[g.opcode(n)]++;
    std::vector<std::pair<int64_t, int>> top;
    top.reserve(hist.size());
    for (const auto& [op, count] : hist) top.emplace_back(count, op);
    std::sort(top.begin(), top.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    std::printf("%-14s", "top opcodes");
    for (size_t i = 0; i < top.size() && i < static_cast<size_t>(kTopOpcodes); ++i)
        std::printf("%s%s %s (%.1f%%)", i ? ", " : " ", schema::opcodeName(top[i].second).c_str(),
                    withCommas(top[i].first).c_str(),
                    100.0 * static_cast<double>(top[i].first) / static_cast<double>(g.numNodes()));
    std::printf("\n");
    printRuntimes(g);

    if (distinctRows) {
        int64_t distinct = 0;
        if (g.isLayout()) {
            const auto& t = *g.layoutConfigs();
            if (t.mode() == LayoutConfigTable::Mode::Decoded) {
                t.start();
                ProgressBar bar("decoding", t.numConfigs());
                while (!t.complete() && t.error().empty()) {
                    bar.update(t.progress() * static_cast<double>(t.numConfigs()));
                    std::this_thread::sleep_for(std::chrono::milliseconds(50));
                }
                t.wait();
                bar.finish(std::string(CompactMatrix::encodingName(t.encoding())) + ", " +
                           withCommas(static_cast<int64_t>(t.residentBytes() >> 20)) + " MiB");
            }
            distinct = t.countDistinct();
        } else {
            std::map<std::vector<float>, int> seen;
            for (int64_t c = 0; c < g.numConfigs(); ++c)
                seen[std::vector<float>(g.tileConfig(c), g.tileConfig(c) + g.configFeatureWidth())]++;
            distinct = static_cast<int64_t>(seen.size());
        }
        std::printf("%-14s %s of %s\n", "distinct", withCommas(distinct).c_str(), withCommas(g.numConfigs()).c_str());
    }
    for (const auto& w : g.warnings()) std::printf("%-14s %s\n", "warning", w.c_str());
}

// One collection's split in a folder's summary.
struct SplitSummary {
    int64_t graphs = 0;
    int64_t minNodes = 0;
    int64_t maxNodes = 0;
    int64_t configs = 0;
    int64_t groundTruths = 0;  // test files with their runtimes shipped beside them
    int64_t unreadable = 0;
};

void reportUnreadable(const std::string& what) {
    std::fflush(stdout);  // in the order they happen where both go to one terminal
    std::fprintf(stderr, "tpugraphs: %s\n", what.c_str());
}

void addFile(SplitSummary& s, const DatasetFile& f) {
    GraphCounts c;
    try {
        c = readGraphCounts(f.path);
    } catch (const FormatError& e) {
        reportUnreadable(e.what());
        ++s.unreadable;
        return;
    }
    s.minNodes = s.graphs == 0 ? c.nodes : std::min(s.minNodes, c.nodes);
    s.maxNodes = std::max(s.maxNodes, c.nodes);
    s.configs += c.configs;
    ++s.graphs;
    std::error_code ec;
    const std::string truth = groundTruthPath(f.path);
    if (f.split == "test" && !truth.empty() && std::filesystem::is_regular_file(truth, ec))
        ++s.groundTruths;
}

// (collection, split) in the dataset's order: collections by name, splits train, valid, test.
using SplitKey = std::pair<std::string, std::string>;
struct DatasetOrder {
    bool operator()(const SplitKey& a, const SplitKey& b) const {
        if (a.first != b.first) return a.first < b.first;
        const int x = splitOrder(a.second), y = splitOrder(b.second);
        return x != y ? x < y : a.second < b.second;
    }
};
using FolderSummary = std::map<SplitKey, SplitSummary, DatasetOrder>;

void printSplit(const SplitKey& key, const SplitSummary& s) {
    const std::string nodes =
        s.graphs == 0 ? "-"
                      : withCommas(s.minNodes) +
                            (s.maxNodes > s.minNodes ? " to " + withCommas(s.maxNodes) : "");
    std::string note;
    if (key.second == "test")
        note =
            "  ground truth beside " + withCommas(s.groundTruths) + " of " + withCommas(s.graphs);
    if (s.unreadable > 0) note += "  " + withCommas(s.unreadable) + " unreadable";
    std::printf("%-20s %-6s %7s %18s %12s%s\n", key.first.c_str(),
                key.second.empty() ? "-" : key.second.c_str(), withCommas(s.graphs).c_str(),
                nodes.c_str(), withCommas(s.configs).c_str(), note.c_str());
}

// What a dataset folder holds, per collection and split in the dataset's order, from the files'
// headers alone (as the explorer's dataset browser reads them).
void inspectFolder(const std::string& dir) {
    const std::vector<DatasetFile> files = scanDataset(dir);
    if (files.empty()) throw FormatError(dir + ": no .npz files in this folder or below it");
    FolderSummary splits;
    int64_t unreadable = 0;
    for (const DatasetFile& f : files) {
        if (!f.error.empty()) {  // a loose file whose kind could not be read
            reportUnreadable(f.error);
            ++unreadable;
            continue;
        }
        addFile(splits[{f.collection, f.split}], f);
    }
    std::printf("%-14s %s\n", "folder", dir.c_str());
    std::printf("%-20s %-6s %7s %18s %12s\n", "collection", "split", "files", "nodes", "configs");
    std::set<std::string> collections;
    for (const auto& [key, s] : splits) {
        printSplit(key, s);
        unreadable += s.unreadable;
        collections.insert(key.first);
    }
    std::printf(
        "%s in %s%s\n", countOf(static_cast<int64_t>(files.size()), "file", "files").c_str(),
        countOf(static_cast<int64_t>(collections.size()), "collection", "collections").c_str(),
        unreadable > 0 ? (", " + withCommas(unreadable) + " unreadable").c_str() : "");
    if (unreadable > 0)
        throw FormatError(std::to_string(unreadable) + " of " + std::to_string(files.size()) +
                          " files could not be read");
}

void inspectPath(const std::string& path, bool distinctRows) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) return inspectFile(path, distinctRows);
    if (distinctRows)  // said, not silently dropped (on a folder it would decode every file)
        std::fprintf(stderr,
                     "note: %s: --distinct counts a file's configurations, not a folder's "
                     "(give the files)\n",
                     path.c_str());
    inspectFolder(path);
}

// Each file or folder in turn, a blank line between; one that cannot be read is one line on stderr
// and the rest are still inspected (one alone: its error is the command's).
void run(const InspectOptions& o) {
    if (o.files.size() == 1) return inspectPath(o.files.front(), o.distinct);
    size_t failed = 0;
    for (size_t i = 0; i < o.files.size(); ++i) {
        if (i > 0) std::printf("\n");
        try {
            inspectPath(o.files[i], o.distinct);
        } catch (const FormatError& e) {
            reportUnreadable(e.what());
            ++failed;
        }
    }
    if (failed > 0)
        throw FormatError(std::to_string(failed) + " of " + std::to_string(o.files.size()) +
                          " files could not be read");
}

}  // namespace

void addInspectCommand(CLI::App& app) {
    auto opts = std::make_shared<InspectOptions>();
    auto* cmd = app.add_subcommand(
        "inspect",
        "Summarise TpuGraphs .npz files, or a dataset folder per collection and split (reads no "
        "configuration rows unless --distinct)");
    cmd->add_option("FILE", opts->files, "Tile or layout .npz files, or dataset folders")
        ->required();
    cmd->add_flag("--distinct", opts->distinct, "Also read every configuration and count the distinct ones");
    cmd->callback([opts] { run(*opts); });
}

}  // namespace tpg::cli
