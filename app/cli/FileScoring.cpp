#include "FileScoring.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "NnLimits.h"
#include "NumberText.h"
#include "synth/SameProgramScores.h"

namespace tpg::cli {

namespace {
// How often a wait for a decompressing table says how far it got (the bar's redraw rate).
constexpr auto kDecodeReportInterval = std::chrono::milliseconds(100);

// A deflated table decodes in the background and a Fortran-ordered one has no row until it all
// has: wait for a first row here, saying so (a 3.7 GB table had the bar sit at 0% for 20 s).
void waitForFirstRows(const TpuGraph& g, const FileProgress& progress) {
    if (!g.isLayout() || !g.layoutConfigs()) return;
    const std::string what = "decompressing " + countOf(g.numConfigs(), "config", "configs");
    g.layoutConfigs()->waitForRows(
        1,
        [&](double done) {
            progress(0.0, what + " " + std::to_string(static_cast<int>(done * 100)) + "%");
            return true;
        },
        kDecodeReportInterval);
}
}  // namespace

ScoringPhases scoringPhases(bool indexed, const FileProgress& progress) {
    const double from = indexed ? nn::limits::kProgramIndexShare : 0.0;
    auto share = [](int64_t done, int64_t total) {
        return static_cast<double>(done) / static_cast<double>(std::max<int64_t>(1, total));
    };
    auto counted = [](int64_t done, int64_t total) {
        return std::to_string(done) + "/" + std::to_string(total);
    };
    return {[=](int64_t done, int64_t total) {
                progress(from * share(done, total), "programs " + counted(done, total));
            },
            [=](int64_t done, int64_t total) {
                progress(from + (1 - from) * share(done, total), counted(done, total));
            }};
}

std::vector<double> scoreFile(const nn::CostModel& model, const TpuGraph& g,
                              const std::vector<int64_t>* configs, const FileProgress& progress) {
    std::vector<int64_t> all;
    if (!configs) {
        all.resize(static_cast<size_t>(g.numConfigs()));
        std::iota(all.begin(), all.end(), 0);
    }
    const std::vector<int64_t>& ids = configs ? *configs : all;
    waitForFirstRows(g, progress);
    const bool indexed = model.indexesPrograms(g);
    const ScoringPhases phases = scoringPhases(indexed, progress);
    std::vector<uint64_t> keys;
    if (indexed) keys = synth::programKeys(g, ids, {}, phases.keys);
    const std::vector<uint64_t>* known = keys.empty() ? nullptr : &keys;
    return configs ? model.scoreConfigs(g, ids, nullptr, phases.scores, known)
                   : model.scoreAll(g, phases.scores, nullptr, known);
}

}  // namespace tpg::cli
