#include "TrainingPanel.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QThread>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>
#include <map>
#include <utility>

#include "CountText.h"
#include "FileKind.h"
#include "FocusKeepingEnable.h"
#include "JobRunner.h"
#include "NnLimits.h"
#include "RemainingTime.h"
#include "TrainingCharts.h"
#include "VerticalScrollArea.h"
#include "WrappableName.h"
#include "graph/DatasetIndex.h"

Q_DECLARE_METATYPE(std::vector<tpg::DatasetFile>)

namespace tpg {

namespace {

// The run list's item data: index into m_saved.
constexpr int kRunIndexRole = Qt::UserRole + 1;
// The collection choice's item data: how many valid graphs it has.
constexpr int kValidGraphsRole = Qt::UserRole + 2;
// Characters a long choice (a collection, the loss, the figure kept by) keeps in a narrow form
// column; its list shows it whole.
constexpr int kNarrowChoiceChars = 18;
// The progress bar's steps over a whole run: fine enough for a 10-minute run to move each second.
constexpr int kRunProgressSteps = 1000;

// A combo for a long choice: narrow columns elide it. Set before any layout asks its minimum
// size, which the combo caches.
QComboBox* newLongChoice() {
    auto* choice = new QComboBox;
    choice->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    choice->setMinimumContentsLength(kNarrowChoiceChars);
    return choice;
}

QString metricText(double v) { return std::isfinite(v) ? QString::number(v, 'f', 3) : QStringLiteral("–"); }

// One line about a saved run for the list.
QString describeRun(const SavedRun& run) {
    if (!run.error.isEmpty()) return run.name + QStringLiteral(" · unreadable: ") + run.error;
    const nn::TrainingHistory& h = run.history;
    QString text = run.name;
    const int best = h.bestEpochIndex();
    if (best >= 0) {
        const nn::EpochRecord& e = h.epochs[static_cast<size_t>(best)];
        text += h.kind == Collection::Layout
                    ? QStringLiteral(" · Kendall %1 (epoch %2)").arg(metricText(e.validation.kendall)).arg(e.epoch)
                    : QStringLiteral(" · score %1 (epoch %2)").arg(metricText(e.validation.score)).arg(e.epoch);
    }
    const QString state = !h.finished ? QObject::tr("interrupted") : QString::fromStdString(h.endReason);
    return text + QStringLiteral(" · ") + state;
}

QString stemForRun(const nn::TrainSettings& s) {
    QString what = s.trainFile.empty() ? QString::fromStdString(s.collection)
                                       : QFileInfo(QString::fromStdString(s.trainFile)).completeBaseName();
    what.replace(QLatin1Char(':'), QLatin1Char('-'));
    return QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd_HHmmss_")) + what;
}

}  // namespace

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent) {
    qRegisterMetaType<TrainingUpdate>();
    m_runner = new JobRunner(QStringLiteral("training"), this);
    m_ioRunner = new JobRunner(QStringLiteral("training-files"), this);
    m_charts = new TrainingCharts(this);

    auto* side = new QWidget;
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    // Run controls first: they are what a user reaches for during a run.
    QWidget* controls = buildControls();
    sideLayout->addWidget(controls);
    sideLayout->addWidget(buildDataBox());
    sideLayout->addWidget(buildSettingsBox());
    sideLayout->addWidget(buildRunsBox(), 1);
    m_scroll = new VerticalScrollArea(side);
    // Scrolling the form must not change the setting under the mouse: fields take the wheel
    // only once focused.
    for (QWidget* field : side->findChildren<QWidget*>())
        if (qobject_cast<QAbstractSpinBox*>(field) || qobject_cast<QComboBox*>(field)) {
            field->setFocusPolicy(Qt::StrongFocus);
            field->installEventFilter(this);
        }

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_scroll);
    split->addWidget(m_charts);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);

    connect(m_runner, &JobRunner::partial, this, [this](quint64 id, const QVariant& v) {
        if (id == m_job) onUpdate(v.value<TrainingUpdate>());
    });
    connect(m_runner, &JobRunner::finished, this, [this](quint64 id, const QVariant& v) {
        if (id == m_job) onFinished(v.value<nn::TrainResult>());
    });
    connect(m_runner, &JobRunner::failed, this, [this](quint64 id, const QString& message) {
        if (id == m_job) onFailed(message);
    });
    connect(m_ioRunner, &JobRunner::finished, this, [this](quint64, const QVariant& v) {
        if (v.canConvert<std::vector<SavedRun>>()) {
            m_saved = v.value<std::vector<SavedRun>>();
            fillRunList();
        } else if (v.canConvert<std::vector<DatasetFile>>()) {
            fillCollections(v.value<std::vector<DatasetFile>>());
        }
    });
    updateButtons();
}

