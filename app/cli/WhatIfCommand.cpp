#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "Commands.h"
#include "DefaultModels.h"
#include "LearnCommands.h"
#include "NumberText.h"
#include "ProgressBar.h"
#include "WhatIfSessionFile.h"
#include "graph/GraphFile.h"
#include "graph/GroundTruth.h"
#include "graph/Schema.h"
#include "io/Error.h"
#include "synth/TpuCostModel.h"
#include "whatif/ConfigEdit.h"
#include "whatif/WhatIfPredictor.h"

namespace tpg::cli {

namespace {

struct WhatIfOptions {
    std::string file, model, from = "default", fromJson;
    int entry = 0;
    std::vector<std::string> layoutEdits, tileEdits;
    bool alike = false;  // each --set also sets the nodes like its node (whatif::nodesAlike)
    bool json = false;
};

std::string ns(double v) { return v < 0 ? "unknown" : withCommas(std::llround(v)) + " ns"; }

std::string change(double now, double reference) { return percentChange(now, reference, ""); }

// A predicted runtime, "<= " or ">= " where the fit clamped it (WhatIfReport::beyondFit).
std::string predictedText(const whatif::WhatIfReport& r) {
    return boundPrefix(r.beyondFit) + ns(r.predictedNs);
}

// `now` against `before` in percent, or by score where either lies beyond the fit.
std::string predictedChange(const whatif::WhatIfReport& now, const whatif::WhatIfReport& before) {
    const int byScore = whatif::changeByScoreOnly(now, before);
    return byScore < 0   ? "faster (by score)"
           : byScore > 0 ? "slower (by score)"
                         : change(now.predictedNs, before.predictedNs);
}

// Each bound the configuration sets outside the range of the file's configurations, with it.
nlohmann::json boundsOutsideJson(const whatif::WhatIfReport& r, const whatif::WhatIfPredictor& p,
                                 const std::vector<float>& row) {
    nlohmann::json out = nlohmann::json::array();
    for (int column : r.boundsOutsideFile) {
        const whatif::BoundRange range = p.boundRange(column);
        out.push_back({{"bound", schema::tileConfigFeatureNames()[static_cast<size_t>(column)]},
                       {"value", p.effectiveBound(column, row[static_cast<size_t>(column)])},
                       {"file_low", range.low},
                       {"file_high", range.high}});
    }
    return out;
}

// "output_bounds_1 = 1 (this file's configurations hold 128-256)", for each bound outside its
// range.
std::string boundsOutsideText(const std::vector<float>& row, const whatif::WhatIfReport& r,
                              const whatif::WhatIfPredictor& p) {
    std::string text;
    for (int column : r.boundsOutsideFile) {
        const whatif::BoundRange range = p.boundRange(column);
        const auto value = p.effectiveBound(column, row[static_cast<size_t>(column)]);
        const std::string low = withCommas(std::llround(range.low));
        text += (text.empty() ? "" : ", ") +
                schema::tileConfigFeatureNames()[static_cast<size_t>(column)] + " = " +
                withCommas(std::llround(value)) +
                (range.low == range.high ? " (every configuration of this file holds " + low + ")"
                                         : " (this file's configurations hold " + low + "-" +
                                               withCommas(std::llround(range.high)) + ")");
    }
    return text;
}

nlohmann::json reportJson(const whatif::WhatIfReport& r, const whatif::WhatIfPredictor& p,
                          const std::vector<float>& row) {
    return {{"score", r.score},
            {"predicted_ns",
             r.predictedNs < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.predictedNs)},
            {"predicted_beyond_fit", r.beyondFit},
            {"rank", r.rank},
            {"configs", r.configs},
            {"synthetic_tpu_ns", r.synthNs},
            {"matching_config",
             r.matchingRow < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.matchingRow)},
            {"matching_runtime_ns", r.matchingRuntimeNs < 0 ? nlohmann::json(nullptr)
                                                            : nlohmann::json(r.matchingRuntimeNs)},
            {"same_program_config",
             r.sameProgramRow < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.sameProgramRow)},
            {"same_program_runtime_ns", r.sameProgramRuntimeNs < 0
                                            ? nlohmann::json(nullptr)
                                            : nlohmann::json(r.sameProgramRuntimeNs)},
            {"nearest_config", r.nearestRow},
            {"nearest_distance", r.nearestDistance},
            {"extrapolating", r.extrapolating},
            {"bounds_outside_file", boundsOutsideJson(r, p, row)}};
}

