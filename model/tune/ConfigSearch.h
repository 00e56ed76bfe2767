#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "CancelToken.h"
#include "whatif/WhatIfPredictor.h"

namespace tpg::tune {

struct TuneOptions {
    double budgetSeconds = 30;  // wall clock for the search (the file's scoring not included)
    int64_t maxRounds = 0;      // > 0: also stop after this many rounds (a reproducible run)
    // Candidates measured by the synthetic TPU per round, the model's best first; 0 = the model
    // alone decides (the synthetic TPU then only reports on the final list).
    int measurePerRound = 8;
    bool fineTune = true;  // fine-tune a copy of the model on what was measured, between rounds
    int top = 10;          // configurations returned
    uint64_t seed = 1;
    whatif::StartPoint start;  // where the search starts (its incumbent before the first round)...
    std::vector<float> startRow;  // ...unless a row is given (the explorer's current edit)
    std::string startLabel;       // what to call startRow ("the current configuration")
};

struct TunedConfig {
    std::vector<float> row;
    std::string label;  // "tuned #1", "start: best"
    // The file's model (not the fine-tuned copy): score, predicted ns, rank; synthetic TPU ns.
    whatif::WhatIfReport report;
    // Measured during the search (else its synthetic-TPU runtime is only reported).
    bool measured = false;
};

struct TuneProgress {
    int64_t round = 0;             // rounds completed
    int64_t candidatesScored = 0;  // by the model, duplicates excluded
    int64_t measured = 0;          // by the synthetic TPU
    double bestPredictedNs = -1;   // the model's best candidate, through the file's runtime fit; -1 unknown
    double bestScore = 0;
    double bestMeasuredNs = -1;    // the best configuration measured so far (-1: none measured)
    double startNs = 0;            // the start's synthetic-TPU runtime
    double elapsedSeconds = 0, budgetSeconds = 0;
    // While measuring: the fastest distinct programs measured so far (at most `top`, fastest
    // first), a new list whenever it changed. Only report.synthNs is filled: the file's model
    // scores the final list alone. Null in TuneResult::rounds.
    std::shared_ptr<const std::vector<TunedConfig>> fastestMeasured;
};

struct TuneResult {
    TunedConfig start;
    std::vector<TunedConfig> top;  // best first: by synthetic-TPU runtime when measuring, else by score
    std::vector<TuneProgress> rounds;
    int64_t candidatesScored = 0, measured = 0;
    double seconds = 0;
    bool cancelled = false;
    // Stopped before the budget: limits::kRoundsWithoutNewToStop rounds in a row found nothing new.
    bool exhausted = false;
    double log10SpaceSize = 0;
    int64_t coordinates = 0;
};

// The model-guided search over a file's configuration space (SearchSpace). A round is coordinate
// descent chosen by the learned model: every value of the incumbent's next coordinates (heaviest
// tensors first) is scored; when measuring, the model's two best values of each coordinate are
// measured by the synthetic TPU (the hardware's stand-in) and the fastest becomes the incumbent,
// and every few dozen measurements a copy of the model is fine-tuned on them; without measuring,
// the best-scored value wins. When a whole pass gains nothing, mutants and crossovers of the
// best-scored configurations are scored and the best of them measured. Deterministic for a seed
// and a round limit.
class ConfigSearch {
public:
    using Progress = std::function<void(const TuneProgress&)>;
    // `predictor` must outlive the search; it gives the reports (score, rank among the file's
    // configurations, predicted and synthetic-TPU runtime; before the file is scored, an unranked
    // predictor's: the score and the synthetic TPU's runtime). Throws FormatError when the file has
    // nothing to tune or an option is out of range.
    ConfigSearch(const whatif::WhatIfPredictor& predictor, TuneOptions options);
    ~ConfigSearch();
    ConfigSearch(const ConfigSearch&) = delete;
    ConfigSearch& operator=(const ConfigSearch&) = delete;

    // Runs on the calling thread until the budget, the round limit or a cancel; a cancelled
    // search still returns what it found.
    TuneResult run(const Progress& progress = {}, const nn::CancelToken* cancel = nullptr);

private:
    struct State;
    const whatif::WhatIfPredictor& m_predictor;
    TuneOptions m_options;
};

// The rows of the file a search starts its population from: its best by the model (once the
// file is scored, WhatIfPredictor::isRanked) and then its fastest measured, limits::kFileSeeds of
// each; a row can be in both.
std::vector<int64_t> fileSeedRows(const whatif::WhatIfPredictor& predictor);

// Checks options against their limits (TuneLimits.h); throws FormatError naming the option.
void checkTuneOptions(const TuneOptions& options);

}  // namespace tpg::tune
