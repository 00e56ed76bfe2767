// Measurement noise: a log-normal factor per compiled program, keyed by what the compiler makes of
// a configuration (layouts and copies, or clamped tiles) so identical executables measure the same.
#include <cmath>

#include "synth/SyntheticRandom.h"
#include "synth/TpuCostModelImpl.h"

namespace tpg::synth {

double TpuCostModel::Impl::noiseFactor(uint64_t configHash) const {
    // Two uniforms from the (graph, config) hash -> one standard normal (Box-Muller).
    const uint64_t a = mix64(configHash ^ 0x6e6f697365ULL), b = mix64(a);
    const double u1 = (static_cast<double>(a >> 11) + 1.0) * 0x1.0p-53,
                 u2 = static_cast<double>(b >> 11) * 0x1.0p-53;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    return std::exp(p.noiseSigma * z);
}

// Keyed by the tiles the kernel is compiled with (bounds after clamping), like the layout noise.
uint64_t TpuCostModel::Impl::tileHash(const float* config) const {
    const TileShape t = tileShape(config, nullptr);
    uint64_t h = mix64(graphHash ^ 0x74696c65ULL);
    for (const auto* group : {&t.out, &t.in, &t.kernel})
        for (int64_t b : *group) h = mix64(h ^ static_cast<uint64_t>(b));
    return h;
}

}  // namespace tpg::synth
