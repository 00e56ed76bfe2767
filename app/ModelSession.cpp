#include "ModelSession.h"

#include <QFileInfo>

#include "DefaultModels.h"
#include "JobRunner.h"

Q_DECLARE_METATYPE(tpg::nn::CostModel)

namespace tpg {

namespace {
// `model` with the program rule set to `on`. Copies of a model share one network and its
// settings, and jobs may be scoring with this one, so a model whose rule differs is copied
// whole (a small network: milliseconds) rather than changed under them.
nn::CostModel withProgramTies(const nn::CostModel& model, bool on) {
    if (model.tiesSamePrograms() == on) return model;
    nn::CostModel own = nn::CostModel::fromBytes(model.toBytes(), model.label());
    own.setTieSamePrograms(on);
    return own;
}

// The user's model for a kind (null: none, so a fresh built-in one for `file`'s collection) with
// the program rule `ties`.
nn::CostModel sessionModel(const nn::CostModel& chosen, Collection kind, const QString& file,
                           const std::string& recorded, bool ties) {
    if (!chosen.isNull()) return withProgramTies(chosen, ties);
    nn::CostModel builtIn = nn::defaultModelForFile(file.toStdString(), kind, recorded);
    builtIn.setTieSamePrograms(ties);
    return builtIn;
}
}  // namespace

ModelSession::ModelSession(QObject* parent) : QObject(parent) {
    m_runner = new JobRunner(QStringLiteral("model"), this);
    connect(m_runner, &JobRunner::progressed, this,
            [this](quint64 id, double f, const QString& what) {
                if (id == m_job) emit progressed(f, what, m_time.secondsLeft(f));
            });
    connect(m_runner, &JobRunner::partial, this, [this](quint64 id, const QVariant& value) {
        if (id == m_job && value.canConvert<UnrankedPredictor>())
            emit unrankedReady(value.value<UnrankedPredictor>());
    });
    connect(m_runner, &JobRunner::finished, this, [this](quint64 id, const QVariant& result) {
        if (id == m_job) {
            m_predictions = result.value<std::shared_ptr<const FilePredictions>>();
            setJob(0);  // after: busyChanged's listeners see the predictions
            if (m_predictions) emit predictionsReady(m_predictions);
        } else if (id == m_loadJob) {
            m_loadJob = 0;
            const auto model = result.value<nn::CostModel>();
            m_loaded[model.kind()] = model;
            emit modelChanged(model.kind(), QString::fromStdString(model.label()));
            if (!m_loadTarget.isNull() && m_loadTarget.collection() == model.kind())
                predict(m_file, m_loadTarget);
        }
    });
    connect(m_runner, &JobRunner::failed, this, [this](quint64 id, const QString& message) {
        if (id == m_job) {
            setJob(0);
            emit predictionFailed(message);
        } else if (id == m_loadJob) {
            m_loadJob = 0;
            emit modelRejected(message);
        }
    });
    connect(m_runner, &JobRunner::cancelled, this, [this](quint64 id) {
        if (id != m_job) return;
        setJob(0);
        emit predictionCancelled();
    });
}

nn::CostModel ModelSession::modelFor(Collection kind, const QString& file,
                                     const std::string& recorded) const {
    const auto it = m_loaded.find(kind);
    return sessionModel(it != m_loaded.end() ? it->second : nn::CostModel(), kind, file, recorded,
                        m_programTies);
}

QString ModelSession::modelName(Collection kind, const QString& file,
                                const std::string& recorded) const {
    const auto it = m_loaded.find(kind);
    return QString::fromStdString(
        it != m_loaded.end()
            ? it->second.label()
            : nn::defaultModelLabel(
                  kind, nn::builtInModelCollection(file.toStdString(), kind, recorded)));
}

void ModelSession::predict(const QString& file, const TpuGraph& graph) {
    submitPrediction(file, graph, false);
}

void ModelSession::predictAgain(const QString& file, const TpuGraph& graph) {
    submitPrediction(file, graph, true);
}

bool ModelSession::scoredOrScoring(const QString& file) const {
    return busy() || (m_predictions && m_predictions->file == file);
}

void ModelSession::submitPrediction(const QString& file, const TpuGraph& graph, bool sameModel) {
    m_predictions.reset();
    m_file = file;
    if (graph.isNull()) {
        cancel();
        return;
    }
    const Collection kind = graph.collection();
    auto shared = std::make_shared<const TpuGraph>(graph);
    // The user's model is picked here (the map is the GUI thread's); the built-in one, or a copy
    // with the other program rule, is made on the worker.
    const auto it = m_loaded.find(kind);
    const nn::CostModel chosen = it != m_loaded.end() ? it->second : nn::CostModel();
    m_time.restart();  // every prediction starts here, a superseding one too
    setJob(m_runner->submit(QStringLiteral("predict"), [file, shared, kind, chosen, sameModel,
                                                        ties = m_programTies](JobControl& control) {
        const nn::CostModel model =
            sessionModel(chosen, kind, file, shared->searchCollection(), ties);
        return QVariant::fromValue(std::shared_ptr<const FilePredictions>(
            predictFile(file, shared, model, control, sameModel)));
    }));
}

void ModelSession::setJob(quint64 job) {
    const bool was = m_job != 0;
    m_job = job;
    if (was != (job != 0)) emit busyChanged(job != 0);
}

void ModelSession::cancel() {
    m_runner->cancelLane(QStringLiteral("predict"));
}

void ModelSession::loadModel(const QString& path, const TpuGraph& current) {
    m_loadPath = path;
    m_loadTarget = current;
    m_loadJob = m_runner->submit(QStringLiteral("load"), [path, current](JobControl&) {
        nn::CostModel model = nn::CostModel::load(path.toStdString());
        if (!current.isNull() && current.collection() == model.kind()) model.requireCompatible(current);
        return QVariant::fromValue(model);
    });
}

void ModelSession::setProgramTies(bool on, const QString& file, const TpuGraph& current) {
    if (on == m_programTies) return;
    m_programTies = on;
    if (!current.isNull()) predict(file, current);
}

void ModelSession::useBuiltIn(Collection kind, const QString& file, const TpuGraph& current) {
    m_loaded.erase(kind);
    emit modelChanged(
        kind, modelName(kind, file, current.isNull() ? std::string() : current.searchCollection()));
    if (!current.isNull() && current.collection() == kind) predict(file, current);
}

}  // namespace tpg