void printReport(const char* label, const whatif::WhatIfReport& r, const whatif::WhatIfPredictor& p,
                 const std::vector<float>& row, const whatif::WhatIfReport* start) {
    const bool one = r.nearestDistance == 1;
    const char* unit = p.graph().isLayout() ? (one ? "node differs" : "nodes differ") : (one ? "bound differs" : "bounds differ");
    std::printf("%s\n", label);
    std::printf("  %-14s %s (score %.4f)", "predicted", predictedText(r).c_str(), r.score);
    if (start && r.predictedNs >= 0)
        std::printf("  %s vs start", predictedChange(r, *start).c_str());
    if (r.predictedNs >= 0 && p.bestMeasuredNs() > 0 && r.beyondFit < 0)
        std::printf("  faster than every measured configuration (by score)");
    else if (r.predictedNs >= 0 && p.bestMeasuredNs() > 0)
        std::printf("  %s vs best measured", change(r.predictedNs, p.bestMeasuredNs()).c_str());
    std::printf("\n  %-14s would rank %s of %s (by predicted score)\n", "rank",
                withCommas(r.rank).c_str(), withCommas(r.configs).c_str());
    std::printf("  %-14s %s (%s)\n", "synthetic TPU", ns(r.synthNs).c_str(),
                p.synthIsGroundTruth() ? "ground truth: this file is synthetic"
                                       : "an analytic estimate, not this file's hardware");
    if (r.matchingRow >= 0)
        std::printf("  %-14s config %lld, measured %s\n", "matches", static_cast<long long>(r.matchingRow),
                    ns(r.matchingRuntimeNs).c_str());
    else if (r.sameProgramRow >= 0)
        std::printf("  %-14s config %lld compiles to the same program (by the synthetic TPU's compiler model), "
                    "measured %s\n",
                    "same program", static_cast<long long>(r.sameProgramRow), ns(r.sameProgramRuntimeNs).c_str());
    else
        std::printf("  %-14s config %lld, %lld %s%s\n", "nearest", static_cast<long long>(r.nearestRow),
                    static_cast<long long>(r.nearestDistance), unit,
                    r.extrapolating ? "  (extrapolating: further from every measured config than they are "
                                      "from each other)"
                                    : "");
    if (!r.boundsOutsideFile.empty())
        std::printf(
            "  %-14s %s: tiles this kernel was not measured with, so the model extrapolates\n",
            "outside file", boundsOutsideText(row, r, p).c_str());
}

// The nodes each layout edit goes to: its own, and with --alike the nodes like it. Throws when two
// edits would set one node's slot (the later would win silently).
std::vector<std::vector<int32_t>> nodesOfEdits(const TpuGraph& g,
                                               const std::vector<whatif::LayoutEdit>& edits,
                                               bool alike) {
    std::vector<std::vector<int32_t>> nodes;
    std::map<std::pair<int32_t, int>, std::string> setBy;
    for (const auto& e : edits) {
        nodes.push_back(alike ? whatif::nodesAlike(g, e.node) : std::vector<int32_t>{e.node});
        for (int32_t n : nodes.back()) {
            const auto [it, fresh] =
                setBy.emplace(std::make_pair(n, static_cast<int>(e.slot)), e.text());
            if (!fresh)
                throw FormatError("--set '" + it->second + "' and '" + e.text() +
                                  "' both set node " + std::to_string(n) + "'s " +
                                  whatif::slotName(e.slot) + " layout (with --alike)");
        }
    }
    return nodes;
}

