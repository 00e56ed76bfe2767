#include "FilePredictions.h"

#include <QObject>
#include <algorithm>
#include <chrono>
#include <numeric>

#include "CountText.h"
#include "JobRunner.h"
#include "NnLimits.h"
#include "WidgetLimits.h"
#include "explain/CostExplanation.h"
#include "metrics/Metrics.h"

namespace tpg {

QVariant evaluateRows(const whatif::WhatIfPredictor& predictor,
                      const std::vector<std::vector<float>>& rows, const JobControl& control) {
    std::vector<whatif::WhatIfReport> reports;
    reports.reserve(rows.size());
    for (size_t i = 0; i < rows.size() && !control.cancelled(); ++i)
        reports.push_back(predictor.evaluate(rows[i]));
    return QVariant::fromValue(reports);
}

std::vector<int64_t> sharedRanks(const std::vector<double>& values) {
    std::vector<int64_t> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return values[static_cast<size_t>(a)] < values[static_cast<size_t>(b)]; });
    std::vector<int64_t> rank(values.size());
    for (size_t i = 0; i < order.size(); ++i) {
        const auto c = static_cast<size_t>(order[i]);
        const bool tied = i > 0 && values[c] == values[static_cast<size_t>(order[i - 1])];
        rank[c] = tied ? rank[static_cast<size_t>(order[i - 1])] : static_cast<int64_t>(i) + 1;
    }
    return rank;
}

QString FilePredictions::agreementText() const {
    if (std::isnan(kendall))
        // Measured, but with no two runtimes to order (one configuration, or all alike): said so,
        // where it read "Runtimes unknown" beside the file's measured runtime.
        return predictor && predictor->graph().runtimesKnown()
                   ? QObject::tr("No two measured runtimes differ here: no order to agree with.")
                   : QObject::tr("Runtimes unknown: no agreement with measurements to show.");
    auto pct = [](double v) { return std::isnan(v) ? QStringLiteral("–") : QStringLiteral("%1%").arg(100 * v, 0, 'f', 1); };
    return QObject::tr("Model vs measured on this file: Kendall %1 · OPA %2 · top-1 slowdown %3 · top-5 %4")
        .arg(kendall, 0, 'f', 3)
        .arg(opa, 0, 'f', 3)
        .arg(pct(top1), pct(top5));
}

namespace {

// A deflated or Fortran-ordered layout table decodes in the background, and every step below
// reads its rows: wait for it here, saying so, rather than inside the first read with nothing on
// the status line (a 3.7 GB Fortran-ordered table took 13 s). Returns false when cancelled.
bool waitForConfigurations(const TpuGraph& g, JobControl& control, const QString& configurations) {
    const auto& table = g.isLayout() ? g.layoutConfigs() : nullptr;
    if (!table) return true;
    // A failed decode is reported by the first read, naming the file.
    return table->waitForRows(
        table->numConfigs(),
        [&](double progress) {
            control.setProgress(0.0, QObject::tr("Decompressing %1 (%2%)")
                                         .arg(configurations)
                                         .arg(static_cast<int>(progress * 100)));
            return !control.cancelled();
        },
        std::chrono::milliseconds(widgetlimits::kDecodeProgressPollMs));
}

}  // namespace

std::shared_ptr<FilePredictions> predictFile(const QString& file,
                                             const std::shared_ptr<const TpuGraph>& graph,
                                             const nn::CostModel& model, JobControl& control,
                                             bool sameModel) {
    const TpuGraph& g = *graph;
    auto out = std::make_shared<FilePredictions>();
    out->file = file;
    out->modelName = QString::fromStdString(model.label());
    const int64_t n = g.numConfigs();
    const QString configurations =
        countOf(n, QObject::tr("configuration"), QObject::tr("configurations"));
    const QString indexing =
        QObject::tr("Finding which of %1 compile to one program").arg(configurations);
    const QString scoring = QObject::tr("Predicting %1").arg(configurations);
    nn::CancelToken cancel;
    if (!waitForConfigurations(g, control, configurations)) return nullptr;
    const auto unranked = std::make_shared<whatif::WhatIfPredictor>(
        graph, model, whatif::WhatIfPredictor::Unranked{});
    control.post(QVariant::fromValue(UnrankedPredictor{file, out->modelName, unranked, sameModel}));
    if (control.cancelled()) return nullptr;
    // The bar, each phase its share of the time (so the explorer's ETA holds): where configurations
    // of one program share a score, the program index to 6% (a synthetic TPU pass per
    // configuration, 5-7% of the scoring's time on big files: kProgramIndexShare), which times
    // every configuration on the way, then the scores to 95% and the violation ratios to 100%; else
    // the scores to 80% and the synthetic TPU's timings to 100%.
    const bool indexed = model.indexesPrograms(g);
    const double scoresFrom = indexed ? nn::limits::kProgramIndexShare : 0.0;
    const double lastFrom = indexed ? 0.95 : 0.8;
    auto phase = [&control, &cancel](double from, double width, const QString& what) {
        return [&control, &cancel, from, width, what](int64_t done, int64_t total) {
            if (control.cancelled()) cancel.cancel();
            const double share =
                static_cast<double>(done) / static_cast<double>(std::max<int64_t>(1, total));
            control.setProgress(from + width * share, what);
        };
    };
    out->predictor = unranked->ranked(phase(scoresFrom, lastFrom - scoresFrom, scoring), &cancel,
                                      phase(0.0, scoresFrom, indexing));
    const std::vector<double>& scores = out->predictor->scores();
    out->predictedRank = sharedRanks(scores);
    if (g.runtimesKnown()) {
        out->predictedNs.reserve(scores.size());
        for (double s : scores) out->predictedNs.push_back(out->predictor->predictedNs(s));
        std::vector<double> truth(static_cast<size_t>(n));
        for (int64_t c = 0; c < n; ++c) truth[static_cast<size_t>(c)] = g.normalizedRuntime(c);
        out->kendall = metrics::kendallTau(scores, truth);
        out->opa = metrics::orderedPairAccuracy(scores, truth);
        out->top1 = metrics::topKSlowdown(scores, truth, 1);
        out->top5 = metrics::topKSlowdown(scores, truth, 5);
    }
    // The program index timed every configuration already (layout, programs sharing a score).
    out->synthNs = out->predictor->indexedSynthNs();
    const bool timed = !out->synthNs.empty();
    out->synthNs.resize(static_cast<size_t>(n));
    if (g.isLayout()) out->violationRatio.resize(static_cast<size_t>(n));
    const QString last =
        timed ? QObject::tr("Computing the violation ratios of %1").arg(configurations)
              : QObject::tr("Timing %1 on the synthetic TPU").arg(configurations);
    for (int64_t c = 0; c < n; ++c) {
        if (control.cancelled()) return nullptr;
        const std::vector<float> row = out->predictor->row(c);
        if (!timed) out->synthNs[static_cast<size_t>(c)] = out->predictor->synthRuntime(row);
        if (g.isLayout()) out->violationRatio[static_cast<size_t>(c)] = explain::violationRatio(g, row.data());
        control.setProgress(
            lastFrom + (1 - lastFrom) * static_cast<double>(c + 1) / static_cast<double>(n), last);
    }
    if (g.runtimesKnown()) out->synthKendall = metrics::kendallTau(out->synthNs, g.runtimes());
    return out;
}

}  // namespace tpg
