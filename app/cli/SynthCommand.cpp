#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>

#include "Commands.h"
#include "NumberText.h"
#include "ProgressBar.h"
#include "io/Error.h"
#include "io/Limits.h"
#include "synth/SyntheticDataset.h"

namespace tpg::cli {

namespace {

namespace fs = std::filesystem;

struct SynthCliOptions {
    synth::SynthOptions synth;
    std::string collections;
    bool overwrite = false;
    bool stored = false;
    bool quiet = false;
};

std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

double median(std::vector<double> v) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }),
            v.end());
    if (v.empty()) return std::nan("");
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void printSummary(const std::vector<synth::SynthFile>& files, const std::string& outDir,
                  double seconds) {
    std::map<std::string, std::vector<const synth::SynthFile*>> by;
    for (const auto& f : files) by[f.collection].push_back(&f);
    std::printf("%-20s %6s %17s %8s %14s %10s %10s\n", "collection", "graphs", "nodes (min-max)",
                "configs", "spread median", "near ties", "exact ties");
    for (const auto& name : synth::synthCollections()) {
        auto it = by.find(name);
        if (it == by.end()) continue;
        int64_t lo = INT64_MAX, hi = 0, configs = 0;
        std::vector<double> spread;
        double near = 0, exact = 0;
        for (const auto* f : it->second) {
            lo = std::min(lo, f->nodes);
            hi = std::max(hi, f->nodes);
            configs += f->configs;
            spread.push_back(f->stats.spread);
            near += f->stats.tieRate;
            exact += f->stats.exactTies;
        }
        const auto n = static_cast<double>(it->second.size());
        std::printf("%-20s %6zu %8lld-%-8lld %8lld %13.2fx %9.1f%% %9.1f%%\n", name.c_str(),
                    it->second.size(), static_cast<long long>(lo), static_cast<long long>(hi),
                    static_cast<long long>(configs), median(spread), 100 * near / n,
                    100 * exact / n);
    }
    // The ground truth is written for test-split files only: a small dataset may have none.
    const bool anyTest = std::any_of(files.begin(), files.end(), [](const synth::SynthFile& f) {
        return f.split == std::string("test");
    });
    const std::string truth = anyTest ? "; test-split truth in " + outDir + "/ground_truth" : "";
    std::printf("wrote %s under %s/npz in %.1fs (near ties: config pairs within %.1f%%%s)\n",
                countOf(static_cast<int64_t>(files.size()), "file", "files").c_str(),
                outDir.c_str(), seconds, 100 * synth::kNearTie, truth.c_str());
}

// Whether no collection chosen gets a graph (checked before --overwrite removes a dataset).
bool writesNothing(const synth::SynthOptions& s) {
    const auto chosen = [&](const std::string& prefix) {
        if (s.collections.empty()) return true;
        return std::any_of(s.collections.begin(), s.collections.end(),
                           [&](const std::string& c) { return c.rfind(prefix, 0) == 0; });
    };
    return !(s.tileGraphs > 0 && chosen("tile")) && !(s.layoutGraphs > 0 && chosen("layout"));
}

void run(SynthCliOptions& o) {
    o.synth.collections = splitList(o.collections);
    o.synth.compressed = !o.stored;
    if (o.synth.minNodes > o.synth.maxNodes)
        throw CLI::ValidationError("--min-nodes", std::to_string(o.synth.minNodes) +
                                                      " is above --max-nodes " +
                                                      std::to_string(o.synth.maxNodes));
    for (const auto& c : o.synth.collections)
        if (std::find(synth::synthCollections().begin(), synth::synthCollections().end(), c) ==
            synth::synthCollections().end())
            throw CLI::ValidationError(
                "--collections", "unknown collection '" + c +
                                     "' (expected tile:xla, layout:xla:random, layout:xla:default, "
                                     "layout:nlp:random or layout:nlp:default)");
    if (writesNothing(o.synth))
        throw CLI::ValidationError(
            "nothing to write: --tile-graphs and --layout-graphs give no "
            "graph to the collections chosen");
    const fs::path out(o.synth.outDir);
    std::error_code ec;
    if (fs::exists(out, ec) && !fs::is_directory(out, ec))
        throwFormatError(
            o.synth.outDir, "",
            "exists and is not a directory (expected a directory for the dataset tree)");
    if (fs::exists(out / "npz", ec)) {
        if (!o.overwrite)
            throwFormatError(o.synth.outDir, "",
                             "already holds a dataset (npz/); pass --overwrite to replace it");
        fs::remove_all(out / "npz", ec);
        if (!ec) fs::remove_all(out / "ground_truth", ec);
        if (ec)
            throwFormatError(o.synth.outDir, "",
                             "cannot remove the previous dataset: " + ec.message());
    }

    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<ProgressBar> bar;
    std::vector<synth::SynthFile> files;
    try {
        files = synth::generateDataset(o.synth,
                                       [&](int64_t done, int64_t total, const std::string& detail) {
                                           if (o.quiet) return;
                                           if (!bar)
                                               bar = std::make_unique<ProgressBar>("synth", total);
                                           bar->update(done, detail);
                                       });
    } catch (const std::invalid_argument& e) {
        throw CLI::ValidationError(e.what());
    }
    if (bar) bar->finish("configs evaluated");
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!o.quiet) printSummary(files, o.synth.outDir, secs);
}

}  // namespace

