#include "SameProgramScores.h"

#include <unordered_map>

#include "io/Error.h"
#include "synth/TpuCostModel.h"

namespace tpg::synth {

std::vector<uint64_t> programKeys(const TpuGraph& g, const std::vector<int64_t>& configs,
                                  const StopRequested& stop, const KeyProgress& progress) {
    if (!g.isLayout() || configs.size() < 2) return {};
    std::vector<uint64_t> keys(configs.size());
    try {
        const TpuCostModel tpu(g);
        for (size_t i = 0; i < configs.size(); ++i) {
            if (stop && stop()) return {};
            keys[i] = tpu.programKey(configs[i]);
            if (progress)
                progress(static_cast<int64_t>(i) + 1, static_cast<int64_t>(configs.size()));
        }
    } catch (const FormatError&) {
        return {};
    }
    return keys;
}

void shareScoresWithinPrograms(const std::vector<uint64_t>& keys, std::vector<double>& scores) {
    struct Sum {
        double total = 0;
        int64_t count = 0;
    };
    std::unordered_map<uint64_t, Sum> programs;
    for (size_t i = 0; i < keys.size(); ++i) {
        Sum& s = programs[keys[i]];
        s.total += scores[i];
        ++s.count;
    }
    for (size_t i = 0; i < keys.size(); ++i) {
        const Sum& s = programs[keys[i]];
        if (s.count > 1) scores[i] = s.total / static_cast<double>(s.count);
    }
}

bool shareScoresWithinPrograms(const TpuGraph& g, const std::vector<int64_t>& configs, std::vector<double>& scores,
                               const StopRequested& stop) {
    if (configs.size() != scores.size()) return false;
    const std::vector<uint64_t> keys = programKeys(g, configs, stop);
    if (keys.empty()) return false;
    shareScoresWithinPrograms(keys, scores);
    return true;
}

}  // namespace tpg::synth
