#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "CancelToken.h"
#include "CostModel.h"
#include "graph/TpuGraph.h"
#include "metrics/IsotonicFit.h"

namespace tpg::synth {
class TpuCostModel;
}

// The what-if predictor: a file's configurations scored once by a cost model, so that any edited
// configuration row can be placed among them at once (the explorer's editor and `tpugraphs
// whatif` share it).
namespace tpg::whatif {

struct WhatIfReport {
    double score = 0;           // the model's score (lower = faster)
    double predictedNs = -1;    // the score through the monotone fit on measured configs; -1 unknown
    // -1: scored faster than every measured config, so predictedNs (the fastest fitted runtime) is
    // an upper bound; +1: slower than all of them, a lower bound; 0: within the fit, or no fit
    // (nonzero only where predictedNs is known).
    int beyondFit = 0;
    int64_t rank = 0;  // 1-based among the file's configs by predicted score (ties share);
                       // 0 while the file is unscored (WhatIfPredictor::isRanked)
    int64_t configs = 0;
    int64_t matchingRow = -1;   // a row of the file equal to this configuration, if any
    double matchingRuntimeNs = -1;  // its measured runtime (-1: unknown, e.g. test split)
    // Layout, when no row equals it: a row the compiler makes the same program of (the synthetic
    // TPU's model of the compiler: exact on synthetic files, an estimate on real ones), whose
    // shared score it takes, and that row's measured runtime (-1: unknown).
    int64_t sameProgramRow = -1;
    double sameProgramRuntimeNs = -1;
    double synthNs = 0;         // the synthetic TPU's runtime for this configuration
    int64_t nearestRow = -1;    // the closest measured configuration...
    int64_t nearestDistance = 0;  // ...differing in this many configurable nodes (tile: bounds)
    bool extrapolating = false;   // further from every measured config than they are from each other
    // Tile: the bound columns whose value lies outside the range the file's configurations span
    // (WhatIfPredictor::boundRange): tiles this kernel was never measured with, where the model's
    // prediction extrapolates however near a measured configuration is.
    std::vector<int> boundsOutsideFile;

    // Evaluated before the file's configurations were scored: a score and no rank yet.
    bool unranked() const { return rank == 0; }
};

// How `now` compares with `before` where their runtimes cannot tell (either lies beyond the fit,
// clamped there, so equal runtimes need not mean equal predictions): -1 faster by score, +1 slower
// by score; 0 when the runtimes compare them.
int changeByScoreOnly(const WhatIfReport& now, const WhatIfReport& before);

// The values one tile bound takes over a file's configurations, 0 read as the whole dimension.
struct BoundRange {
    float low = 0, high = 0;
    bool known = false;  // false: not a bound of a known dimension, or no configurations
    bool contains(float value) const { return !known || (value >= low && value <= high); }
};

// Where a what-if session starts: a row of the file, the compiler default, the best measured or
// the best predicted configuration. Parsed from "C", "default", "best" or "predicted-best".
struct StartPoint {
    enum class Kind { Row, Default, BestMeasured, BestPredicted } kind = Kind::Default;
    int64_t row = 0;
    // Throws FormatError naming `option`, the command line's name for the text.
    static StartPoint parse(const std::string& text, const std::string& option = "--from");
    // Throws FormatError when `g` has no such start (a row out of range, no runtimes for "best").
    void check(const TpuGraph& g) const;
    std::string text() const;
};

class WhatIfPredictor {
public:
    // Scores every configuration of `graph` (progress and cancel as CostModel::scoreAll): the
    // reference for ranks. Throws FormatError when the model cannot score the file.
    // `indexing` hears the program index, which comes first where configurations of one program
    // share a score (a synthetic TPU pass each), `progress` the scores.
    WhatIfPredictor(std::shared_ptr<const TpuGraph> graph, const nn::CostModel& model,
                    const nn::CostModel::Progress& progress = {},
                    const nn::CancelToken* cancel = nullptr,
                    const nn::CostModel::Progress& indexing = {});
    // Ready for edits at once, the file's configurations unscored: an edit gets its score, the
    // synthetic TPU's runtime and its nearest rows, but rank 0 and no predicted runtime, until
    // ranked() has scored the file (minutes on a 45,000-node file).
    struct Unranked {};
    WhatIfPredictor(std::shared_ptr<const TpuGraph> graph, const nn::CostModel& model, Unranked);
    ~WhatIfPredictor();
    WhatIfPredictor(const WhatIfPredictor&) = delete;
    WhatIfPredictor& operator=(const WhatIfPredictor&) = delete;

