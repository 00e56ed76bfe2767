#pragma once

#include <QGraphicsScene>
#include <QHash>
#include <QVector>
#include <memory>
#include <vector>

#include "ConfigLayouts.h"
#include "GraphItems.h"
#include "GraphvizLayout.h"
#include "graph/TpuGraph.h"

namespace tpg {

// The items of one laid-out view. Selecting a node highlights its producers and consumers
// (and the edges between); configuration marks and search matches are overlays.
class GraphScene : public QGraphicsScene {
    Q_OBJECT
public:
    explicit GraphScene(QObject* parent = nullptr);
    ~GraphScene() override;

    void showLayout(const TpuGraph& graph, std::shared_ptr<const LayoutResult> layout);
    void clearView();

    const TpuGraph& graph() const { return m_graph; }
    const std::shared_ptr<const LayoutResult>& layout() const { return m_layout; }
    GraphNodeItem* itemForNode(int32_t node) const;
    const std::vector<GraphNodeItem*>& nodeItems() const { return m_items; }
    const std::vector<GraphEdgeItem*>& edgeItems() const { return m_edges; }

    int32_t selectedNode() const { return m_selected; }
    // Selects a drawn node (false when the node is not in this view); -1 clears.
    bool selectNode(int32_t node);
    // Drawn nodes in each role around the selection, for status and tests.
    QVector<int32_t> nodesWithRole(HighlightRole role) const;

    // Nodes selected in What-if beside the selected one (an edit there goes to them too): ringed
    // in the selection's colour, as is a closed box holding some; kept across re-layouts.
    void setAlsoSelected(const QVector<int32_t>& nodes);
    const QVector<int32_t>& alsoSelected() const { return m_alsoSelected; }  // as set
    QVector<int32_t> alsoSelectedNodes() const;  // those drawn as nodes
    // Where the What-if selection's other nodes are in this drawing.
    struct AlsoSelectedShown {
        int asNodes = 0;   // drawn, ringed
        int inBoxes = 0;   // inside a closed group or computation box, which is ringed
        int notDrawn = 0;  // outside this view (a neighbourhood, one computation, a cut view)
    };
    AlsoSelectedShown alsoSelectedShown() const { return m_alsoShown; }
    // node -> its layouts in the chosen configuration; the nodes are marked in the drawing, and a
    // closed box holding some is marked with their list.
    void setMarkedNodes(const QHash<int32_t, QString>& marks);
    // Nodes whose layout under the configuration in view differs from the file's default: the
    // label shows it (kept across re-layouts, like marks); empty restores the defaults.
    // ... and edges where the compiler inserts a copy under it are drawn as copies.
    void setConfigOverlay(const ConfigOverlay& overlay);
    const ConfigLayoutsByNode& configLayouts() const { return m_overlay.layouts; }
    const CopyNotesByEdge& configCopies() const { return m_overlay.copies; }
    bool hasConfigOverlay() const { return !m_overlay.isEmpty(); }
    // Colours nodes by a cost under the configuration in view (None: by op category); a
    // computation's box by its members' sum. The scale runs to the costliest item drawn.
    void setCostMeasure(CostMeasure measure);
    CostMeasure costMeasure() const { return m_costMeasure; }
    double costScaleNs() const { return m_costScaleNs; }  // the red end of the scale
    // Drawn nodes matching `query`: "12" / "#12" is a node id, anything else an opcode substring.
    QVector<int32_t> findNodes(const QString& query) const;
    void setSearchMatches(const QVector<int32_t>& nodes);

signals:
    void nodeSelected(int node);  // -1 when the selection is cleared
    void nodeActivated(int node);
    // Ctrl- or Shift-click on a node: it joins or leaves a selection kept elsewhere (What-if's);
    // the scene's selected node stays.
    void nodeToggled(int node);
    void computationActivated(int computation);
    void groupActivated(int group);  // a box of the program view, double-clicked
    void summaryActivated(int anchorNode);

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

private:
    void onSelectionChanged();
    void applyMarks();
    void applyHighlight();

    TpuGraph m_graph;
    std::shared_ptr<const LayoutResult> m_layout;
    std::vector<GraphNodeItem*> m_items;  // by view item index
    std::vector<GraphEdgeItem*> m_edges;  // by view edge index
    int32_t m_selected = -1;
    QHash<int32_t, QString> m_marks;
    QVector<int32_t> m_alsoSelected;
    AlsoSelectedShown m_alsoShown;
    ConfigOverlay m_overlay;
    CostMeasure m_costMeasure = CostMeasure::None;
    double m_costScaleNs = 0;
    void applyOverlay(bool on);
    void placeCopyLabels();
    void applyColours();
    bool m_selecting = false;
};

}  // namespace tpg
