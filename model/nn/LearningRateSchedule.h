#pragma once

#include <string>

namespace tpg::nn {

// How the learning rate moves over a run, by the share of the run done (RunClock::fraction: the
// time budget or the epoch limit, whichever leads). Every schedule ends at 5% of the base rate,
// except Constant.
//   Cosine:      a half cosine from the base rate down to 5% (the default).
//   StableDecay: the base rate for the first 75% of the run, then linear down to 5% (the
//                "warmup-stable-decay" shape without a warm-up: Adam needs none here).
//   Constant:    the base rate throughout.
enum class LearningRateSchedule { Cosine, StableDecay, Constant };

// "cosine" / "stable-decay" / "constant", as the CLI's --lr-schedule and the training log spell
// them.
const char* scheduleName(LearningRateSchedule s);
// The names parseSchedule accepts, for messages: "cosine, stable-decay or constant".
const char* scheduleChoices();
bool parseSchedule(const std::string& s, LearningRateSchedule& out);

// The learning rate at `fraction` (clamped to [0, 1]) of the run.
double scheduledLearningRate(LearningRateSchedule s, double base, double fraction);

}  // namespace tpg::nn
