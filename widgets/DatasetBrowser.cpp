#include "DatasetBrowser.h"

#include <QClipboard>
#include <QCollator>
#include <QDesktopServices>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTimer>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>
#include <map>
#include <utility>

#include "CountText.h"
#include "JobRunner.h"
#include "WidgetLimits.h"
#include "io/Error.h"

namespace tpg {

namespace {

constexpr int kPathRole = Qt::UserRole + 1;
constexpr int kGroupNameRole = Qt::UserRole + 2;  // a group's name without its count

struct FileCounts {
    QString path;
    qint64 nodes = -1;
    qint64 configs = -1;
    QString error;
};

// The files as the tree lists them: by collection and split, then by name with numbers read as
// numbers ("dot_fusion_123" before "dot_fusion_1203", as a file manager orders them).
std::vector<const DatasetFile*> inListOrder(const std::vector<DatasetFile>& files) {
    // Each name converted once, not at every comparison.
    std::vector<std::pair<const DatasetFile*, QString>> named;
    named.reserve(files.size());
    for (const DatasetFile& f : files) named.emplace_back(&f, QString::fromStdString(f.name));
    QCollator numeric{QLocale(QLocale::English)};
    numeric.setNumericMode(true);
    std::stable_sort(named.begin(), named.end(), [&numeric](const auto& a, const auto& b) {
        if (a.first->collection != b.first->collection)
            return a.first->collection < b.first->collection;
        if (a.first->split != b.first->split) {
            // The dataset's own order (train, valid, test), not the alphabet's (valid came last).
            const int x = splitOrder(a.first->split);
            const int y = splitOrder(b.first->split);
            return x != y ? x < y : a.first->split < b.first->split;
        }
        return numeric.compare(a.second, b.second) < 0;
    });
    std::vector<const DatasetFile*> out;
    out.reserve(named.size());
    for (const auto& [file, name] : named) out.push_back(file);
    return out;
}

}  // namespace

}  // namespace tpg

Q_DECLARE_METATYPE(std::vector<tpg::DatasetFile>)
Q_DECLARE_METATYPE(QVector<tpg::FileCounts>)

