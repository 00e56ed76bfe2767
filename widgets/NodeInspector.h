#pragma once

#include <QWidget>
#include <vector>

#include "ConfigLayouts.h"
#include "graph/TpuGraph.h"

class QLabel;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace tpg {

// Everything known about one node: its tensor as XLA prints it, its operands and users, its
// layouts in the chosen configuration, and every node feature under its schema name, grouped
// (shape, layout, window, convolution, slice, ...), non-zero values first.
class NodeInspector : public QWidget {
    Q_OBJECT
public:
    explicit NodeInspector(QWidget* parent = nullptr);

    void setGraph(const TpuGraph& graph);
    void showNode(int32_t node);     // -1 clears
    void setConfig(int64_t config);  // -1: none chosen
    // Tensors as the explained configuration (or what-if edit) lays them out, as the graph's
    // labels show them, and an edit's slots in place of the chosen configuration's; an empty
    // overlay: as the file and the chosen configuration have them.
    void setConfigOverlay(const ConfigOverlay& overlay);
    int32_t node() const { return m_node; }

    // The inspector's content as text (header, then "group / name: value" lines).
    QString plainText() const;

signals:
    void nodeActivated(int node);  // an operand or user was double-clicked

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitNameColumn();
    void rebuild();
    void setHeader();
    // Puts rows built apart from the tree (children of `built`) in it; whether a name changed.
    bool showRows(QTreeWidgetItem& built);
    void addConnections(QTreeWidgetItem& root);
    bool addConfigGroup(QTreeWidgetItem& root);  // whether its row waits for the table's decode
    void addFeatureGroups(QTreeWidgetItem& root);
    void addFeatureGroup(QTreeWidgetItem& root, const QString& title, const std::vector<int>& cols);
    void addSlotRows(QTreeWidgetItem* group, const float* features, int64_t width);
    // Whether the chosen configuration's row can be read without waiting for the decode (layout).
    bool configReadable() const;
    void showDecompressing();  // the waiting row's progress, or the layouts once they are read
    QString tensorText(int32_t node) const;  // under the overlay

    TpuGraph m_graph;
    int32_t m_node = -1;
    int64_t m_config = -1;
    int32_t m_shownNode = -1;         // the node whose rows the tree holds
    QString m_overlayLabel;           // what the overlay lays out
    ConfigLayoutsByNode m_layouts;    // the nodes it lays out otherwise than the file
    std::vector<float> m_overlayRow;  // its row when an edit; empty: the chosen configuration's
    QLabel* m_header;
    QLabel* m_warning;
    QTreeWidget* m_tree;
    QTimer* m_decodePoll;
};

}  // namespace tpg