    // This predictor with the file's configurations scored, sharing its synthetic TPU. Throws
    // FormatError when the model cannot score the file or `cancel` stops it. `indexing` reports
    // the pass that finds which configurations compile to one program (layout, before scoring;
    // a synthetic TPU pass per configuration, ~2 ms each on 45,000 nodes).
    std::shared_ptr<WhatIfPredictor> ranked(const nn::CostModel::Progress& progress = {},
                                            const nn::CancelToken* cancel = nullptr,
                                            const nn::CostModel::Progress& indexing = {}) const;
    bool isRanked() const { return m_ranked; }
    // True when this is `unranked` with the file scored (ranked(): one synthetic TPU), so what
    // was evaluated with `unranked` can be ranked in place rather than started again.
    bool ranks(const WhatIfPredictor& unranked) const {
        return m_ranked && !unranked.m_ranked && m_synth == unranked.m_synth;
    }

    const TpuGraph& graph() const { return *m_graph; }
    const nn::CostModel& model() const { return m_model; }
    const std::vector<double>& scores() const {
        return m_scores;
    }  // per file config; empty unranked
    // True when the file's runtimes are the synthetic TPU's own (a synthetic file); else its
    // runtime is an analytic estimate.
    bool synthIsGroundTruth() const { return m_synthIsGroundTruth; }
    // The synthetic TPU of the file (thread-safe: explanations may run on any worker).
    const synth::TpuCostModel& synthTpu() const { return *m_synth; }
    double bestMeasuredNs() const { return m_bestMeasuredNs; }  // -1 when runtimes are unknown
    int64_t bestMeasuredRow() const { return m_bestMeasuredRow; }
    int64_t bestPredictedRow() const { return m_bestPredictedRow; }  // -1 unranked
    double predictedNs(double score) const;  // -1 when runtimes are unknown
    // The synthetic TPU's ns; layout: with `programKey`, also the key of the program `row` compiles to.
    double synthRuntime(const std::vector<float>& row, uint64_t* programKey = nullptr) const;
    // Every configuration's synthetic TPU ns when the program index computed them on the way
    // (ranked layout files with scores shared within programs); else empty.
    const std::vector<double>& indexedSynthNs() const { return m_indexedSynthNs; }

    // Tile: the range `column`'s bound spans over the file's configurations; unknown elsewhere.
    BoundRange boundRange(int column) const;
    // `value` as the synthetic TPU reads bound `column` (TpuCostModel::tileBoundSize); as given
    // where the bound has no dimension.
    float effectiveBound(int column, float value) const;

    int64_t rowWidth() const;  // values per configuration row
    std::vector<float> row(int64_t config) const;
    std::vector<float> defaultRow() const;  // layout: all -1; tile: the compiler-like default
    std::vector<float> startRow(const StartPoint& start) const;

    // Thread-safe. Consecutive calls on rows that differ in a few configurable nodes (an edit)
    // update the previous call's distances to every measured config instead of rescanning them.
    WhatIfReport evaluate(const std::vector<float>& row) const;

private:
    // ranked(): `unranked`'s graph, model and synthetic TPU, the file then scored.
    WhatIfPredictor(const WhatIfPredictor& unranked, const nn::CostModel::Progress& progress,
                    const nn::CancelToken* cancel, const nn::CostModel::Progress& indexing);
    void scoreFile(const nn::CostModel::Progress& progress, const nn::CancelToken* cancel,
                   const nn::CostModel::Progress& indexing = {});
    int64_t distance(const float* a, const float* b) const;
    // Calls visit(firstConfig, count, rows) over every configuration row, in batches.
    template <typename Visit>
    void forEachRowBatch(Visit&& visit) const;
    void learnTypicalDistance();
    void learnBoundRanges();
    // Layout, with scores shared within programs: a row of each program among the file's rows,
    // and every row's program key (for the scoring's sharing); empty keys otherwise.
    std::vector<uint64_t> indexPrograms(const nn::CancelToken* cancel,
                                        const nn::CostModel::Progress& progress);
    // Distances from `row` to every config: incrementally from the last call's when they differ
    // in few units (nodes or tile columns), else by a full scan.
    const std::vector<int64_t>& distancesTo(const std::vector<float>& row) const;

    std::shared_ptr<const TpuGraph> m_graph;
    nn::CostModel m_model;
    std::shared_ptr<const synth::TpuCostModel> m_synth;  // shared with the ranked() copy
    bool m_ranked = false;
    std::vector<double> m_scores, m_sortedScores;
    metrics::IsotonicFit m_fit;
    bool m_synthIsGroundTruth = false;
    double m_bestMeasuredNs = -1;
    int64_t m_bestMeasuredRow = -1, m_bestPredictedRow = -1;
    int64_t m_typicalDistance = 1;
    std::vector<BoundRange> m_boundRanges;               // tile: per column of a row
    std::unordered_map<uint64_t, int64_t> m_programRow;  // program key -> its first row
    std::vector<double> m_indexedSynthNs;  // every row's synthetic TPU ns, from the program index
    mutable std::mutex m_distanceMutex;  // guards the two below
    mutable std::vector<float> m_lastRow;
    mutable std::vector<int64_t> m_lastDistances;
};

}  // namespace tpg::whatif
