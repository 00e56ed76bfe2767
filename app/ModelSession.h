#pragma once

#include <QObject>
#include <QString>
#include <map>
#include <memory>

#include "CostModel.h"
#include "FilePredictions.h"
#include "RemainingTime.h"
#include "graph/TpuGraph.h"

namespace tpg {

class JobRunner;

// The cost model in use (per kind of file: one the user loaded, else the built-in one for the
// file's collection) and what it predicts for the open file. Scoring runs on the model worker
// (newest request wins); results arrive by queued signal, and a result for a file or model no
// longer current is dropped.
class ModelSession : public QObject {
    Q_OBJECT
public:
    explicit ModelSession(QObject* parent = nullptr);

    // The model for `file` of `kind` (the built-in one follows the file's collection: its place in
    // the dataset, else the one it records, TpuGraph::searchCollection), sharing scores within
    // programs as programTies() says.
    nn::CostModel modelFor(Collection kind, const QString& file,
                           const std::string& recorded = {}) const;
    QString modelName(Collection kind, const QString& file, const std::string& recorded = {}) const;
    std::shared_ptr<const FilePredictions> predictions() const { return m_predictions; }

    // Scores every configuration of `graph` (the open `file`) with the model for its kind.
    void predict(const QString& file, const TpuGraph& graph);
    // The same again, after a scoring of the open file was cancelled or failed: the what-if
    // session goes on (UnrankedPredictor::sameModel).
    void predictAgain(const QString& file, const TpuGraph& graph);
    // The open file's configurations are scored (or being scored) by the model in use.
    bool scoredOrScoring(const QString& file) const;
    void cancel();
    bool busy() const { return m_job != 0; }
    // Loads a model file for its kind. When it cannot score `current`, it is refused with one
    // message and the previous model stays.
    void loadModel(const QString& path, const TpuGraph& current);
    void useBuiltIn(Collection kind, const QString& file, const TpuGraph& current);
    // On (the default): configurations that compile to one program share a score, as everywhere
    // else; off: the network's own scores. A change re-predicts `current`.
    bool programTies() const { return m_programTies; }
    void setProgramTies(bool on, const QString& file, const TpuGraph& current);

signals:
    // The open file's what-if predictor, before its configurations are scored (then
    // predictionsReady).
    void unrankedReady(const tpg::UnrankedPredictor& unranked);
    void predictionsReady(std::shared_ptr<const tpg::FilePredictions> predictions);
    // `secondsLeft`: the scoring's ETA, -1 while too early to say (RemainingTime).
    void progressed(double fraction, const QString& what, double secondsLeft);
    void predictionFailed(const QString& message);
    void predictionCancelled();
    // A prediction began or ended (Model › Cancel Prediction follows it).
    void busyChanged(bool busy);
    // The model for files of `kind` is now `name` (another kind's file may be open).
    void modelChanged(tpg::Collection kind, const QString& name);
    void modelRejected(const QString& message);

private:
    void setJob(quint64 job);  // the running prediction (0: none), announcing busyChanged
    void submitPrediction(const QString& file, const TpuGraph& graph, bool sameModel);

    JobRunner* m_runner;
    RemainingTime m_time;                          // of the running prediction, from its submission
    std::map<Collection, nn::CostModel> m_loaded;  // user-chosen models by kind
    std::shared_ptr<const FilePredictions> m_predictions;
    quint64 m_job = 0, m_loadJob = 0;
    bool m_programTies = true;
    QString m_file, m_loadPath;
    TpuGraph m_loadTarget;
};

}  // namespace tpg