namespace tpg {

Qt::TextElideMode NameElisionDelegate::elideModeOf(const QModelIndex& index) {
    return index.data(kPathRole).isValid() ? Qt::ElideMiddle : Qt::ElideRight;
}

void NameElisionDelegate::initStyleOption(QStyleOptionViewItem* option,
                                          const QModelIndex& index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    option->textElideMode = elideModeOf(index);
}

DatasetBrowser::DatasetBrowser(JobRunner* runner, QWidget* parent)
    : QWidget(parent), m_runner(runner) {
    m_filterEdit = new QLineEdit(this);
    m_filterEdit->setPlaceholderText(tr("Filter graphs by name"));
    m_filterEdit->setClearButtonEnabled(true);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_model = new QStandardItemModel(this);
    m_model->setHorizontalHeaderLabels({tr("Graph"), tr("Nodes"), tr("Configs")});
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setRecursiveFilteringEnabled(true);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(0);
    m_view = new QTreeView(this);
    m_view->setModel(m_proxy);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_view->setIndentation(12);
    m_view->setItemDelegate(new NameElisionDelegate(m_view));
    m_view->header()->setStretchLastSection(false);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    fitCountColumns();  // to their titles until counts come
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_filterEdit);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);
    m_status->setText(tr("No dataset folder open."));

    connect(m_filterEdit, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_proxy->setFilterFixedString(text);
        labelGroups();
        if (!text.isEmpty()) m_view->expandAll();
        showOpenFileAfterFilter();
    });
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QTreeView::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QString path = m_proxy->index(m_view->indexAt(pos).row(), 0, m_view->indexAt(pos).parent())
                                 .data(kPathRole)
                                 .toString();
        if (QMenu* menu = fileMenu(path)) {
            menu->exec(m_view->viewport()->mapToGlobal(pos));
            delete menu;
        }
    });
    // A click opens a graph (Enter too); opening the file already shown is the window's no-op.
    auto activate = [this](const QModelIndex& index) {
        const QString path =
            m_proxy->index(index.row(), 0, index.parent()).data(kPathRole).toString();
        if (!path.isEmpty()) emit fileActivated(path);
    };
    connect(m_view, &QTreeView::clicked, this, activate);
    connect(m_view, &QTreeView::activated, this, activate);
    m_keyOpen = new QTimer(this);
    m_keyOpen->setSingleShot(true);
    m_keyOpen->setInterval(widgetlimits::kBrowseOpenDelayMs);
    connect(m_keyOpen, &QTimer::timeout, this,
            [this, activate] { activate(m_view->currentIndex()); });
    m_view->installEventFilter(this);
    connect(m_runner, &JobRunner::finished, this, [this](quint64 id, const QVariant& result) {
        if (id == m_scanJob) {
            m_scanJob = 0;
            m_files = result.value<std::vector<DatasetFile>>();
            populate();
        } else if (id == m_countJob) {
            m_countJob = 0;
            fitCountColumns();  // the counts are in
            m_status->setText(
                tr("%1 in %2")
                    .arg(countOf(static_cast<qint64>(m_files.size()), tr("graph"), tr("graphs")),
                         m_folder));
            emit countsLoaded();
        }
    });
    connect(m_runner, &JobRunner::partial, this, [this](quint64 id, const QVariant& batch) {
        if (id == m_countJob) applyCounts(batch);
    });
    connect(m_runner, &JobRunner::failed, this, [this](quint64 id, const QString& message) {
        if (id == m_scanJob) {
            m_scanJob = 0;
            m_status->setText(message);
            emit scanFailed(message);
        } else if (id == m_countJob) {
            m_countJob = 0;
            m_status->setText(message);
        }
    });
}

bool DatasetBrowser::isBusy() const {
    return m_scanJob != 0 || m_countJob != 0;
}

void DatasetBrowser::openFolder(const QString& dir) {
    m_folder = dir;
    m_files.clear();
    m_rowOfPath.clear();
    m_model->removeRows(0, m_model->rowCount());
    m_status->setText(tr("Scanning %1…").arg(dir));
    if (m_countJob) m_runner->cancel(m_countJob);
    m_countJob = 0;
    const std::string path = dir.toStdString();
    m_scanJob = m_runner->submit(QStringLiteral("dataset-scan"), [path](JobControl&) {
        return QVariant::fromValue(scanDataset(path));
    });
}