void run(const WhatIfOptions& o) {
    auto graph = std::make_shared<const TpuGraph>(loadWithGroundTruth(o.file));
    const TpuGraph& g = *graph;
    if (!o.tileEdits.empty() && g.isLayout())
        throw FormatError(o.file + ": --tile edits need a tile file (this is a layout file: use --set)");
    if (!o.layoutEdits.empty() && !g.isLayout())
        throw FormatError(o.file + ": --set edits layouts; this is a tile file (use --tile NAME=VALUE)");
    // Parse every edit before the slow scoring, so a typo fails at once.
    std::vector<whatif::LayoutEdit> layoutEdits;
    for (const auto& e : o.layoutEdits) layoutEdits.push_back(whatif::parseLayoutEdit(g, e));
    std::vector<whatif::TileEdit> tileEdits;
    for (const auto& e : o.tileEdits) tileEdits.push_back(whatif::parseTileEdit(g, e));
    whatif::checkEachSlotOnce(layoutEdits);
    if (o.alike && layoutEdits.empty())
        throw FormatError(o.file +
                          ": --alike widens --set edits: give one (--set NODE.SLOT=LAYOUT)");
    const std::vector<std::vector<int32_t>> editNodes = nodesOfEdits(g, layoutEdits, o.alike);
    whatif::checkEachBoundOnce(tileEdits);
    if (!tileEdits.empty()) {
        const synth::TpuCostModel tpu(g);  // a kernel of tens of nodes: quick
        for (auto& e : tileEdits) {
            whatif::checkTileEditFits(tpu, e);
            e = whatif::wholeAsDimension(tpu, e);
        }
    }
    const whatif::StartPoint start = whatif::StartPoint::parse(o.from);
    start.check(g);
    std::optional<session::WhatIfEntry> loaded;
    if (!o.fromJson.empty()) loaded = readSessionEntry(o.fromJson, o.entry, g);
    const std::string startText = loaded ? o.fromJson + ": " + loaded->label : start.text();

    nn::CostModel model =
        o.model.empty() ? nn::defaultModelForFile(o.file, g.collection(), g.searchCollection())
                        : nn::CostModel::load(o.model);
    std::unique_ptr<ProgressBar> bar;
    if (!o.json) bar = std::make_unique<ProgressBar>("scoring the file's configs", g.numConfigs());
    const whatif::WhatIfPredictor p(graph, model, [&](int64_t done, int64_t) {
        if (bar) bar->update(done);
    });
    if (bar) bar->finish();

    const std::vector<float> startRow = loaded ? loaded->config : p.startRow(start);
    const whatif::WhatIfReport before = p.evaluate(startRow);
    std::vector<float> row = startRow;
    for (size_t i = 0; i < layoutEdits.size(); ++i) {
        const auto& e = layoutEdits[i];
        whatif::applyLayoutToNodes(g, row, editNodes[i], e.slot, e.minorToMajor);
    }
    for (const auto& e : tileEdits) whatif::applyTileEdit(row, e);
    const whatif::WhatIfReport after = p.evaluate(row);

    if (o.json) {
        nlohmann::json j = {
            {"file", o.file},
            {"model", model.label()},
            {"from", startText},
            {"edits", o.layoutEdits.empty() ? o.tileEdits : o.layoutEdits},
            {"synthetic_tpu_is_ground_truth", p.synthIsGroundTruth()},
            {"best_measured_ns",
             p.bestMeasuredNs() < 0 ? nlohmann::json(nullptr) : nlohmann::json(p.bestMeasuredNs())},
            {"start", reportJson(before, p, startRow)},
            {"edited", reportJson(after, p, row)},
            {"config", row}};
        if (g.isLayout()) j["edited_nodes"] = editNodes;  // per --set edit
        std::printf("%s\n", j.dump(2).c_str());
        return;
    }
    std::printf("%-16s %s (%s, %s configs)\n", "file", o.file.c_str(),
                collectionName(g.collection()), withCommas(g.numConfigs()).c_str());
    std::printf("%-16s %s\n", "model", model.label().c_str());
    std::printf("%-16s %s\n", "best measured", ns(p.bestMeasuredNs()).c_str());
    printReport(("start: " + startText).c_str(), before, p, startRow, nullptr);
    if (layoutEdits.empty() && tileEdits.empty()) return;
    std::string edits;
    for (size_t i = 0; i < layoutEdits.size(); ++i) {
        const auto& e = layoutEdits[i];
        const whatif::SlotTensor t = whatif::slotTensor(g, e.node, e.slot);
        edits += (edits.empty() ? "" : ", ") + e.text() + " (" + g.opcodeName(e.node) + ", " +
                 whatif::slotName(e.slot) + " " + t.shapeText() + ")";
        if (o.alike) edits += " and " + std::to_string(editNodes[i].size() - 1) + " nodes alike";
    }
    for (const auto& e : tileEdits) edits += (edits.empty() ? "" : ", ") + e.text();
    printReport(("edited: " + edits).c_str(), after, p, row, &before);
}

}  // namespace

void addWhatIfCommand(CLI::App& app) {
    auto o = std::make_shared<WhatIfOptions>();
    auto* cmd = app.add_subcommand("whatif", learnCommandDescription("whatif"));
    cmd->add_option("FILE", o->file, "A layout or tile .npz file")->required();
    cmd->add_option("--model", o->model,
                    "Model file (default: the built-in model of the file's collection: its dataset "
                    "folder's, or the one it records, else its kind's)");
    auto* from = cmd->add_option("--from", o->from, "Start from: a config index, default, best (measured) or predicted-best")
                     ->capture_default_str();
    cmd->add_option("--from-json", o->fromJson,
                    "Start from a configuration of a what-if session file (the explorer's, or tune's: best first)")
        ->excludes(from);
    cmd->add_option("--entry", o->entry, "Which configuration of --from-json (0-based; default: the first)");
    cmd->add_option("--set", o->layoutEdits,
                    "Layout edit NODE.SLOT=LAYOUT (SLOT: output, input, kernel; LAYOUT: a minor-to-major "
                    "permutation such as 3,0,2,1, or default); repeatable");
    cmd->add_option("--tile", o->tileEdits, "Tile edit NAME=SIZE, e.g. output_bounds_0=128; repeatable");
    cmd->add_flag("--alike", o->alike,
                  "Each --set also sets every configurable node of its node's opcode and output "
                  "shape, each it fits (the explorer's Select Alike)");
    cmd->add_flag("--json", o->json, "Print JSON instead of text");
    cmd->callback([o] { run(*o); });
}

}  // namespace tpg::cli
