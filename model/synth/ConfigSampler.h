#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "synth/SyntheticRandom.h"
#include "synth/TpuCostModel.h"

namespace tpg::synth {

// The two searches the real layout collections come from.
enum class LayoutSearch {
    Random,   // every configurable node gets random layouts (a random share of its slots)
    Default,  // the compiler default (all -1) with a few nodes changed
};
const char* layoutSearchName(LayoutSearch s);  // "random" / "default"

// Samples configurations for any graph the cost model can read (synthetic or real files): each
// layout slot is a random permutation of its tensor's dims padded with -1, or all -1; tile bounds
// are valid tile sizes of the kernel's tensors, one output tile in eight free to be narrower than
// the vector registers. Duplicates occur, as in the real data.
class ConfigSampler {
public:
    explicit ConfigSampler(const TpuCostModel& model,
                           const std::vector<int32_t>& configurableNodes);

    // One layout configuration: configurableNodes.size() x 18 values.
    std::vector<float> layout(LayoutSearch search, Rng& rng) const;
    // One tile configuration: 24 values (bounds 0-5, sum, product for kernel, output, input).
    std::vector<float> tile(Rng& rng) const;

    // A random minor-to-major permutation of `rank` dims, padded with -1 to 6 values.
    static void randomPermutation(int rank, Rng& rng, float* out6);

private:
    const TpuCostModel& m_model;
    std::vector<int32_t> m_nodes;
    std::vector<std::array<int, 3>>
        m_ranks;  // per configurable node: output, input, kernel rank (-1: none)
};

}  // namespace tpg::synth
