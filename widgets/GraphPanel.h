#pragma once

#include <QHash>
#include <QVector>
#include <QWidget>
#include <memory>

#include "ConfigLayouts.h"
#include "LayoutCache.h"
#include "graph/TpuGraph.h"
#include "NodeHierarchy.h"
#include "NodeSearch.h"
#include "SceneExport.h"
#include "ViewGraph.h"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QMenu;
class QResizeEvent;
class QSpinBox;
class QToolButton;
class QTreeWidget;

namespace tpg {

class GraphScene;
class GraphView;
class JobRunner;

// The graph drawing with its controls: view mode (whole / computations / one computation /
// neighbourhood / configurable skeleton), search, zoom, back. Layouts run on the given
// runner (the application's one Graphviz thread); the newest request wins, finished layouts
// are cached by graph + view.
class GraphPanel : public QWidget {
    Q_OBJECT
public:
    GraphPanel(JobRunner* layoutRunner, QWidget* parent = nullptr);

    // `graphId` identifies the graph in the layout cache (its path, or any unique name).
    void setGraph(const TpuGraph& graph, const QString& graphId);
    void clearGraph();
    const TpuGraph& graph() const { return m_graph; }

    void requestView(const ViewSpec& spec);
    const ViewSpec& currentSpec() const { return m_spec; }  // the view requested last
    bool isLayoutPending() const { return m_layoutJob != 0; }
    // Selects `node`: in the current drawing when it is there; else, in the program view, with its
    // groups opened; else in its neighbourhood view.
    void showNode(int32_t node);
    // The program view with `group` (and its ancestors) opened, or closed (with what is inside).
    void openGroup(int group);
    void closeGroup(int group);
    const NodeHierarchy* hierarchy() const { return m_hierarchy.get(); }
    void setMarkedNodes(const QHash<int32_t, QString>& marks);
    // Nodes selected in What-if beside the chosen one, ringed (until another graph opens); a
    // strip above the drawing counts where they are and steps through them.
    void setAlsoSelected(const QVector<int32_t>& nodes);
    // Shows the next (+1) or previous (-1) node of the What-if selection by id, wherever it is
    // drawn (nodeSelected says withinSelection once it is selected there).
    void stepSelection(int direction);
    QString selectionStripText() const;  // empty while hidden
    // Labels show each node's layout under the configuration in view, copy edges its copies.
    void setConfigOverlay(const ConfigOverlay& overlay);
    void setCostMeasure(CostMeasure measure);
    QString legendText() const;
    // A one-line hint above the drawing (rich text), until dismissed or another graph opens.
    void showHint(const QString& html);
    void hideHint();
    QString hintText() const;
    // Searches: drawn matches are highlighted at once (the count is returned; a node id not drawn
    // opens its neighbourhood), and every node, drawn or not, is searched on a worker for the
    // results list (searchFinished). Enter again with the same text reveals the next result.
    int search(const QString& text);
    QTreeWidget* searchResults() const { return m_results; }
    QString searchResultsText() const;

    // The current view as a picture under a title (file, view, `caption`: e.g. the configuration
    // in view) and the legend of its colours: the visible area, or the whole view.
    QString exportSvg(const QString& path, bool visibleOnly, const QString& caption = {});
    QString exportPng(const QString& path, bool visibleOnly, const QString& caption = {});

    GraphScene* scene() const { return m_scene; }
    GraphView* view() const { return m_view; }
    QLineEdit* searchEdit() const { return m_search; }
    QToolButton* backButton() const { return m_back; }
    // The right-click menu of a node: inspect, its neighbourhood, its computation, what
    // nodeMenuBuilt's receivers add, copy its id or shape. The caller owns it.
    QMenu* nodeMenu(int32_t node);
    const LayoutCache& cache() const { return m_cache; }

signals:
    // `withinSelection`: selected by stepSelection, so What-if keeps its other selected nodes.
    void nodeSelected(int node, bool withinSelection = false);
    void nodeToggled(int node);  // Ctrl- or Shift-clicked (GraphScene::nodeToggled)
    // While a node's menu is built: a receiver (direct connection) adds its own actions for `node`.
    void nodeMenuBuilt(QMenu* menu, int node);
    void statusMessage(const QString& text);
    void layoutReady();
    void layoutFailed(const QString& message);
    void searchFinished();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    QHBoxLayout* buildToolbar();
    void buildBanners();
    void buildSearchResults();
    void connectControls();
    void connectScene();
    void focusGroup(int group);
    void fitResultsHeight();
    // The k-hop view around `node`, with `node` selected once drawn.
    void showNeighbourhood(int32_t node);
    void onLayoutFinished(quint64 id, const QVariant& result);
    void showLayout(const std::shared_ptr<const LayoutResult>& layout);
    void syncControls();
    void updateLegend();
    void goBack();
    int32_t defaultCenter() const;
    void startFullSearch(const QString& text);
    void showSearchResults(const QString& text, const NodeMatches& matches);
    void revealResult(int index);
    void refreshResultsInView();
    void updateSelectionStrip();
    QString describeResults() const;
    ExportPage exportPage(bool visibleOnly, const QString& caption) const;

    JobRunner* m_runner;
    TpuGraph m_graph;
    QString m_graphId;
    ViewSpec m_spec;
    QVector<ViewSpec> m_history;
    quint64 m_layoutJob = 0;
    QString m_pendingKey;
    int32_t m_selectAfterLayout = -1;
    int m_focusGroupAfterLayout = -1;  // a group just opened by the user
    bool m_selectOnlyIfDrawn = false;  // going back: keep the selection only where it is drawn
    QHash<int32_t, QString> m_marks;
    int32_t m_stepTo = -1;  // stepSelection's node until it is selected
    LayoutCache m_cache;
    std::shared_ptr<const NodeHierarchy> m_hierarchy;
    QVector<int32_t> m_matches;
    int m_matchIndex = -1;
    JobRunner* m_searchRunner;
    quint64 m_searchJob = 0;
    QString m_resultsQuery;  // the text the results list is for
    int m_resultIndex = -1;
    int64_t m_resultsTotal = 0;

    GraphScene* m_scene;
    GraphView* m_view;
    QComboBox* m_mode;
    QComboBox* m_colour;
    QSpinBox* m_computation;
    QSpinBox* m_hops;
    QLineEdit* m_search;
    QToolButton* m_back;
    QLabel* m_note;
    QLabel* m_hint;
    QLabel* m_selectionStrip;
    QLabel* m_busy;
    QLabel* m_legend;
    QWidget* m_resultsBox;
    QLabel* m_resultsLabel;
    QTreeWidget* m_results;
};

}  // namespace tpg
