#pragma once

#include <QHash>
#include <QStyledItemDelegate>
#include <QWidget>

#include "graph/DatasetIndex.h"

class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QStandardItem;
class QStandardItemModel;
class QTimer;
class QTreeView;

namespace tpg {

class JobRunner;

// Cuts each row's name where the list is narrow as elideModeOf says (a view has one mode for all
// rows: at the end, a narrow dock read "transformer..." four times over).
class NameElisionDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    // A graph's name in the middle, keeping the end that tells a collection's programs apart
    // ("trans…r_003"); a group's at its end, keeping the collection ("layout:xla:def…").
    static Qt::TextElideMode elideModeOf(const QModelIndex& index);

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};

// A dataset folder as a tree: collection / split / graph, with node and config counts.
// The folder is scanned in the background, then each file's counts are read from its array
// headers (only the zip directory and two .npy headers per file), in batches, also in the
// background. Filterable by name.
class DatasetBrowser : public QWidget {
    Q_OBJECT
public:
    explicit DatasetBrowser(JobRunner* runner, QWidget* parent = nullptr);

    void openFolder(const QString& dir);
    QString folder() const { return m_folder; }
    const std::vector<DatasetFile>& files() const { return m_files; }
    bool isBusy() const;
    // Highlights the row of `path` (when listed) without emitting fileActivated; the filter
    // keeps it highlighted while it matches.
    void selectFile(const QString& path);
    QTreeView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filterEdit; }
    QStandardItemModel* model() const { return m_model; }
    // Text of the row for `path`: "name | nodes | configs" ("" when not listed).
    QString rowText(const QString& path) const;
    // The right-click menu of a graph row (open, reveal in the file manager, copy the path);
    // nullptr for a group row. The caller owns it.
    QMenu* fileMenu(const QString& path);
    // Steps through the graphs with the arrow keys (Page Up/Down, Home, End too), opening each
    // once the keys rest on it.
    bool eventFilter(QObject* watched, QEvent* event) override;
    // Wide enough for a graph's name beside its counts, so a narrow window squeezes the graph's
    // picture, not the names (widgetlimits::kGraphNameMinChars).
    QSize minimumSizeHint() const override;

signals:
    void fileActivated(const QString& path);
    void scanned(int files);  // the tree is listed (counts still loading)
    void countsLoaded();      // every file's counts are read
    void scanFailed(const QString& message);
    void statusMessage(const QString& message);  // for the status bar, e.g. a reveal that failed

private:
    void populate();
    void applyCounts(const QVariant& batch);
    void labelGroups();
    void fitCountColumns();
    // After a filter change: the open file's row highlighted and in view if it matches, else no
    // row highlighted (Qt had moved the highlight to a file not open) and the first matches in
    // view.
    void showOpenFileAfterFilter();
    std::pair<int, int> labelGroup(QStandardItem* item, const QString& filter);  // (matching, all) graphs

    JobRunner* m_runner;
    QString m_folder;
    QString m_selectedFile;  // the open file, as selectFile last named it
    std::vector<DatasetFile> m_files;
    QHash<QString, QStandardItem*> m_rowOfPath;  // name item of each file row
    quint64 m_scanJob = 0;
    quint64 m_countJob = 0;
    QLineEdit* m_filterEdit;
    QLabel* m_status;
    QStandardItemModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTreeView* m_view;
    QTimer* m_keyOpen;  // opens the row arrow keys rest on (widgetlimits::kBrowseOpenDelayMs)
};

}  // namespace tpg
