#include "FileScoring.h"

#include <numeric>

#include "synth/SameProgramScores.h"

namespace tpg::cli {

std::vector<double> scoreFile(const nn::CostModel& model, const TpuGraph& g,
                              const std::vector<int64_t>* configs, const FileProgress& progress) {
    std::vector<int64_t> all;
    if (!configs) {
        all.resize(static_cast<size_t>(g.numConfigs()));
        std::iota(all.begin(), all.end(), 0);
    }
    const std::vector<int64_t>& ids = configs ? *configs : all;
    auto counted = [](int64_t done, int64_t total) {
        return std::to_string(done) + "/" + std::to_string(total);
    };
    std::vector<uint64_t> keys;
    if (g.isLayout() && model.tiesSamePrograms())
        keys = synth::programKeys(g, ids, {}, [&](int64_t done, int64_t total) {
            progress(kProgramKeyShare * static_cast<double>(done) / static_cast<double>(total),
                     "programs " + counted(done, total));
        });
    const double from = keys.empty() ? 0.0 : kProgramKeyShare;
    const nn::CostModel::Progress scoring = [&](int64_t done, int64_t total) {
        progress(from + (1 - from) * static_cast<double>(done) /
                            static_cast<double>(std::max<int64_t>(1, total)),
                 counted(done, total));
    };
    const std::vector<uint64_t>* known = keys.empty() ? nullptr : &keys;
    return configs ? model.scoreConfigs(g, ids, nullptr, scoring, known)
                   : model.scoreAll(g, scoring, nullptr, known);
}

}  // namespace tpg::cli
