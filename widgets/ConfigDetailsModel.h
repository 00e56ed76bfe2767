#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <cstdint>
#include <vector>

namespace tpg {

// What the chosen configuration sets, as the configurations panel lists it: a layout
// configuration's rows (a configurable node each: id, opcode, output / input / kernel layout),
// formatted only as the view asks for them, since a 45,000-node file has 2,594 configurable
// nodes and building them all took most of a choice's time; or rows given whole (a tile
// configuration's bounds, a trimmed copy's raw columns); or one message.
class ConfigDetailsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    static constexpr int NodeRole = Qt::UserRole + 1;  // column 0: the row's node id
    static constexpr int kLayoutSlots = 3;             // output, input, kernel
    static constexpr int kSlotWidth = 6;               // a slot's minor-to-major list, -1 padded

    explicit ConfigDetailsModel(QObject* parent = nullptr);

    // The configurable nodes and their opcodes, once per graph.
    void setNodes(std::vector<int32_t> nodes, QStringList opcodes);
    // A layout configuration of 18 columns a node (kLayoutSlots x kSlotWidth).
    void showLayout(const QStringList& headers, std::vector<float> row);
    // Rows given whole; `nodes` (one per row, or empty) are what a double-click shows.
    void showRows(const QStringList& headers, std::vector<QStringList> rows,
                  std::vector<int32_t> nodes = {});
    // One line across the view (the view spans it); `error` draws it dark red.
    void showMessage(const QString& header, const QString& text, bool error);
    void setHeaderToolTip(int column, const QString& tip);

    // The row whose text in `column` is longest: what the column's width is measured on.
    int widestRow(int column) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void showWhole(const QStringList& headers, std::vector<QStringList> rows,
                   std::vector<int32_t> nodes, bool message, bool error);
    QString layoutCell(int row, int slot) const;
    int layoutCellLength(int row, int slot) const;  // its characters, without building it
    QString cell(int row, int column) const;

    std::vector<int32_t> m_configurable;
    QStringList m_opcodes;
    QStringList m_headers;
    QStringList m_headerTips;
    int m_widestNodeRow = 0;      // the largest id: the most digits
    int m_widestOpcodeRow = 0;    // the longest opcode name
    std::vector<float> m_layout;  // non-empty: the rows are m_configurable's, formatted lazily
    std::vector<QStringList> m_rows;
    std::vector<int32_t> m_rowNodes;
    bool m_message = false;
    bool m_error = false;
};

}  // namespace tpg
