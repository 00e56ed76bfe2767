#include "LearningRateSchedule.h"

#include <algorithm>
#include <cmath>

namespace tpg::nn {

namespace {
// Where the decaying schedules end, as a share of the base rate: low enough that the last steps
// settle, high enough that they still learn.
constexpr double kFinalShare = 0.05;
// StableDecay holds the base rate for this share of the run (the decay gets the last quarter).
constexpr double kStableShare = 0.75;
}  // namespace

const char* scheduleName(LearningRateSchedule s) {
    switch (s) {
        case LearningRateSchedule::StableDecay:
            return "stable-decay";
        case LearningRateSchedule::Constant:
            return "constant";
        default:
            return "cosine";
    }
}

const char* scheduleChoices() { return "cosine, stable-decay or constant"; }

bool parseSchedule(const std::string& s, LearningRateSchedule& out) {
    for (auto k : {LearningRateSchedule::Cosine, LearningRateSchedule::StableDecay,
                   LearningRateSchedule::Constant})
        if (s == scheduleName(k)) {
            out = k;
            return true;
        }
    return false;
}

double scheduledLearningRate(LearningRateSchedule s, double base, double fraction) {
    const double f = std::clamp(fraction, 0.0, 1.0);
    switch (s) {
        case LearningRateSchedule::Constant:
            return base;
        case LearningRateSchedule::StableDecay: {
            const double decay = std::max(0.0, f - kStableShare) / (1.0 - kStableShare);
            return base * (1.0 - (1.0 - kFinalShare) * decay);
        }
        default:
            return base * (kFinalShare + (1.0 - kFinalShare) * 0.5 * (1.0 + std::cos(M_PI * f)));
    }
}

}  // namespace tpg::nn
