#pragma once

#include <QString>
#include <QWidget>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "CostModel.h"
#include "Trainer.h"
#include "TrainingJob.h"
#include "graph/DatasetIndex.h"
#include "graph/TpuGraph.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QRadioButton;
class QScrollArea;
class QSpinBox;

namespace tpg {

class JobRunner;
class TrainingCharts;

// The Training dock: trains a cost model on the open dataset (a collection's train split,
// validated on its valid split) or on the open file's measured configurations (20% held out),
// on its own worker with its own torch thread count, while loss, OPA and Kendall plot live.
// Each run keeps its settings, metrics (metrics.jsonl, as `tpugraphs train --log`), best model
// and state in a folder of the runs folder: earlier runs overlay the plots, and a stopped or
// killed run resumes. "Use best model so far" hands the best checkpoint to the predictor.
class TrainingPanel : public QWidget {
    Q_OBJECT
public:
    using ModelProvider = std::function<nn::CostModel(Collection)>;

    explicit TrainingPanel(QWidget* parent = nullptr);
    ~TrainingPanel() override;  // stops a run (its state is saved) and joins the worker

    // Where runs are kept; lists the earlier ones (in the background).
    void setRunsFolder(const QString& folder);
    QString runsFolder() const { return m_runsFolder; }
    // The open dataset: its collections with train files become choices.
    void setDatasetFolder(const QString& folder);
    // The open file ("this file only") and the model it is predicted with (the comparison).
    void setCurrentFile(const QString& path, const TpuGraph& graph);
    void setGeneralModelProvider(ModelProvider provider) { m_generalModel = std::move(provider); }

    // The form: what Start would train with (paths filled in at start).
    nn::TrainSettings formSettings() const;
    void setFormSettings(const nn::TrainSettings& settings);
    void setThisFileOnly(bool thisFile);
    bool thisFileOnly() const;
    QStringList collectionChoices() const;
    bool chooseCollection(const QString& collection);

    void start();
    void togglePause();
    void stop();
    // Continues a stopped or killed run of the list (row in runList()).
    bool resumeRun(int row);
    bool isRunning() const { return m_job != 0; }
    bool isPaused() const;

    // The best model of the live run, else of the selected run; "" when there is none yet.
    QString bestModelPath() const;
    void useBestModel();

    TrainingCharts* charts() const { return m_charts; }
    QListWidget* runList() const { return m_runList; }
    const std::vector<SavedRun>& savedRuns() const { return m_saved; }
    QString liveRunFolder() const { return m_liveFolder; }
    QString statusText() const;
    QString comparisonText() const;
    QPushButton* startButton() const { return m_start; }
    QPushButton* pauseButton() const { return m_pause; }
    QPushButton* stopButton() const { return m_stop; }
    QPushButton* useBestButton() const { return m_useBest; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

signals:
    // Put this model into the predictor (the configuration table and what-if re-score).
    void useModelRequested(const QString& path);
    void runStarted(const QString& folder);
    void runFinished(const QString& folder, const QString& reason);
    void runFailed(const QString& message);
    void updated();  // after each batch of live metrics is shown
    void runsListed();

private:
    QWidget* buildDataBox();
    QWidget* buildSettingsBox();
    QWidget* buildControls();
    QWidget* buildRunsBox();
    void startWith(const nn::TrainSettings& settings, Collection kind, const QString& folder, const QString& title);
    QString newRunFolder() const;
    void onUpdate(const TrainingUpdate& update);
    void onFinished(const nn::TrainResult& result);
    void onFailed(const QString& message);
    void showProgress(const nn::TrainProgress& p);
    void updateComparison();
    void updateButtons();
    Collection kindOf(const nn::TrainSettings& s) const;
    // Before a run, the validation chart's legend names the figures the form's run would draw.
    void previewLiveFigures();
    void showDatasetLine();  // the chosen collection's graphs and the folder
    void showAutoChoices(Collection kind);
    void listRuns();
    void fillCollections(const std::vector<DatasetFile>& files);
    void fillRunList();
    void saveModelAs();
    void setStatus(const QString& text);

    JobRunner* m_runner;    // the training worker
    JobRunner* m_ioRunner;  // listing runs, scanning the dataset
    ModelProvider m_generalModel;
    QString m_runsFolder, m_datasetFolder, m_file, m_fileCollection;
    TpuGraph m_graph;
    std::vector<SavedRun> m_saved;

    quint64 m_job = 0;
    std::shared_ptr<nn::CancelToken> m_cancel;
    std::shared_ptr<nn::PauseGate> m_pauseGate;
    QString m_liveFolder;
    Collection m_liveKind = Collection::Layout;
    bool m_liveFileOnly = false;
    // "This file only" chosen because no collection was listed (not by the user).
    bool m_fileOnlyForWantOfData = false;
    bool m_datasetScanned = false;  // the folder's collections are listed (none may be)
    bool m_liveHasBest = false;
    int m_liveBestEpoch = 0;
    double m_liveBestKendall = 0;
    double m_configsPerSecond = 0;  // the live run's latest throughput
    bool m_hasGeneral = false;
    nn::GraphMetrics m_general;

    QRadioButton* m_useDataset;
    QRadioButton* m_useFile;
    QComboBox* m_collection;
    QLabel* m_datasetLabel;
    QLabel* m_fileLabel;
    QSpinBox* m_hidden;
    QSpinBox* m_layers;
    QComboBox* m_hops;
    QComboBox* m_loss;
    QDoubleSpinBox* m_learningRate;
    QSpinBox* m_configsPerStep;
    QDoubleSpinBox* m_minutes;
    QSpinBox* m_epochs;
    QSpinBox* m_patience;
    QComboBox* m_selectBy;
    QSpinBox* m_seed;
    QSpinBox* m_threads;
    QPushButton* m_start;
    QPushButton* m_pause;
    QPushButton* m_stop;
    QPushButton* m_useBest;
    QPushButton* m_saveAs;
    QPushButton* m_resume;
    QLabel* m_phase;
    QProgressBar* m_progress;
    QLabel* m_speed;
    QLabel* m_comparison;
    QListWidget* m_runList;
    TrainingCharts* m_charts;
    QScrollArea* m_scroll = nullptr;
    QString m_status;
};

}  // namespace tpg