void DatasetBrowser::populate() {
    m_model->removeRows(0, m_model->rowCount());
    m_rowOfPath.clear();
    auto countItem = [](const QString& text = {}) {
        auto* i = new QStandardItem(text);
        i->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        return i;
    };
    std::map<QString, QStandardItem*> collections;
    std::map<QString, QStandardItem*> splits;
    for (const DatasetFile* file : inListOrder(m_files)) {
        const DatasetFile& f = *file;
        const QString coll = QString::fromStdString(f.collection);
        QStandardItem*& c = collections[coll];
        if (!c) {
            c = new QStandardItem(coll);
            c->setData(coll, kGroupNameRole);
            QFont bold = c->font();
            bold.setBold(true);
            c->setFont(bold);
            m_model->appendRow({c, countItem(), countItem()});
        }
        QStandardItem* parent = c;
        if (!f.split.empty()) {
            const QString key = coll + QLatin1Char('/') + QString::fromStdString(f.split);
            QStandardItem*& s = splits[key];
            if (!s) {
                s = new QStandardItem(QString::fromStdString(f.split));
                s->setData(QString::fromStdString(f.split), kGroupNameRole);
                c->appendRow({s, countItem(), countItem()});
            }
            parent = s;
        }
        auto* name = new QStandardItem(QString::fromStdString(f.name));
        const QString path = QString::fromStdString(f.path);
        name->setData(path, kPathRole);
        name->setToolTip(f.error.empty() ? path : QString::fromStdString(f.error));
        if (!f.error.empty()) name->setForeground(QColor(0xb7, 0x1c, 0x1c));
        parent->appendRow({name,
                           countItem(f.error.empty() ? QStringLiteral("…") : QStringLiteral("!")),
                           countItem()});
        m_rowOfPath.insert(path, name);
    }
    labelGroups();
    m_view->expandToDepth(1);
    fitCountColumns();
    m_status->setText(m_files.empty() ? tr("No .npz files in %1").arg(m_folder)
                                      : tr("%1 in %2; reading counts…")
                                            .arg(countOf(static_cast<qint64>(m_files.size()),
                                                         tr("graph"), tr("graphs")),
                                                 m_folder));
    emit scanned(static_cast<int>(m_files.size()));
    if (m_files.empty()) {
        emit countsLoaded();
        return;
    }
    QStringList paths;
    for (const DatasetFile& f : m_files)
        if (f.error.empty()) paths << QString::fromStdString(f.path);
    m_countJob = m_runner->submit(QStringLiteral("dataset-counts"), [paths](JobControl& control) {
        QVector<FileCounts> batch;
        for (int i = 0; i < paths.size() && !control.cancelled(); ++i) {
            FileCounts c;
            c.path = paths[i];
            try {
                const GraphCounts counts = readGraphCounts(paths[i].toStdString());
                c.nodes = counts.nodes;
                c.configs = counts.configs;
            } catch (const std::exception& e) {
                c.error = QString::fromStdString(e.what());
            }
            batch.push_back(c);
            if (batch.size() >= widgetlimits::kCountBatchFiles) {
                control.post(QVariant::fromValue(batch));
                batch.clear();
            }
            control.setProgress(static_cast<double>(i + 1) / paths.size());
        }
        if (!batch.isEmpty()) control.post(QVariant::fromValue(batch));
        return QVariant();
    });
}

// Group rows show how many graphs they hold, and with a filter how many of them match it.
std::pair<int, int> DatasetBrowser::labelGroup(QStandardItem* item, const QString& filter) {
    if (!item->hasChildren()) return {item->text().contains(filter, Qt::CaseInsensitive) ? 1 : 0, 1};
    int shown = 0, all = 0;
    for (int r = 0; r < item->rowCount(); ++r) {
        const auto [s, a] = labelGroup(item->child(r), filter);
        shown += s;
        all += a;
    }
    const QString name = item->data(kGroupNameRole).toString();
    item->setText(filter.isEmpty() ? QStringLiteral("%1  (%2)").arg(name).arg(all)
                                   : QStringLiteral("%1  (%2 of %3)").arg(name).arg(shown).arg(all));
    return {shown, all};
}

// The count columns fit their numbers; the name column, stretched, takes the rest.
void DatasetBrowser::fitCountColumns() {
    m_view->resizeColumnToContents(1);
    m_view->resizeColumnToContents(2);
    updateGeometry();  // the dock's minimum width follows the counts' columns
}

QSize DatasetBrowser::minimumSizeHint() const {
    QSize hint = QWidget::minimumSizeHint();
    // A graph row sits under its collection and split; names are mostly lower case and digits.
    const int name = m_view->fontMetrics().horizontalAdvance(
                         QString(widgetlimits::kGraphNameMinChars, QLatin1Char('n'))) +
                     3 * m_view->indentation();
    const int counts = m_view->columnWidth(1) + m_view->columnWidth(2);
    const QMargins margins =
        contentsMargins() + (layout() ? layout()->contentsMargins() : QMargins());
    const int chrome = 2 * m_view->frameWidth() + m_view->verticalScrollBar()->sizeHint().width() +
                       margins.left() + margins.right();
    hint.setWidth(std::max(hint.width(), name + counts + chrome));
    return hint;
}

