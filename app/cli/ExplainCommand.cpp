#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "Commands.h"
#include "NumberText.h"
#include "WhatIfSessionFile.h"
#include "explain/CostExplanation.h"
#include "graph/GraphFile.h"
#include "graph/GroundTruth.h"
#include "io/Error.h"
#include "synth/TpuCostModel.h"

namespace tpg::cli {

namespace {

// The synthetic TPU is checked against a file's measurements on at most this many configs: a
// stable Kendall in about a second on a 45k-node program.
constexpr int64_t kAgreementConfigs = 300;

struct ExplainOptions {
    std::string file;
    std::string config = "0";
    std::string fromJson;
    int entry = 0;  // the what-if file's first configuration (tune writes its best first)
    std::string compare;
    int top = 10;
    bool json = false;
};

// A configuration being explained: where it came from and its breakdown.
struct Explained {
    std::string label;
    synth::CostBreakdown breakdown;
    std::vector<explain::TiledTensor> tiled;  // tile files: what its bounds tile
};

Explained explained(const TpuGraph& g, const synth::TpuCostModel& tpu, std::string label,
                    synth::CostBreakdown b) {
    std::vector<explain::TiledTensor> tiled;
    if (!g.isLayout()) tiled = explain::tiledTensors(tpu.tileTensors(), b.tile);
    return {std::move(label), std::move(b), std::move(tiled)};
}

int64_t configIndex(const TpuGraph& g, const std::string& text, const char* option) {
    if (text == "best" || text == "worst") {
        if (!g.runtimesKnown())
            throw FormatError(g.path() + ": " + option + " " + text + " needs measured runtimes (this file has none)");
        const auto& r = g.runtimes();
        const auto it = text == "best" ? std::min_element(r.begin(), r.end()) : std::max_element(r.begin(), r.end());
        return it - r.begin();
    }
    int64_t c = -1;
    try {
        size_t used = 0;
        c = std::stoll(text, &used);
        if (used != text.size()) c = -1;
    } catch (const std::exception&) {
        c = -1;
    }
    if (c < 0 || c >= g.numConfigs())
        throw FormatError(std::string(option) + ": expected a configuration 0.." + std::to_string(g.numConfigs() - 1) +
                          ", best or worst, got '" + text + "'");
    return c;
}

Explained fromIndex(const TpuGraph& g, const synth::TpuCostModel& tpu, const std::string& text, const char* option) {
    const int64_t c = configIndex(g, text, option);
    std::string label = "config " + std::to_string(c);
    if (text == "best" || text == "worst") label += " (" + text + " measured)";
    return explained(g, tpu, label, tpu.explain(c));
}

// A configuration of a what-if session file ("format": "tpugraphs-whatif").
Explained fromWhatIf(const TpuGraph& g, const synth::TpuCostModel& tpu, const std::string& path, int entry) {
    const session::WhatIfEntry e = readSessionEntry(path, entry, g);
    return explained(
        g, tpu, e.label,
        g.isLayout() ? tpu.explainLayout(e.config.data()) : tpu.explainTile(e.config.data()));
}

std::string honesty(const TpuGraph& g, const synth::TpuCostModel& tpu, explain::Agreement& agreement) {
    agreement = explain::synthAgreement(g, tpu, kAgreementConfigs);
    if (explain::synthIsGroundTruth(g, tpu)) return "ground truth: this file is synthetic, timed by the synthetic TPU";
    if (std::isnan(agreement.kendall)) return "an estimate: the file has no measured runtimes to check it against";
    char buf[160];
    std::snprintf(
        buf, sizeof buf,
        "an estimate: it agrees with this file's measurements at Kendall %.3f over %s configs",
        agreement.kendall, withCommas(agreement.configs).c_str());
    return buf;
}

void printBreakdown(const TpuGraph& g, const Explained& e, int top) {
    const synth::CostBreakdown& b = e.breakdown;
    const explain::CostSummary s = explain::summarize(g, b);
    std::printf("%s: synthetic TPU %s\n", e.label.c_str(), explain::nsText(b.totalNs).c_str());
    for (const auto& c : s.categories) {
        if (c.ns == 0 && c.name.rfind("tile", 0) == 0) continue;
        std::printf("  %-18s %12s %6.1f%%", c.name.c_str(), explain::nsText(c.ns).c_str(),
                    b.totalNs > 0 ? 100.0 * c.ns / b.totalNs : 0.0);
        if (c.name == "copies")
            std::printf("  (%s, %d through the transpose unit)",
                        countOf(s.copies, "copy", "copies").c_str(), s.transposingCopies);
        std::printf("\n");
    }
    std::printf("  %-18s %12s\n", "total", explain::nsText(s.totalNs).c_str());
    if (g.isLayout())
        std::printf("violation ratio %.3f (configurable nodes whose largest dimension is not most minor)\n",
                    s.violationRatio);
    const auto listed = static_cast<size_t>(std::max(0, top));
    if (listed > 0) std::printf("top nodes:\n");
    for (const synth::NodeCost* n : explain::costliestNodes(b, listed))
        std::printf("  #%-6d %-14s %10s  %s %s\n", n->node, g.opcodeName(n->node).c_str(), explain::nsText(n->totalNs()).c_str(),
                    explain::layoutText(n->outputLayout).c_str(), n->reason.c_str());
    const auto copies = explain::costliestCopies(b, listed);
    if (!copies.empty()) std::printf("top copies:\n");
    for (const synth::EdgeCost* c : copies)
        std::printf("  #%d -> #%d %10s  %s -> %s  %s\n", c->producer, c->consumer, explain::nsText(c->copyNs).c_str(),
                    explain::layoutText(c->fromLayout).c_str(), explain::layoutText(c->toLayout).c_str(), c->reason.c_str());
    if (!g.isLayout()) {
        const synth::TileCost& t = b.tile;
        std::printf("tile: %s, utilisation %.3f, working set %.2f MiB of 16 MiB on-chip%s\n",
                    countOf(t.numTiles, "tile", "tiles").c_str(), t.utilisation,
                    t.workingSetBytes / (1024.0 * 1024.0), t.spills ? ", SPILLS" : ", fits");
        for (const explain::TiledTensor& x : e.tiled)
            if (x.dims.empty())
                std::printf("  %s #%d: a scalar, nothing to tile\n", x.role.c_str(), x.node);
            else
                std::printf("  %s #%d: %s in tiles of %s\n", x.role.c_str(), x.node,
                            explain::dimsText(x.dims).c_str(), explain::dimsText(x.tile).c_str());
    }
    for (const auto& note : b.notes) std::printf("note: %s\n", note.c_str());
}

nlohmann::json breakdownJson(const TpuGraph& g, const Explained& e, int top) {
    const synth::CostBreakdown& b = e.breakdown;
    const explain::CostSummary s = explain::summarize(g, b);
    nlohmann::json categories = nlohmann::json::object();
    for (const auto& c : s.categories) categories[c.name] = c.ns;
    nlohmann::json topNodes = nlohmann::json::array();
    for (const synth::NodeCost* n : explain::costliestNodes(b, static_cast<size_t>(std::max(0, top))))
        topNodes.push_back({{"node", n->node}, {"opcode", g.opcodeName(n->node)},
                            {"ns", n->totalNs()}, {"compute_ns", n->computeNs},
                            {"padding_ns", n->paddingNs}, {"layout_ns", n->layoutNs},
                            {"output_layout", n->outputLayout}, {"reason", n->reason}});
    nlohmann::json copies = nlohmann::json::array();
    for (const auto& c : b.copies)
        copies.push_back({{"producer", c.producer}, {"consumer", c.consumer}, {"ns", c.copyNs},
                          {"from", c.fromLayout}, {"to", c.toLayout}, {"reason", c.reason}});
    nlohmann::json j = {{"label", e.label},     {"total_ns", b.totalNs},          {"categories", categories},
                        {"copies", copies},     {"top_nodes", topNodes},          {"violation_ratio", s.violationRatio},
                        {"notes", b.notes}};
    if (!g.isLayout()) {
        nlohmann::json tensors = nlohmann::json::array();
        for (const explain::TiledTensor& x : e.tiled)
            tensors.push_back(
                {{"role", x.role}, {"node", x.node}, {"dims", x.dims}, {"tile", x.tile}});
        j["tile"] = {{"tiles", b.tile.numTiles},
                     {"utilisation", b.tile.utilisation},
                     {"working_set_bytes", b.tile.workingSetBytes},
                     {"spills", b.tile.spills},
                     {"tensors", tensors}};
    }
    return j;
}

void run(const ExplainOptions& o) {
    const TpuGraph g = loadWithGroundTruth(o.file);
    const synth::TpuCostModel tpu(g);
    const Explained a = o.fromJson.empty() ? fromIndex(g, tpu, o.config, "--config") : fromWhatIf(g, tpu, o.fromJson, o.entry);
    std::unique_ptr<Explained> b;
    if (!o.compare.empty()) b = std::make_unique<Explained>(fromIndex(g, tpu, o.compare, "--compare"));
    explain::Agreement agreement;
    const std::string trust = honesty(g, tpu, agreement);
    if (o.json) {
        nlohmann::json j = {{"file", o.file}, {"collection", collectionName(g.collection())},
                            {"synthetic_tpu", trust}, {"a", breakdownJson(g, a, o.top)}};
        if (!std::isnan(agreement.kendall))
            j["agreement"] = {{"kendall", agreement.kendall}, {"configs", agreement.configs}};
        if (b) {
            const explain::Comparison c = explain::compare(g, a.breakdown, b->breakdown, static_cast<size_t>(o.top));
            nlohmann::json deltas = nlohmann::json::object();
            for (const auto& d : c.categoryDeltas) deltas[d.name] = d.ns;
            j["b"] = breakdownJson(g, *b, o.top);
            j["comparison"] = {{"sentence", c.sentence}, {"differing_nodes", c.differingNodes},
                               {"category_deltas", deltas}, {"copy_delta", c.copyDelta}};
        }
        std::printf("%s\n", j.dump(2).c_str());
        return;
    }
    std::printf("%s (%s): the synthetic TPU's runtime is %s\n", o.file.c_str(), collectionName(g.collection()),
                trust.c_str());
    printBreakdown(g, a, o.top);
    if (!b) return;
    std::printf("\nB = ");
    printBreakdown(g, *b, o.top);
    const explain::Comparison c = explain::compare(g, a.breakdown, b->breakdown, static_cast<size_t>(o.top));
    std::printf("\nA = %s, B = %s: %s\n", a.label.c_str(), b->label.c_str(), c.sentence.c_str());
    const std::string tiles = explain::tileChanges(a.tiled, b->tiled);
    if (!tiles.empty())
        std::printf("  tiles: %s (%s -> %s)\n", tiles.c_str(),
                    withCommas(a.breakdown.tile.numTiles).c_str(),
                    countOf(b->breakdown.tile.numTiles, "tile", "tiles").c_str());
    if (g.isLayout())
        std::printf("  %s different output layouts\n",
                    countOf(static_cast<int64_t>(c.differingNodes.size()), "configurable node has",
                            "configurable nodes have")
                        .c_str());
    for (const auto& d : c.categoryDeltas)
        if (std::abs(d.ns) >= 0.5) std::printf("  %-18s %s\n", d.name.c_str(), ((d.ns >= 0 ? "+" : "-") + explain::nsText(std::abs(d.ns))).c_str());
}

}  // namespace

void addExplainCommand(CLI::App& app) {
    auto o = std::make_shared<ExplainOptions>();
    auto* cmd = app.add_subcommand(
        "explain", "Why a configuration is fast or slow: the synthetic TPU's breakdown (compute, padding, layout "
                   "preference, copies, tile terms, noise; the parts sum to the total), its top nodes and copies "
                   "with reasons, and a comparison with a second configuration");
    cmd->add_option("FILE", o->file, "A TpuGraphs .npz file")->required();
    cmd->add_option("--config", o->config, "Configuration to explain: an index, best or worst (measured)")
        ->capture_default_str();
    cmd->add_option("--from-json", o->fromJson, "Explain a configuration of a what-if session file instead");
    cmd->add_option("--entry", o->entry, "Which configuration of --from-json (0-based; default: the first, a tune file's best)");
    cmd->add_option("--compare", o->compare, "Compare with this configuration (index, best or worst)");
    cmd->add_option("--top", o->top, "Nodes and copies listed (0: the breakdown alone)")
        ->check(CLI::Range(0, 1'000'000))
        ->capture_default_str();
    cmd->add_flag("--json", o->json, "Print JSON instead of text");
    cmd->callback([o] { run(*o); });
}

}  // namespace tpg::cli
