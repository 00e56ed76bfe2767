#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "tune/ConfigSearch.h"
#include "whatif/WhatIfPredictor.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTreeWidget;

namespace tpg {

class JobRunner;

// "Suggest faster configurations": the model-guided search (tune::ConfigSearch) from the
// what-if editor's current configuration, on a worker of its own (edits stay responsive), with
// live progress (round, candidates, best so far; the fastest measured listed as they come) and
// Stop. The results list the synthetic TPU's and the model's runtimes and their difference from
// the current configuration (before the file is scored, the model's score, ranked in place once
// it is); a result loads into the editor (one undoable edit) or is compared with the current one
// in the Explain tab.
class SuggestionPanel : public QWidget {
    Q_OBJECT
public:
    explicit SuggestionPanel(QWidget* parent = nullptr);
    ~SuggestionPanel() override;

    // The predictor of the open file (null: none yet), ranked or not: a search need not wait for
    // the file's scoring. A new one stops a running search.
    void setPredictor(std::shared_ptr<const whatif::WhatIfPredictor> predictor);
    // The file scored: when `ranked` is the ranked form of the panel's predictor (one synthetic
    // TPU), the suggestions listed are ranked in place and a running search goes on (its results
    // are ranked when it ends); else as setPredictor.
    void rankWith(std::shared_ptr<const whatif::WhatIfPredictor> ranked);
    // What "vs current" compares with: the editor's configuration and its report.
    void setCurrent(const std::vector<float>& row, const whatif::WhatIfReport& report);

    void suggest();  // from the current configuration, with the budget and measure settings
    void stop();
    bool running() const { return m_job != 0; }
    void setBudgetSeconds(int seconds);
    const std::vector<tune::TunedConfig>& results() const { return m_results; }
    QTreeWidget* resultList() const { return m_list; }
    QString statusText() const;
    QPushButton* suggestButton() const { return m_suggest; }
    QPushButton* stopButton() const { return m_stop; }
    // The status line while a search runs from a configuration of `startNs` by the synthetic TPU.
    static QString progressText(const tune::TuneProgress& p, double startNs);

signals:
    void loadRequested(const std::vector<float>& row, const QString& label);
    void compareRequested(const std::vector<float>& row, const QString& label);
    void finished();  // a search ended (done, stopped or failed)

private:
    void buildUi();
    void showProgress(const tune::TuneProgress& p);
    void showResults(const tune::TuneResult& r);
    // The search's best against the file's fastest measured configuration, or nothing.
    QString againstFastestMeasured(double bestNs) const;
    // The list of m_results. The selection follows its configuration when the list changes under
    // it (a running search): `keepSelected` is selected again when listed, else the first row
    // when `selectFirst`.
    void fillList(const std::vector<float>& keepSelected, bool selectFirst);
    int selectedResult() const;              // an index into m_results, or -1
    std::vector<float> selectedRow() const;  // empty when nothing is selected
    void updateActions();  // Load and Compare: only with a suggestion selected
    // Suggest and Stop enabled for a running search or not, the keyboard focus moved with them.
    void showRunning(bool running);
    QString idleText() const;
    // Evaluates the listed suggestions with the ranked predictor (one job): their ranks and
    // predicted runtimes, where they were found before the file was scored.
    void rankResults();
    void showRanked(const std::vector<whatif::WhatIfReport>& reports);

    JobRunner* m_runner;
    std::shared_ptr<const whatif::WhatIfPredictor> m_predictor;
    std::vector<float> m_currentRow;
    whatif::WhatIfReport m_currentReport;
    bool m_haveCurrent = false;
    quint64 m_job = 0;
    quint64 m_rankJob = 0;
    std::shared_ptr<nn::CancelToken> m_stopToken;  // Stop: the search ends early and keeps its results
    std::vector<tune::TunedConfig> m_results;
    std::shared_ptr<const std::vector<tune::TunedConfig>>
        m_shownFastest;  // a running search's list shown
    double m_startNs = 0;
    QString m_rankedResultText;  // the last search's summary, without "their ranks come once..."

    QPushButton* m_suggest;
    QPushButton* m_stop;
    QSpinBox* m_budget;
    QSpinBox* m_measure;
    QProgressBar* m_progress;
    QLabel* m_status;
    QTreeWidget* m_list;
    QPushButton* m_load;
    QPushButton* m_compare;
};

}  // namespace tpg

Q_DECLARE_METATYPE(tpg::tune::TuneProgress)
Q_DECLARE_METATYPE(tpg::tune::TuneResult)
