#pragma once

#include <QMetaType>
#include <QString>
#include <cmath>
#include <memory>
#include <vector>

#include "CostModel.h"
#include "graph/TpuGraph.h"
#include "whatif/WhatIfPredictor.h"

namespace tpg {

class JobControl;

// What a cost model says about every configuration of one open file, and how far to trust it
// there: computed once per (file, model) on a worker, then shown by the configuration table and
// used by the what-if editor (through `predictor`).
struct FilePredictions {
    QString file;
    QString modelName;
    std::shared_ptr<whatif::WhatIfPredictor> predictor;
    std::vector<double> predictedNs;       // the score through the monotone fit; empty: unknown
    std::vector<int64_t> predictedRank;    // 1 = predicted fastest; equal scores share a rank
    std::vector<double> synthNs;           // the synthetic TPU, per config
    std::vector<double> violationRatio;    // layout: per config (explain::violationRatio); else empty
    double synthKendall = std::nan("");    // synthetic TPU vs the measured runtimes, all configs
    // Model vs measured on this file (NaN when runtimes are unknown, or no two of them differ).
    double kendall = std::nan(""), opa = std::nan(""), top1 = std::nan(""), top5 = std::nan("");

    const std::vector<double>& scores() const { return predictor->scores(); }
    bool synthIsGroundTruth() const { return predictor->synthIsGroundTruth(); }
    // "Kendall 0.71 · OPA 0.86 · top-1 slowdown 3.2% · top-5 0.0%", or why there is none.
    QString agreementText() const;
};

// A file's what-if predictor before its configurations are scored: edits can be predicted (score,
// synthetic TPU, nearest rows) while the file is scored; ranks come with FilePredictions.
struct UnrankedPredictor {
    QString file;
    QString modelName;
    std::shared_ptr<whatif::WhatIfPredictor> predictor;
    // The same model scoring the file again (after a cancelled or failed scoring): the what-if
    // session goes on, its runs' scores unchanged, where another model restarts it.
    bool sameModel = false;
};

// Scores every configuration of `graph` with `model` and times each with the synthetic TPU,
// reporting progress through `control`; returns null when cancelled. First posts an
// UnrankedPredictor through `control` (JobRunner::partial), so edits need not wait for the
// scoring (`sameModel`: the model of the last scoring, which did not end). Throws FormatError
// when the model cannot score the file.
std::shared_ptr<FilePredictions> predictFile(const QString& file,
                                             const std::shared_ptr<const TpuGraph>& graph,
                                             const nn::CostModel& model, JobControl& control,
                                             bool sameModel = false);

// Evaluates `rows` with `predictor` in order, stopping when `control` is cancelled: a list made
// before the file was scored (the editor's runs, the suggestions), ranked once it is. Returns
// the reports as a QVariant for JobRunner.
QVariant evaluateRows(const whatif::WhatIfPredictor& predictor,
                      const std::vector<std::vector<float>>& rows, const JobControl& control);

// Competition ranks (1, 2, 2, 4): lower values first, equal values share a rank.
std::vector<int64_t> sharedRanks(const std::vector<double>& values);

}  // namespace tpg

Q_DECLARE_METATYPE(std::shared_ptr<const tpg::FilePredictions>)
Q_DECLARE_METATYPE(tpg::UnrankedPredictor)
Q_DECLARE_METATYPE(tpg::whatif::WhatIfReport)
Q_DECLARE_METATYPE(std::vector<tpg::whatif::WhatIfReport>)
