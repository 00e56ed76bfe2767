#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <thread>
#include <vector>

#include "Commands.h"
#include "NumberText.h"
#include "ProgressBar.h"
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
        std::printf("%s%s %lld (%.1f%%)", i ? ", " : " ", schema::opcodeName(top[i].second).c_str(),
                    static_cast<long long>(top[i].first), 100.0 * static_cast<double>(top[i].first) / static_cast<double>(g.numNodes()));
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
                    bar.update(static_cast<int64_t>(t.progress() * static_cast<double>(t.numConfigs())));
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

// Each file in turn, a blank line between; a file that cannot be read is one line on stderr and
// the rest are still inspected (one file alone: its error is the command's).
void run(const InspectOptions& o) {
    if (o.files.size() == 1) return inspectFile(o.files.front(), o.distinct);
    size_t failed = 0;
    for (size_t i = 0; i < o.files.size(); ++i) {
        if (i > 0) std::printf("\n");
        try {
            inspectFile(o.files[i], o.distinct);
        } catch (const FormatError& e) {
            std::fflush(stdout);  // in the order they happen where both go to one terminal
            std::fprintf(stderr, "tpugraphs: %s\n", e.what());
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
        "Summarise TpuGraphs .npz files (reads no configuration rows unless --distinct)");
    cmd->add_option("FILE", opts->files, "Tile or layout .npz files")->required();
    cmd->add_flag("--distinct", opts->distinct, "Also read every configuration and count the distinct ones");
    cmd->callback([opts] { run(*opts); });
}

}  // namespace tpg::cli
