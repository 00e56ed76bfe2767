#include "SuggestionPanel.h"

#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "CountText.h"
#include "FilePredictions.h"
#include "FocusKeepingEnable.h"
#include "JobRunner.h"
#include "RuntimeText.h"
#include "WidgetLimits.h"
#include "WrappedLabel.h"
#include "tune/TuneLimits.h"

namespace tpg {

namespace {

QString ns(double v) { return nsText(v, QStringLiteral("–")); }
QString change(double now, double reference) { return changeText(now, reference); }

enum Column { Number, Synth, VsCurrent, Predicted, Rank, Measured, Columns };
constexpr qint64 kProgressIntervalMs = 100;  // progress posts to the GUI: ten a second

// Found before the file was scored: evaluated (a running search's list is not, configs 0) and
// without a rank.
bool foundBeforeRanking(const whatif::WhatIfReport& r) {
    return r.configs > 0 && r.unranked();
}

}  // namespace

SuggestionPanel::SuggestionPanel(QWidget* parent) : QWidget(parent), m_runner(new JobRunner(QStringLiteral("tune"), this)) {
    qRegisterMetaType<tune::TuneProgress>();
    qRegisterMetaType<tune::TuneResult>();
    buildUi();
    connect(m_runner, &JobRunner::partial, this, [this](quint64 id, const QVariant& v) {
        if (id == m_job) showProgress(v.value<tune::TuneProgress>());
    });
    connect(m_runner, &JobRunner::finished, this, [this](quint64 id, const QVariant& v) {
        if (id == m_rankJob) {
            m_rankJob = 0;
            showRanked(v.value<std::vector<whatif::WhatIfReport>>());
            return;
        }
        if (id != m_job) return;  // a stale search (another file, a newer request)
        m_job = 0;
        showResults(v.value<tune::TuneResult>());
        rankResults();  // found while the file was scored, which ended meanwhile
        emit finished();
    });
    connect(m_runner, &JobRunner::failed, this, [this](quint64 id, const QString& message) {
        if (id == m_rankJob) {
            m_rankJob = 0;
            m_status->setText(tr("Cannot rank the suggestions: %1").arg(message));
            return;
        }
        if (id != m_job) return;
        m_job = 0;
        m_status->setText(tr("Cannot search: %1").arg(message));
        showRunning(false);
        m_progress->hide();
        emit finished();
    });
    setPredictor(nullptr);
}

SuggestionPanel::~SuggestionPanel() { m_runner->cancelAll(); }

void SuggestionPanel::buildUi() {
    m_suggest = new QPushButton(tr("Suggest faster configurations"), this);
    m_suggest->setToolTip(tr("Search from the current configuration: the cost model proposes, the synthetic TPU measures "
                             "the best of each round, and the model is fine-tuned on what was measured"));
    m_stop = new QPushButton(tr("Stop"), this);
    m_budget = new QSpinBox(this);
    m_budget->setRange(1, 3600);
    m_budget->setValue(static_cast<int>(tune::limits::kDefaultBudgetSeconds));
    m_budget->setSuffix(tr(" s"));
    m_budget->setToolTip(tr("Wall-clock budget of the search"));
    m_measure = new QSpinBox(this);
    m_measure->setRange(0, tune::limits::kMaxMeasurePerRound);
    m_measure->setValue(tune::limits::kDefaultMeasurePerRound);
    m_measure->setToolTip(tr("Candidates measured by the synthetic TPU per round (0: the model alone decides)"));
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(10);
    m_status = new WrappedLabel(this);
    m_list = new QTreeWidget(this);
    m_list->setHeaderLabels({tr("#"), tr("Synthetic TPU"), tr("vs current"), tr("Predicted"), tr("Rank"), tr("Measured")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_load = new QPushButton(tr("Load into editor"), this);
    m_load->setObjectName(QStringLiteral("loadSuggestion"));
    m_load->setToolTip(tr("Make the selected suggestion the current configuration (one undoable edit)"));
    m_compare = new QPushButton(tr("Compare with current"), this);
    m_compare->setToolTip(tr("Explain what differs between the current configuration and the selected suggestion"));

    connect(m_suggest, &QPushButton::clicked, this, &SuggestionPanel::suggest);
    connect(m_stop, &QPushButton::clicked, this, &SuggestionPanel::stop);
    auto emitFor = [this](bool load) {
        const int i = selectedResult();
        if (i < 0) return;
        const tune::TunedConfig& t = m_results[static_cast<size_t>(i)];
        const QString label = tr("suggestion #%1 (%2)").arg(i + 1).arg(ns(t.report.synthNs));
        if (load) emit loadRequested(t.row, label);
        else emit compareRequested(t.row, label);
    };
    connect(m_load, &QPushButton::clicked, this, [emitFor] { emitFor(true); });
    connect(m_compare, &QPushButton::clicked, this, [emitFor] { emitFor(false); });
    connect(m_list, &QTreeWidget::itemDoubleClicked, this, [emitFor] { emitFor(true); });
    connect(m_list, &QTreeWidget::itemSelectionChanged, this, &SuggestionPanel::updateActions);

    // The buttons and the search's settings on two rows: on one, the panel asked 579 px, more than
    // the what-if dock's runs column has on a laptop's screen beside a whole node list.
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_suggest);
    controls->addWidget(m_stop);
    controls->addStretch(1);
    auto* settings = new QHBoxLayout;
    settings->addWidget(new QLabel(tr("Budget"), this));
    settings->addWidget(m_budget);
    settings->addWidget(new QLabel(tr("Measure per round"), this));
    settings->addWidget(m_measure);
    settings->addStretch(1);
    auto* actions = new QHBoxLayout;
    actions->addWidget(m_load);
    actions->addWidget(m_compare);
    actions->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addLayout(settings);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_list, 1);
    layout->addLayout(actions);
    m_list->setMinimumHeight(m_list->header()->sizeHint().height() + 2 * m_list->frameWidth() +
                             widgetlimits::kSuggestionListMinRows *
                                 (m_list->fontMetrics().height() + 4));
}

void SuggestionPanel::setPredictor(std::shared_ptr<const whatif::WhatIfPredictor> predictor) {
    if (m_stopToken) m_stopToken->cancel();
    if (m_job) m_runner->cancel(m_job);
    m_job = 0;
    m_runner->cancelLane(QStringLiteral("rank"));
    m_rankJob = 0;
    m_predictor = std::move(predictor);
    m_haveCurrent = false;
    m_results.clear();
    m_shownFastest.reset();
    m_list->clear();
    m_progress->hide();
    showRunning(false);
    m_load->setEnabled(false);
    m_compare->setEnabled(false);
    m_status->setText(idleText());
}

QString SuggestionPanel::idleText() const {
    if (!m_predictor) return tr("Preparing the cost model for this file…");
    if (m_predictor->isRanked())
        return tr("Search for configurations faster than the current one.");
    return tr(
        "Search for configurations faster than the current one. Their ranks among this "
        "file's configurations come once they are scored.");
}

void SuggestionPanel::rankWith(std::shared_ptr<const whatif::WhatIfPredictor> ranked) {
    const bool sameScoring = m_predictor && ranked && ranked->ranks(*m_predictor);
    if (!sameScoring) {
        setPredictor(std::move(ranked));
        return;
    }
    m_predictor = std::move(ranked);  // a running search keeps the unranked one it holds
    if (!m_job && m_results.empty()) m_status->setText(idleText());
    rankResults();
}

void SuggestionPanel::rankResults() {
    if (m_job || !m_predictor || !m_predictor->isRanked()) return;
    if (std::none_of(m_results.begin(), m_results.end(),
                     [](const tune::TunedConfig& t) { return foundBeforeRanking(t.report); }))
        return;
    std::vector<std::vector<float>> rows;
    rows.reserve(m_results.size());
    for (const tune::TunedConfig& t : m_results) rows.push_back(t.row);
    auto predictor = m_predictor;
    m_rankJob = m_runner->submit(QStringLiteral("rank"),
                                 [predictor, rows = std::move(rows)](JobControl& job) {
                                     return evaluateRows(*predictor, rows, job);
                                 });
}

void SuggestionPanel::showRanked(const std::vector<whatif::WhatIfReport>& reports) {
    if (m_job || reports.size() != m_results.size()) return;  // a new search or list since
    for (size_t i = 0; i < reports.size(); ++i) m_results[i].report = reports[i];
    fillList(selectedRow(), false);
    m_status->setText(m_rankedResultText);
}

void SuggestionPanel::setCurrent(const std::vector<float>& row, const whatif::WhatIfReport& report) {
    m_currentRow = row;
    m_currentReport = report;
    m_haveCurrent = true;
    if (!m_results.empty()) fillList(selectedRow(), false);  // "vs current" follows the editor
}

void SuggestionPanel::setBudgetSeconds(int seconds) { m_budget->setValue(seconds); }

void SuggestionPanel::suggest() {
    if (!m_predictor || !m_haveCurrent) return;
    m_runner->cancelLane(QStringLiteral("rank"));  // the list it would rank is replaced
    m_rankJob = 0;
    tune::TuneOptions o;
    o.budgetSeconds = m_budget->value();
    o.measurePerRound = m_measure->value();
    o.startRow = m_currentRow;
    o.startLabel = "the current configuration";
    o.top = tune::limits::kDefaultTop;
    auto predictor = m_predictor;
    m_results.clear();
    m_shownFastest.reset();
    m_list->clear();
    m_startNs = m_currentReport.synthNs;
    m_progress->setValue(0);
    m_progress->show();
    showRunning(true);
    m_status->setText(tr("Searching from the current configuration (%1 %2)…")
                          .arg(ns(m_startNs), bySynthTpuText(predictor->synthIsGroundTruth())));
    m_stopToken = std::make_shared<nn::CancelToken>();
    auto token = m_stopToken;
    m_job = m_runner->submit(QStringLiteral("tune"), [predictor, o, token](JobControl& control) {
        tune::ConfigSearch search(*predictor, o);
        QElapsedTimer sincePost;  // rounds can be milliseconds apart: a few updates a second suffice
        const tune::TuneResult r = search.run(
            [&](const tune::TuneProgress& p) {
                if (control.cancelled()) token->cancel();  // superseded: its result is dropped anyway
                if (sincePost.isValid() && sincePost.elapsed() < kProgressIntervalMs) return;
                sincePost.start();
                control.post(QVariant::fromValue(p));
            },
            token.get());
        return QVariant::fromValue(r);
    });
}

// Suggest hands the focus to Stop, Stop to the results (setEnabledKeepingFocus: not to the Budget
// box next to them).
void SuggestionPanel::showRunning(bool running) {
    if (running) {
        setEnabledKeepingFocus({{m_stop, true}, {m_suggest, false}});
        return;
    }
    std::vector<std::pair<QWidget*, bool>> byPreference;
    if (!m_results.empty()) byPreference.emplace_back(m_list, true);
    byPreference.emplace_back(m_suggest, m_predictor != nullptr);
    byPreference.emplace_back(m_stop, false);
    setEnabledKeepingFocus(byPreference);
}

void SuggestionPanel::stop() {
    if (!m_job || !m_stopToken) return;
    m_stopToken->cancel();
    setEnabledKeepingFocus({{m_list, true}, {m_stop, false}});
    m_status->setText(tr("Stopping… (the results so far follow)"));
}

void SuggestionPanel::showProgress(const tune::TuneProgress& p) {
    m_progress->setValue(static_cast<int>(1000 * std::min(1.0, p.elapsedSeconds / std::max(1e-9, p.budgetSeconds))));
    m_status->setText(progressText(p, m_startNs));
    // The list so far, when it changed: a long search's best can be loaded before it ends.
    if (p.fastestMeasured && p.fastestMeasured != m_shownFastest) {
        m_shownFastest = p.fastestMeasured;
        const std::vector<float> selected = selectedRow();
        m_results = *p.fastestMeasured;
        fillList(selected, false);
    }
}

QString SuggestionPanel::progressText(const tune::TuneProgress& p, double startNs) {
    QString text =
        tr("Round %1 · %2 candidates scored by the model · %3 measured")
            .arg(countText(p.round), countText(p.candidatesScored), countText(p.measured));
    if (p.bestMeasuredNs >= 0)
        text += tr(" · best measured %1 (%2 vs current)")
                    .arg(ns(p.bestMeasuredNs), change(p.bestMeasuredNs, startNs));
    // Measuring, the fine-tuned copy's favourites are what matter; the file's model's prediction
    // for them would only confuse. By the model alone, its best prediction is the progress.
    if (p.measured == 0 && p.bestPredictedNs >= 0) text += tr(" · best predicted %1").arg(ns(p.bestPredictedNs));
    return text;
}

void SuggestionPanel::showResults(const tune::TuneResult& r) {
    const std::vector<float> selected = selectedRow();
    m_results = r.top;
    m_progress->hide();
    showRunning(false);
    const double best = m_results.empty() ? -1 : m_results.front().report.synthNs;
    const bool ranksToCome = !m_results.empty() && foundBeforeRanking(m_results.front().report);
    const QString how = r.cancelled ? tr("Stopped after %1 s").arg(r.seconds, 0, 'f', 1)
                                    : tr("Searched for %1 s").arg(r.seconds, 0, 'f', 1);
    QString text =
        tr("%1: %2, %3 scored, %4 measured.")
            .arg(how, countOf(static_cast<int64_t>(r.rounds.size()), tr("round"), tr("rounds")),
                 countOf(r.candidatesScored, tr("candidate"), tr("candidates")),
                 countText(r.measured));
    if (r.exhausted)
        text += tr(" It had scored all it could reach, so it ended before its budget.");
    if (best >= 0)
        text +=
            best < m_startNs
                ? tr(" The best is %1% faster than the configuration the search started from, by "
                     "the synthetic TPU%2.")
                      .arg(100.0 * (1.0 - best / m_startNs), 0, 'f', 1)
                      .arg(m_predictor && m_predictor->synthIsGroundTruth()
                               ? tr(" (ground truth for this synthetic file)")
                               : tr(" (an estimate for this file: measure it on a TPU)"))
                : tr(" Nothing faster than the configuration the search started from was found.");
    text += againstFastestMeasured(best);
    m_rankedResultText = text;
    if (ranksToCome)
        text += tr(" Their ranks among this file's configurations come once they are scored.");
    m_status->setText(text);
    fillList(selected, true);
}

QString SuggestionPanel::againstFastestMeasured(double bestNs) const {
    // Only where the synthetic TPU is the file's own clock: a real file's measured runtimes and
    // the synthetic TPU's estimates are not on one scale.
    if (bestNs < 0 || !m_predictor || !m_predictor->synthIsGroundTruth()) return {};
    const double fastest = m_predictor->bestMeasuredNs();
    // Started from it (its runtime in whole ns, as the file holds it), the sentence before said it.
    if (fastest <= 0 || std::llround(fastest) == std::llround(m_startNs)) return {};
    const double gain = 100.0 * (1.0 - bestNs / fastest);
    return gain > 0 ? tr(" That is %1% faster than the file's fastest measured configuration (%2).")
                          .arg(gain, 0, 'f', 1)
                          .arg(ns(fastest))
                    : tr(" The file's fastest measured configuration (%1) is %2% faster than the "
                         "search's best.")
                          .arg(ns(fastest))
                          .arg(100.0 * (bestNs / fastest - 1.0), 0, 'f', 1);
}

void SuggestionPanel::fillList(const std::vector<float>& keepSelected, bool selectFirst) {
    m_list->clear();
    const double currentNs = m_haveCurrent ? m_currentReport.synthNs : m_startNs;
    QTreeWidgetItem* reselect = nullptr;
    for (size_t i = 0; i < m_results.size(); ++i) {
        const tune::TunedConfig& t = m_results[i];
        const whatif::WhatIfReport& r = t.report;
        auto* item = new QTreeWidgetItem(m_list);
        item->setText(Number, QString::number(i + 1));
        item->setText(Synth, ns(r.synthNs));
        item->setText(VsCurrent, change(r.synthNs, currentNs));
        if (foundBeforeRanking(r)) {
            item->setText(Predicted, scoreText(r.score));
            item->setText(Rank, tr("…"));
            item->setToolTip(Rank, tr("Ranked once the file's configurations are scored"));
        } else if (r.configs > 0) {
            item->setText(Predicted, boundPrefix(r.beyondFit) + ns(r.predictedNs));
            item->setText(Rank, tr("%1 of %2").arg(countText(r.rank), countText(r.configs)));
        } else {  // a running search's list: the file's model scores it when the search ends
            for (int c : {Predicted, Rank}) {
                item->setText(c, tr("…"));
                item->setToolTip(c, tr("The file's model scores the list when the search ends"));
            }
        }
        item->setText(Measured, t.measured ? tr("yes") : tr("no (model only)"));
        item->setData(Number, Qt::UserRole, static_cast<int>(i));
        for (int c = Synth; c < Columns; ++c) item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        if (!keepSelected.empty() && t.row == keepSelected) reselect = item;
    }
    if (!reselect && selectFirst && m_list->topLevelItemCount() > 0)
        reselect = m_list->topLevelItem(0);
    if (reselect) m_list->setCurrentItem(reselect);
    updateActions();  // clear() need not signal that the selection went
}

void SuggestionPanel::updateActions() {
    m_load->setEnabled(selectedResult() >= 0);
    m_compare->setEnabled(selectedResult() >= 0 && m_haveCurrent);
}

std::vector<float> SuggestionPanel::selectedRow() const {
    const int i = selectedResult();
    return i >= 0 ? m_results[static_cast<size_t>(i)].row : std::vector<float>{};
}

int SuggestionPanel::selectedResult() const {
    const QTreeWidgetItem* item = m_list->currentItem();
    if (!item) return -1;
    const int i = item->data(Number, Qt::UserRole).toInt();
    return i >= 0 && i < static_cast<int>(m_results.size()) ? i : -1;
}

QString SuggestionPanel::statusText() const { return m_status->text(); }

}  // namespace tpg