void addSynthCommand(CLI::App& app) {
    auto o = std::make_shared<SynthCliOptions>();
    auto* cmd = app.add_subcommand(
        "synth",
        "Generate a synthetic TpuGraphs dataset (the real tree "
        "npz/{tile/xla,layout/{xla,nlp}/{random,default}}/"
        "{train,valid,test}) timed by the built-in synthetic TPU; deterministic for a seed");
    cmd->add_option("--out", o->synth.outDir, "Output directory (the tree goes to OUT/npz)")
        ->required();
    cmd->add_option("--seed", o->synth.seed, "Random seed (same seed, same dataset)")
        ->capture_default_str();
    cmd->add_option("--tile-graphs", o->synth.tileGraphs, "Fused kernels in tile:xla")
        ->check(CLI::Range(0, 1000000))
        ->capture_default_str();
    cmd->add_option("--layout-graphs", o->synth.layoutGraphs,
                    "Programs per layout source (xla, nlp); each is timed by both searches "
                    "(random, default)")
        ->check(CLI::Range(0, 100000))
        ->capture_default_str();
    cmd->add_option("--configs", o->synth.configs, "Configurations per graph")
        ->check(CLI::Range(1, limits::kMaxSyntheticConfigs))
        ->capture_default_str();
    cmd->add_option("--min-nodes", o->synth.minNodes,
                    "Smallest layout program (nodes, approximate)")
        ->check(CLI::Range(int64_t{1}, limits::kMaxSyntheticNodes))
        ->capture_default_str();
    cmd->add_option("--max-nodes", o->synth.maxNodes, "Largest layout program (nodes, approximate)")
        ->check(CLI::Range(int64_t{1}, limits::kMaxSyntheticNodes))
        ->capture_default_str();
    cmd->add_option(
        "--collections", o->collections,
        "Comma-separated subset of tile:xla,layout:xla:random,layout:xla:default,layout:nlp:random,"
        "layout:nlp:default (default: all)");
    cmd->add_flag("--test-runtimes", o->synth.testRuntimes,
                  "Write true runtimes into test-split files too (default: zeros, as the real test "
                  "split; the truth "
                  "always goes to OUT/ground_truth/.../NAME.config_runtime.npy)");
    cmd->add_option("--noise", o->synth.noiseSigma,
                    "Measurement noise: the log-normal sigma of each compiled program's runtime (0: exact "
                    "runtimes)")
        ->check(CLI::Range(0.0, limits::kMaxNoiseSigma))
        ->capture_default_str();
    cmd->add_flag("--stored", o->stored,
                  "Write stored entries (np.savez) instead of deflated (np.savez_compressed)");
    cmd->add_option("--threads", o->synth.threads,
                    "Threads evaluating configurations (0: all cores)")
        ->check(CLI::Range(0, 256))
        ->capture_default_str();
    cmd->add_flag("--overwrite", o->overwrite,
                  "Replace OUT/npz and OUT/ground_truth if they exist");
    cmd->add_flag("--quiet", o->quiet, "No progress bar and no summary");
    cmd->callback([o] { run(*o); });
}

}  // namespace tpg::cli