bool TrainingPanel::eventFilter(QObject* watched, QEvent* event) {
    auto* field = qobject_cast<QWidget*>(watched);
    if (event->type() == QEvent::Wheel && field && !field->hasFocus()) {
        QCoreApplication::sendEvent(m_scroll->verticalScrollBar(), event);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

TrainingPanel::~TrainingPanel() {
    if (m_cancel) m_cancel->cancel();
    if (m_pauseGate) m_pauseGate->resume();
    // The runners (children) join their workers after this: the run saves its state first.
}

QWidget* TrainingPanel::buildDataBox() {
    auto* box = new QGroupBox(tr("Data"));
    auto* form = new QVBoxLayout(box);
    m_useDataset = new QRadioButton(tr("Dataset collection:"));
    m_useDataset->setToolTip(tr("Train on the collection's train split and validate on its valid split "
                                "(or, without one, on held-out configurations)"));
    m_collection = newLongChoice();
    m_datasetLabel = new QLabel(tr("No dataset folder open"));
    m_datasetLabel->setWordWrap(true);
    m_useFile = new QRadioButton(tr("This file only"));
    m_useFile->setToolTip(
        tr("Train on the open file's measured configurations; %1% of its distinct ones, each "
           "with its duplicates, are held out to validate on, and the general model is "
           "measured on the same ones")
            .arg(nn::limits::kSingleFileHeldOutFraction * 100));
    m_fileLabel = new QLabel(tr("No file open"));
    m_fileLabel->setObjectName(QStringLiteral("thisFileLabel"));
    m_fileLabel->setWordWrap(true);
    auto* group = new QButtonGroup(box);
    group->addButton(m_useDataset);
    group->addButton(m_useFile);
    m_useDataset->setChecked(true);
    auto* row = new QHBoxLayout;
    row->addWidget(m_useDataset);
    row->addWidget(m_collection, 1);
    form->addLayout(row);
    form->addWidget(m_datasetLabel);
    form->addWidget(m_useFile);
    form->addWidget(m_fileLabel);
    connect(m_useDataset, &QRadioButton::toggled, this, &TrainingPanel::updateButtons);
    for (QRadioButton* choice : {m_useDataset, m_useFile})
        connect(choice, &QRadioButton::clicked, this, [this] { m_fileOnlyForWantOfData = false; });
    connect(m_useDataset, &QRadioButton::toggled, this, &TrainingPanel::previewLiveFigures);
    connect(m_collection, &QComboBox::currentIndexChanged, this,
            &TrainingPanel::previewLiveFigures);
    connect(m_collection, &QComboBox::currentIndexChanged, this, &TrainingPanel::showDatasetLine);
    return box;
}

QWidget* TrainingPanel::buildSettingsBox() {
    auto* box = new QGroupBox(tr("Settings"));
    auto* form = new QFormLayout(box);
    auto spin = [&](const QString& label, int lo, int hi, int step, const QString& tip) {
        auto* s = new QSpinBox;
        s->setRange(lo, hi);
        s->setSingleStep(step);
        s->setToolTip(tip);
        form->addRow(label, s);
        return s;
    };
    // 0: the kind's measured best (nn::resolveModelShape), shown as "auto (48)" by showAutoChoices.
    m_hidden = spin(tr("Hidden width"), 0, nn::limits::kMaxHidden, 8,
                    tr("Width of the GraphSAGE layers and embeddings (a multiple of 4: the "
                       "attention heads). Wider learns more, trains slower."));
    m_layers = spin(tr("Layers"), 0, nn::limits::kMaxLayers, 1,
                    tr("GraphSAGE layers: how far along the graph a node's state reaches"));
    m_hops = new QComboBox;
    for (const char* h : {"0", "1", "2", "3", "full"}) m_hops->addItem(QString::fromLatin1(h));
    m_hops->setToolTip(tr("Layout: keep the configurable nodes and their k-hop neighbourhood (smaller graphs, faster "
                          "steps); 'full' keeps the whole graph"));
    form->addRow(tr("Hops"), m_hops);
    m_loss = newLongChoice();
    m_loss->addItem(tr("auto"), QStringLiteral("auto"));  // named by showAutoChoices
    m_loss->addItem(tr("pairwise hinge"), QStringLiteral("hinge"));
    m_loss->addItem(tr("ListMLE"), QStringLiteral("listmle"));
    m_loss->addItem(tr("log-runtime MSE"), QStringLiteral("mse"));
    m_loss->addItem(tr("pairwise logistic"), QStringLiteral("logistic"));
    m_loss->setToolTip(tr("Ranking losses (hinge, ListMLE, logistic) learn the order of configurations; MSE fits "
                          "log runtimes"));
    form->addRow(tr("Loss"), m_loss);
    m_learningRate = new QDoubleSpinBox;
    m_learningRate->setDecimals(5);
    m_learningRate->setRange(1e-5, 1e-1);
    m_learningRate->setSingleStep(5e-4);
    m_learningRate->setToolTip(tr("Adam's learning rate at the start; it decays along a cosine to 5%"));
    form->addRow(tr("Learning rate"), m_learningRate);
    m_configsPerStep = spin(tr("Configs per step"), 2, 1024, 16,
                            tr("Distinct configurations sampled per graph per optimiser step (64-128 works best)"));
    m_minutes = new QDoubleSpinBox;
    m_minutes->setRange(0, 24 * 60);
    m_minutes->setDecimals(1);
    m_minutes->setSuffix(tr(" min"));
    m_minutes->setToolTip(tr("Wall-clock budget, validation included, paused time excluded (0 = none: then set an "
                             "epoch limit). A patience also stops the run when validation stops improving."));
    form->addRow(tr("Time budget"), m_minutes);
    m_epochs = spin(tr("Epoch limit"), 0, 100000, 1,
                    tr("0 = none. An epoch samples every train graph's configurations about once"));
    m_patience = spin(tr("Patience"), 0, 100000, 1,
                      tr("Stop after this many epochs without a better validation score. Auto: never while the "
                         "learning rate decays over the run (its low-rate end brings the gains)"));
    m_patience->setSpecialValueText(tr("auto"));
    m_selectBy = newLongChoice();
    m_selectBy->addItem(tr("score"), QStringLiteral("score"));  // named by showAutoChoices
    m_selectBy->addItem(tr("Kendall"), QStringLiteral("kendall"));
    m_selectBy->setToolTip(
        tr("The validation figure whose best epoch is kept as the run's model (and counts for the "
           "patience); a tied score goes to the better Kendall. A tile score follows a few "
           "configurations per graph, Kendall all of them"));
    form->addRow(tr("Keep the best by"), m_selectBy);
    connect(m_selectBy, &QComboBox::currentIndexChanged, this, &TrainingPanel::previewLiveFigures);
    m_seed = spin(tr("Seed"), 0, 1 << 30, 1, tr("Random seed: weights, shuffling and config sampling"));
    m_threads = spin(tr("Threads"), 1, std::max(1, QThread::idealThreadCount()), 1,
                     tr("Torch threads of the training worker; the default leaves a core for the window and "
                        "the predictions"));
    setFormSettings(nn::TrainSettings());
    showAutoChoices(Collection::Layout);  // until data is chosen
    return box;
}

QWidget* TrainingPanel::buildControls() {
    auto* box = new QGroupBox(tr("Run"));
    auto* layout = new QVBoxLayout(box);
    auto* row = new QHBoxLayout;
    m_start = new QPushButton(tr("Start"));
    m_pause = new QPushButton(tr("Pause"));
    m_stop = new QPushButton(tr("Stop"));
    m_start->setToolTip(tr("Start a new run with these settings (kept in the runs folder)"));
    m_pause->setToolTip(tr("Pause or resume between steps; the time budget does not run while paused"));
    m_stop->setToolTip(tr("Stop after the current step; the best model and the run's state are kept"));
    for (QPushButton* b : {m_start, m_pause, m_stop}) row->addWidget(b);
    layout->addLayout(row);
    m_phase = new QLabel(tr("Idle"));
    m_phase->setWordWrap(true);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_speed = new QLabel;
    m_comparison = new QLabel;
    m_comparison->setWordWrap(true);
    m_comparison->setTextFormat(Qt::RichText);
    layout->addWidget(m_phase);
    layout->addWidget(m_progress);
    layout->addWidget(m_speed);
    layout->addWidget(m_comparison);
    auto* models = new QHBoxLayout;
    m_useBest = new QPushButton(tr("Use best model so far"));
    m_useBest->setToolTip(tr("Predict with this run's best checkpoint: the configuration table, the agreement line "
                             "and the what-if editor re-score at once"));
    m_saveAs = new QPushButton(tr("Save model as…"));
    models->addWidget(m_useBest);
    models->addWidget(m_saveAs);
    layout->addLayout(models);
    connect(m_start, &QPushButton::clicked, this, &TrainingPanel::start);
    connect(m_pause, &QPushButton::clicked, this, &TrainingPanel::togglePause);
    connect(m_stop, &QPushButton::clicked, this, &TrainingPanel::stop);
    connect(m_useBest, &QPushButton::clicked, this, &TrainingPanel::useBestModel);
    connect(m_saveAs, &QPushButton::clicked, this, &TrainingPanel::saveModelAs);
    return box;
}

QWidget* TrainingPanel::buildRunsBox() {
    auto* box = new QGroupBox(tr("Runs (tick to overlay)"));
    auto* layout = new QVBoxLayout(box);
    m_runList = new QListWidget;
    m_runList->setToolTip(tr("Earlier runs, kept in the runs folder; ticked ones are drawn on the plots"));
    m_runList->setMinimumHeight(90);
    m_runList->setWordWrap(true);  // a run's line names its time, data, best score and state
    m_resume = new QPushButton(tr("Resume selected run"));
    m_resume->setToolTip(tr("Continue a stopped or interrupted run from its last checkpoint"));
    layout->addWidget(m_runList);
    layout->addWidget(m_resume);
    connect(m_runList, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        const int i = item->data(kRunIndexRole).toInt();
        if (i < 0 || i >= static_cast<int>(m_saved.size())) return;
        const SavedRun& run = m_saved[static_cast<size_t>(i)];
        if (item->checkState() == Qt::Checked && run.error.isEmpty())
            m_charts->setOverlay(run.folder, run.name, run.history);
        else
            m_charts->removeOverlay(run.folder);
    });
    connect(m_runList, &QListWidget::currentRowChanged, this, &TrainingPanel::updateButtons);
    connect(m_resume, &QPushButton::clicked, this, [this] { resumeRun(m_runList->currentRow()); });
    return box;
}

nn::TrainSettings TrainingPanel::formSettings() const {
    nn::TrainSettings s;
    if (m_useFile->isChecked()) {
        s.trainFile = m_file.toStdString();
        s.heldOutConfigFraction = nn::limits::kSingleFileHeldOutFraction;
    } else {
        s.dataDir = m_datasetFolder.toStdString();
        s.collection = m_collection->currentData().toString().toStdString();
        if (m_collection->currentData(kValidGraphsRole).toInt() == 0)
            s.heldOutConfigFraction = nn::limits::kSingleFileHeldOutFraction;
    }
    s.model.hidden = m_hidden->value() / s.model.attentionHeads * s.model.attentionHeads;
    s.model.layers = m_layers->value();
    s.model.pruneHops = m_hops->currentText() == QLatin1String("full") ? -1 : m_hops->currentText().toInt();
    nn::parseLoss(m_loss->currentData().toString().toStdString(), s.loss);
    s.learningRate = m_learningRate->value();
    s.configsPerStep = m_configsPerStep->value();
    s.minutes = m_minutes->value();
    s.epochs = m_epochs->value();
    s.patience = m_patience->value();
    nn::parseSelection(m_selectBy->currentData().toString().toStdString(), s.selectBy);
    s.seed = static_cast<uint64_t>(m_seed->value());
    s.threads = m_threads->value();
    return s;
}

void TrainingPanel::setFormSettings(const nn::TrainSettings& s) {
    m_hidden->setValue(s.model.hidden);
    m_layers->setValue(s.model.layers);
    m_hops->setCurrentText(s.model.pruneHops < 0 ? QStringLiteral("full") : QString::number(s.model.pruneHops));
    m_loss->setCurrentIndex(m_loss->findData(QString::fromLatin1(nn::lossName(s.loss))));
    m_learningRate->setValue(s.learningRate);
    m_configsPerStep->setValue(s.configsPerStep);
    m_minutes->setValue(s.minutes);
    m_epochs->setValue(s.epochs);
    m_patience->setValue(s.patience);
    m_selectBy->setCurrentIndex(
        m_selectBy->findData(QString::fromLatin1(nn::selectionName(s.selectBy))));
    m_seed->setValue(static_cast<int>(s.seed));
    m_threads->setValue(s.threads > 0 ? s.threads : std::max(1, QThread::idealThreadCount() - 1));
}

void TrainingPanel::setThisFileOnly(bool thisFile) {
    m_fileOnlyForWantOfData = false;
    (thisFile ? m_useFile : m_useDataset)->setChecked(true);
}

bool TrainingPanel::thisFileOnly() const { return m_useFile->isChecked(); }

QStringList TrainingPanel::collectionChoices() const {
    QStringList out;
    for (int i = 0; i < m_collection->count(); ++i) out << m_collection->itemData(i).toString();
    return out;
}

void TrainingPanel::fillCollections(const std::vector<DatasetFile>& files) {
    std::map<std::string, std::pair<int, int>> counts;  // collection -> train, valid files
    for (const DatasetFile& f : files) {
        if (f.split == "train") ++counts[f.collection].first;
        if (f.split == "valid") ++counts[f.collection].second;
    }
    const QString previous = m_collection->currentData().toString();
    m_collection->clear();
    // The choice is the collection's name alone and its graphs are counted on the line below:
    // "layout:xla:default (2 train, 1 valid)" was cut in the form's column.
    for (const auto& [c, n] : counts) {
        if (n.first == 0) continue;
        const QString name = QString::fromStdString(c);
        const QString graphs = n.second > 0
                                   ? tr("%1 train and %2 valid graphs").arg(n.first).arg(n.second)
                                   : tr("%1 train graphs").arg(n.first);
        m_collection->addItem(name, name);
        m_collection->setItemData(m_collection->count() - 1, graphs, Qt::ToolTipRole);
        m_collection->setItemData(m_collection->count() - 1, n.second, kValidGraphsRole);
    }
    const int keep = m_collection->findData(m_fileCollection.isEmpty() ? previous : m_fileCollection);
    if (keep >= 0) m_collection->setCurrentIndex(keep);
    m_datasetScanned = true;
    showDatasetLine();
    updateButtons();
}

void TrainingPanel::showDatasetLine() {
    const QString graphs = m_collection->currentData(Qt::ToolTipRole).toString();
    if (m_datasetFolder.isEmpty())
        m_datasetLabel->setText(tr("No dataset folder open"));
    else if (m_datasetScanned && m_collection->count() == 0)
        // Said, rather than a choice that stays empty and a button that does not take a click.
        m_datasetLabel->setText(
            tr("No train split in %1: a collection trains on files in the dataset's "
               "tree, npz/<collection>/train/NAME.npz, as tpugraphs synth writes them")
                .arg(wrappableName(m_datasetFolder)));
    else if (graphs.isEmpty())
        m_datasetLabel->setText(wrappableName(m_datasetFolder));
    else if (m_collection->currentData(kValidGraphsRole).toInt() > 0)
        m_datasetLabel->setText(tr("%1 in %2").arg(graphs, wrappableName(m_datasetFolder)));
    else
        // formSettings() then holds configurations out of each train graph, as a one-file run
        // does: validating on what it trains on would flatter every epoch.
        m_datasetLabel->setText(
            tr("%1 in %2, no valid split: each validates on %3% of its configurations, held out "
               "of training")
                .arg(graphs, wrappableName(m_datasetFolder))
                .arg(std::lround(nn::limits::kSingleFileHeldOutFraction * 100)));
}

bool TrainingPanel::chooseCollection(const QString& collection) {
    const int i = m_collection->findData(collection);
    if (i >= 0) m_collection->setCurrentIndex(i);
    return i >= 0;
}

void TrainingPanel::setRunsFolder(const QString& folder) {
    m_runsFolder = folder;
    QDir().mkpath(folder);
    listRuns();
}

void TrainingPanel::setDatasetFolder(const QString& folder) {
    m_datasetFolder = folder;
    m_datasetScanned = false;
    m_datasetLabel->setToolTip(folder);
    const std::string dir = folder.toStdString();
    if (!folder.isEmpty())
        m_ioRunner->submit(QStringLiteral("scan"), [dir](JobControl&) { return QVariant::fromValue(scanDataset(dir)); });
    else
        m_collection->clear();
    showDatasetLine();
    updateButtons();
}

void TrainingPanel::setCurrentFile(const QString& path, const TpuGraph& graph) {
    m_file = path;
    m_graph = graph;
    // The open file's collection is the natural dataset choice.
    DatasetFile placed;
    m_fileCollection = !graph.isNull() && placeByPath(path.toStdString(), placed)
                           ? QString::fromStdString(placed.collection)
                           : QString();
    if (!isRunning()) chooseCollection(m_fileCollection);
    if (graph.isNull())
        m_fileLabel->setText(tr("No file open"));
    else if (!graph.runtimesKnown())
        m_fileLabel->setText(tr("%1: no measured runtimes (test split)")
                                 .arg(wrappableName(QFileInfo(path).fileName())));
    else
        m_fileLabel->setText(tr("%1: %2 configurations%3, %4% held out")
                                 .arg(wrappableName(QFileInfo(path).fileName()),
                                      countText(graph.numConfigs()),
                                      graph.runtimeSource().empty()
                                          ? QString()
                                          : tr(" (runtimes: the test split's ground truth)"))
                                 .arg(nn::limits::kSingleFileHeldOutFraction * 100));
    updateButtons();
    previewLiveFigures();  // "this file only" trains a model of the file's kind
}

QString TrainingPanel::newRunFolder() const {
    const QString stem = stemForRun(formSettings());
    QString folder = m_runsFolder + QLatin1Char('/') + stem;
    for (int n = 2; QFileInfo::exists(folder); ++n) folder = m_runsFolder + QLatin1Char('/') + stem + QStringLiteral("_%1").arg(n);
    return folder;
}

void TrainingPanel::start() {
    if (isRunning() || m_runsFolder.isEmpty()) return;
    nn::TrainSettings s = formSettings();
    if (s.trainFile.empty() && (s.dataDir.empty() || s.collection.empty())) {
        setStatus(tr("Open a dataset folder with train files, or choose \"This file only\"."));
        return;
    }
    if (s.epochs == 0 && s.minutes == 0) {
        setStatus(tr("Give a time budget or an epoch limit."));
        return;
    }
    const QString folder = newRunFolder();
    QDir().mkpath(folder);
    s.outPath = RunFiles::model(folder).toStdString();
    s.logPath = RunFiles::log(folder).toStdString();
    startWith(s, kindOf(s), folder, QFileInfo(folder).fileName());
}

Collection TrainingPanel::kindOf(const nn::TrainSettings& s) const {
    if (!s.trainFile.empty()) return m_graph.collection();
    return s.collection.rfind("tile", 0) == 0 ? Collection::Tile : Collection::Layout;
}

void TrainingPanel::previewLiveFigures() {
    if (isRunning()) return;
    const nn::TrainSettings s = formSettings();
    showAutoChoices(kindOf(s));
    m_charts->prepareLive(kindOf(s), s.selectBy);
}

// "auto" and "score" as they resolve for the kind about to be trained: both kinds' in one line
// were cut in the 355-px column ("auto (layout: pairwise logistic, tile").
void TrainingPanel::showAutoChoices(Collection kind) {
    const nn::ModelShape shape = nn::defaultModelShape(kind);
    m_hidden->setSpecialValueText(tr("auto (%1)").arg(shape.hidden));
    m_layers->setSpecialValueText(tr("auto (%1)").arg(shape.layers));
    m_loss->setItemText(
        0, tr("auto (pairwise %1)").arg(QString::fromLatin1(nn::lossName(nn::defaultLoss(kind)))));
    m_selectBy->setItemText(
        0, kind == Collection::Tile ? tr("score (the competition's)") : tr("score (Kendall)"));
}

bool TrainingPanel::resumeRun(int row) {
    QListWidgetItem* item = m_runList->item(row);
    if (isRunning() || !item) return false;
    const SavedRun& run = m_saved[static_cast<size_t>(item->data(kRunIndexRole).toInt())];
    if (!run.resumable) return false;
    nn::TrainSettings s = run.history.settings;
    s.outPath = RunFiles::model(run.folder).toStdString();
    s.logPath = RunFiles::log(run.folder).toStdString();
    s.resume = true;
    item->setCheckState(Qt::Unchecked);  // it becomes the live run: not an overlay of itself
    item->setFlags(Qt::NoItemFlags);
    item->setText(item->text() + tr(" · running"));
    m_charts->showHistory(run.name, run.history);
    startWith(s, run.history.kind, run.folder, run.name);
    if (const int best = run.history.bestEpochIndex(); best >= 0) {  // the comparison starts from it
        m_liveBestEpoch = run.history.epochs[static_cast<size_t>(best)].epoch;
        m_liveBestKendall = run.history.epochs[static_cast<size_t>(best)].validation.kendall;
    }
    return true;
}

void TrainingPanel::startWith(const nn::TrainSettings& settings, Collection kind, const QString& folder,
                              const QString& title) {
    m_liveFolder = folder;
    m_liveFileOnly = !settings.trainFile.empty();
    m_liveKind = kind;
    m_liveHasBest = settings.resume && QFileInfo::exists(RunFiles::model(folder));
    m_liveBestEpoch = 0;
    m_hasGeneral = false;
    if (!settings.resume) m_charts->startLive(title, m_liveKind, settings.selectBy);
    m_cancel = std::make_shared<nn::CancelToken>();
    m_pauseGate = std::make_shared<nn::PauseGate>();
    const nn::CostModel general = m_liveFileOnly && m_generalModel ? m_generalModel(m_liveKind) : nn::CostModel();
    m_job = m_runner->submit(QStringLiteral("train"), trainingJob(settings, m_cancel, m_pauseGate, general, m_graph));
    setStatus(tr("Preparing %1…").arg(title));
    m_comparison->clear();
    m_speed->clear();
    m_configsPerSecond = 0;
    m_progress->setRange(0, kRunProgressSteps);
    m_progress->setValue(0);
    updateButtons();
    emit runStarted(folder);
}

void TrainingPanel::togglePause() {
    if (!isRunning()) return;
    if (m_pauseGate->paused()) {
        m_pauseGate->resume();
        setStatus(tr("Resumed."));
    } else {
        m_pauseGate->pause();
        setStatus(tr("Paused after the current step (the time budget waits too)."));
    }
    updateButtons();
}

bool TrainingPanel::isPaused() const { return isRunning() && m_pauseGate->paused(); }

void TrainingPanel::stop() {
    if (!isRunning()) return;
    m_cancel->cancel();
    m_pauseGate->resume();
    setStatus(tr("Stopping after the current step…"));
    updateButtons();
}

void TrainingPanel::onUpdate(const TrainingUpdate& u) {
    if (u.hasGeneral) {
        m_hasGeneral = true;
        m_general = u.general;
        updateComparison();
        return;
    }
    if (!u.steps.empty()) m_charts->appendSteps(u.steps);
    if (u.epochDone) {
        const nn::TrainProgress& p = u.progress;
        m_charts->appendEpoch({p.epoch, p.globalStep, p.loss, p.validation, p.improved, p.elapsedSeconds});
        if (p.improved) {
            m_liveHasBest = true;
            m_liveBestEpoch = p.epoch;
            m_liveBestKendall = p.validation.kendall;
        }
        updateComparison();
        updateButtons();
    }
    showProgress(u.progress);
    emit updated();
}

void TrainingPanel::showProgress(const nn::TrainProgress& p) {
    using Phase = nn::TrainProgress::Phase;
    const QString epoch = p.epochs > 0 ? tr("epoch %1/%2").arg(p.epoch).arg(p.epochs) : tr("epoch %1").arg(p.epoch);
    QString text;
    switch (p.phase) {
        case Phase::Preparing: text = QString::fromStdString(p.message); break;
        case Phase::Training: text = tr("Training %1 · step %2/%3 · loss %4").arg(epoch).arg(p.step).arg(p.steps).arg(p.loss, 0, 'g', 4); break;
        case Phase::Validating: text = tr("Validating %1 · graph %2/%3").arg(epoch).arg(p.step).arg(p.steps); break;
        case Phase::EpochDone:
        case Phase::Checkpointed: text = tr("Finished %1").arg(epoch); break;
        case Phase::Finished: text = QString::fromStdString(p.message); break;
    }
    if (isPaused()) text = tr("Paused · ") + text;
    m_phase->setText(text);
    m_status = text;
    // The bar is the whole run, as the ETA beside it counts it (it read 75% at 0:45 of 10:00: an
    // epoch's steps, which the text above gives). Every phase after the first step carries an ETA:
    // epochs shorter than the updates' interval only ever post their ends.
    if (p.etaSeconds >= 0 && p.phase != Phase::Preparing && p.phase != Phase::Finished) {
        const double done = p.elapsedSeconds / std::max(1e-9, p.elapsedSeconds + p.etaSeconds);
        m_progress->setRange(0, kRunProgressSteps);
        m_progress->setValue(
            static_cast<int>(std::lround(kRunProgressSteps * std::clamp(done, 0.0, 1.0))));
    }
    if (p.configsPerSecond > 0) m_configsPerSecond = p.configsPerSecond;
    if (p.configsPerSecond > 0)
        m_speed->setText(
            tr("%1 configs/s · %2 elapsed%3")
                .arg(countText(std::llround(p.configsPerSecond)), clockText(p.elapsedSeconds),
                     p.etaSeconds >= 0 ? tr(" · ETA %1").arg(clockText(p.etaSeconds)) : QString()));
}

void TrainingPanel::updateComparison() {
    if (!m_liveFileOnly) {
        m_comparison->clear();
        return;
    }
    QString text = tr("<b>Held-out Kendall</b> (%1 configs): ").arg(m_hasGeneral ? m_general.configs : 0);
    text += m_liveBestEpoch > 0 ? tr("this-file model <b>%1</b> (epoch %2)").arg(metricText(m_liveBestKendall)).arg(m_liveBestEpoch)
                                : tr("this-file model – (after the first epoch)");
    if (m_hasGeneral) text += tr(" · general model <b>%1</b>").arg(metricText(m_general.kendall));
    m_comparison->setText(text);
}

void TrainingPanel::onFinished(const nn::TrainResult& r) {
    m_job = 0;
    const QString folder = m_liveFolder;
    const QString reason = r.cancelled ? tr("stopped") : r.timedOut ? tr("time budget reached")
                                       : r.earlyStopped ? tr("stopped early (no validation gain)") : tr("done");
    setStatus(tr("Run %1 after %2 (%3). %4")
                  .arg(reason)
                  .arg(countOf(r.steps, tr("step"), tr("steps")))
                  .arg(clockText(r.seconds))
                  .arg(r.saved || m_liveHasBest ? tr("Best model kept.")
                                                : tr("No epoch finished: no model yet.")));
    for (const auto& w : r.warnings) setStatus(m_status + QLatin1Char(' ') + QString::fromStdString(w));
    if (!r.cancelled)
        m_progress->setValue(m_progress->maximum());  // its end came: by budget, epochs or patience
    if (m_configsPerSecond > 0)  // no ETA once it has ended
        m_speed->setText(
            tr("%1 configs/s · %2 in all")
                .arg(countText(std::llround(m_configsPerSecond)), clockText(r.seconds)));
    updateButtons();
    listRuns();
    emit runFinished(folder, reason);
}

void TrainingPanel::onFailed(const QString& message) {
    m_job = 0;
    setStatus(tr("Training could not run: %1").arg(message));
    updateButtons();
    listRuns();
    emit runFailed(message);
}

QString TrainingPanel::bestModelPath() const {
    if (!m_liveFolder.isEmpty() && m_liveHasBest && QFileInfo::exists(RunFiles::model(m_liveFolder)))
        return RunFiles::model(m_liveFolder);
    const QListWidgetItem* item = m_runList->currentItem();
    if (!item) return {};
    const SavedRun& run = m_saved[static_cast<size_t>(item->data(kRunIndexRole).toInt())];
    return run.hasModel ? RunFiles::model(run.folder) : QString();
}

void TrainingPanel::useBestModel() {
    const QString path = bestModelPath();
    if (!path.isEmpty()) emit useModelRequested(path);
}

void TrainingPanel::saveModelAs() {
    const QString from = bestModelPath();
    if (from.isEmpty()) return;
    const QString to = chooseFileToSave(
        this, tr("Save Cost Model"), costModelFileKind(),
        QFileInfo(from).dir().dirName() + QStringLiteral(".tpgm"));  // the run's name
    if (to.isEmpty()) return;
    // Chosen over itself, the copy would have removed the run's only model before copying it.
    if (QFileInfo(to) == QFileInfo(from)) {
        setStatus(tr("The model is already at %1").arg(to));
        return;
    }
    QFile source(from);
    if (!source.open(QIODevice::ReadOnly)) {
        setStatus(tr("Could not read %1: %2").arg(from, source.errorString()));
        return;
    }
    // Written whole or not at all: a failed save keeps the file it would have replaced.
    QSaveFile target(to);
    const bool saved = target.open(QIODevice::WriteOnly) &&
                       target.write(source.readAll()) == source.size() && target.commit();
    setStatus(saved ? tr("Saved %1").arg(to)
                    : tr("Could not write %1: %2").arg(to, target.errorString()));
}

void TrainingPanel::updateButtons() {
    const bool running = isRunning();
    const bool fileOk = !m_graph.isNull() && m_graph.runtimesKnown();
    m_useFile->setEnabled(fileOk && !running);
    if (!running && !fileOk && m_useFile->isChecked()) m_useDataset->setChecked(true);
    // With no collection the file is the only choice; it gives way to the dataset once that is
    // listed (a background scan), unless the user chose it.
    if (!running && fileOk && m_collection->count() == 0 && !m_useFile->isChecked()) {
        m_useFile->setChecked(true);
        m_fileOnlyForWantOfData = true;
    }
    if (!running && m_fileOnlyForWantOfData && m_collection->count() > 0) {
        m_useDataset->setChecked(true);
        m_fileOnlyForWantOfData = false;
    }
    m_useDataset->setEnabled(!running && (!m_datasetScanned || m_collection->count() > 0));
    m_collection->setEnabled(!running && m_useDataset->isChecked());
    const bool dataOk = m_useFile->isChecked() ? fileOk : m_collection->count() > 0;
    m_pause->setText(isPaused() ? tr("Resume") : tr("Pause"));
    const bool hasModel = !bestModelPath().isEmpty();
    m_useBest->setEnabled(hasModel);
    m_saveAs->setEnabled(hasModel);
    const QListWidgetItem* item = m_runList->currentItem();
    const bool resumable =
        !running && item &&
        m_saved[static_cast<size_t>(item->data(kRunIndexRole).toInt())].resumable;
    // Qt would pass a greyed-out button's focus down the form, and the scroll area would follow
    // it out of the buttons' view (a click on Start scrolled Pause and Stop out of sight).
    setEnabledKeepingFocus({{m_stop, running && m_cancel && !m_cancel->cancelled()},
                            {m_start, !running && dataOk && !m_runsFolder.isEmpty()},
                            {m_pause, running},
                            {m_resume, resumable}});
}

void TrainingPanel::listRuns() {
    if (m_runsFolder.isEmpty()) return;
    const QString folder = m_runsFolder;
    m_ioRunner->submit(QStringLiteral("runs"), [folder](JobControl&) { return QVariant::fromValue(listSavedRuns(folder)); });
}

void TrainingPanel::fillRunList() {
    QStringList overlaid;
    for (int i = 0; i < m_runList->count(); ++i)
        if (m_runList->item(i)->checkState() == Qt::Checked) overlaid << m_runList->item(i)->data(Qt::UserRole).toString();
    const QSignalBlocker block(m_runList);
    m_runList->clear();
    for (const QString& id : m_charts->overlayIds()) m_charts->removeOverlay(id);
    for (size_t i = 0; i < m_saved.size(); ++i) {
        const SavedRun& run = m_saved[i];
        if (isRunning() && run.folder == m_liveFolder) continue;  // drawn as the live run
        auto* item = new QListWidgetItem(describeRun(run), m_runList);
        item->setData(Qt::UserRole, run.folder);
        item->setData(kRunIndexRole, static_cast<int>(i));
        item->setToolTip(QString::fromStdString(run.history.trainedOn) + QLatin1Char('\n') + run.folder);
        const bool on = overlaid.contains(run.folder);
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
        if (on && run.error.isEmpty()) m_charts->setOverlay(run.folder, run.name, run.history);
    }
    updateButtons();
    emit runsListed();
}

void TrainingPanel::setStatus(const QString& text) {
    m_status = text;
    m_phase->setText(text);
}

QString TrainingPanel::statusText() const { return m_status; }

QString TrainingPanel::comparisonText() const { return m_comparison->text(); }

}  // namespace tpg