void DatasetBrowser::labelGroups() {
    const QString filter = m_filterEdit->text();
    int shown = 0;
    for (int r = 0; r < m_model->rowCount(); ++r) shown += labelGroup(m_model->item(r), filter).first;
    if (!filter.isEmpty() && !m_files.empty())
        m_status->setText(
            tr("%1 of %2 graphs match \"%3\"")
                .arg(countText(shown), countText(static_cast<qint64>(m_files.size())), filter));
}

bool DatasetBrowser::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view && event->type() == QEvent::KeyPress) {
        switch (static_cast<QKeyEvent*>(event)->key()) {
            case Qt::Key_Up:
            case Qt::Key_Down:
            case Qt::Key_PageUp:
            case Qt::Key_PageDown:
            case Qt::Key_Home:
            case Qt::Key_End:
                m_keyOpen->start();  // the view moves the current row after this filter
                break;
            default:
                break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

QMenu* DatasetBrowser::fileMenu(const QString& path) {
    if (path.isEmpty()) return nullptr;
    auto* menu = new QMenu(this);
    menu->addAction(tr("Open"), this, [this, path] { emit fileActivated(path); });
    menu->addAction(tr("Reveal in File Manager"), this, [this, path] {
        const QString folder = QFileInfo(path).absolutePath();
        if (QDesktopServices::openUrl(QUrl::fromLocalFile(folder))) return;
        // Without a desktop's opener (no xdg-open) Qt only logs a warning: say so, and keep the
        // way.
        QGuiApplication::clipboard()->setText(folder);
        emit statusMessage(tr("No file manager could be started for %1; its path is copied to the "
                              "clipboard")
                               .arg(folder));
    });
    menu->addAction(tr("Copy Path"), this, [path] { QGuiApplication::clipboard()->setText(path); });
    return menu;
}

void DatasetBrowser::applyCounts(const QVariant& value) {
    const auto batch = value.value<QVector<FileCounts>>();
    for (const FileCounts& c : batch) {
        QStandardItem* name = m_rowOfPath.value(c.path);
        if (!name) continue;
        QStandardItem* parent = name->parent();
        QStandardItem* nodes =
            parent ? parent->child(name->row(), 1) : m_model->item(name->row(), 1);
        QStandardItem* configs =
            parent ? parent->child(name->row(), 2) : m_model->item(name->row(), 2);
        if (!c.error.isEmpty()) {
            nodes->setText(QStringLiteral("!"));
            name->setToolTip(c.error);
            name->setForeground(QColor(0xb7, 0x1c, 0x1c));
            continue;
        }
        nodes->setText(countText(c.nodes));
        configs->setText(countText(c.configs));
    }
}

void DatasetBrowser::showOpenFileAfterFilter() {
    QStandardItem* item = m_rowOfPath.value(m_selectedFile);
    const QModelIndex index = item ? m_proxy->mapFromSource(item->index()) : QModelIndex();
    if (index.isValid()) {
        selectFile(m_selectedFile);
        return;
    }
    m_view->selectionModel()->clear();
    m_view->scrollToTop();
}

void DatasetBrowser::selectFile(const QString& path) {
    m_selectedFile = path;
    QStandardItem* item = m_rowOfPath.value(path);
    if (!item) return;
    const QModelIndex index = m_proxy->mapFromSource(item->index());
    if (!index.isValid()) return;
    // Out of view (a file opened from elsewhere, or the launch's), it comes to the middle, among
    // its neighbours: scrolled just into view it sat on the bottom edge, the rows after it hidden.
    if (!m_view->viewport()->rect().contains(m_view->visualRect(index)))
        m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
    m_view->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

QString DatasetBrowser::rowText(const QString& path) const {
    QStandardItem* name = m_rowOfPath.value(path);
    if (!name) return {};
    QStandardItem* parent = name->parent();
    auto cell = [&](int col) {
        return parent ? parent->child(name->row(), col)->text()
                      : m_model->item(name->row(), col)->text();
    };
    return name->text() + QStringLiteral(" | ") + cell(1) + QStringLiteral(" | ") + cell(2);
}

}  // namespace tpg
