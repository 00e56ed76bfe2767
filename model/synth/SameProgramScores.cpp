#include "SameProgramScores.h"

#include <optional>
#include <unordered_map>

#include "io/Error.h"
#include "synth/TpuCostModel.h"

namespace tpg::synth {

bool shareScoresWithinPrograms(const TpuGraph& g, const std::vector<int64_t>& configs, std::vector<double>& scores) {
    if (!g.isLayout() || configs.size() != scores.size() || configs.size() < 2) return false;
    std::optional<TpuCostModel> tpu;
    std::vector<uint64_t> keys(configs.size());
    try {
        tpu.emplace(g);
        for (size_t i = 0; i < configs.size(); ++i) keys[i] = tpu->programKey(configs[i]);
    } catch (const FormatError&) {
        return false;
    }
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
    return true;
}

}  // namespace tpg::synth
