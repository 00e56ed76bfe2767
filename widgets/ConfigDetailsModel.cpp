#include "ConfigDetailsModel.h"

#include <QBrush>
#include <algorithm>
#include <cmath>
#include <utility>

#include "TensorText.h"

namespace tpg {

namespace {

constexpr int kLayoutColumns = 2 + ConfigDetailsModel::kLayoutSlots;  // node, opcode, the slots
constexpr int kDefaultLayoutChars = 7;                                // "default"

// Characters of an integer as QString::number writes it.
int digitsOf(int64_t v) {
    int n = v < 0 ? 2 : 1;
    for (int64_t rest = v < 0 ? -v : v; rest >= 10; rest /= 10) ++n;
    return n;
}

}  // namespace

ConfigDetailsModel::ConfigDetailsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ConfigDetailsModel::setNodes(std::vector<int32_t> nodes, QStringList opcodes) {
    beginResetModel();
    m_configurable = std::move(nodes);
    m_opcodes = std::move(opcodes);
    // The node and opcode columns are the same for every configuration: their widest rows once.
    m_widestNodeRow = static_cast<int>(
        std::max_element(m_configurable.begin(), m_configurable.end()) - m_configurable.begin());
    m_widestOpcodeRow = 0;
    for (int r = 0; r < m_opcodes.size(); ++r)
        if (m_opcodes[r].size() > m_opcodes[m_widestOpcodeRow].size()) m_widestOpcodeRow = r;
    m_layout.clear();
    m_rows.clear();
    m_rowNodes.clear();
    m_message = false;
    endResetModel();
}

void ConfigDetailsModel::showLayout(const QStringList& headers, std::vector<float> row) {
    beginResetModel();
    m_headers = headers;
    m_headerTips.clear();
    m_layout = std::move(row);
    m_layout.resize(m_configurable.size() * kLayoutSlots * kSlotWidth, -1.0F);
    m_rows.clear();
    m_rowNodes.clear();
    m_message = false;
    endResetModel();
}

void ConfigDetailsModel::showRows(const QStringList& headers, std::vector<QStringList> rows,
                                  std::vector<int32_t> nodes) {
    showWhole(headers, std::move(rows), std::move(nodes), false, false);
}

void ConfigDetailsModel::showMessage(const QString& header, const QString& text, bool error) {
    showWhole({header}, {{text}}, {}, true, error);
}

void ConfigDetailsModel::showWhole(const QStringList& headers, std::vector<QStringList> rows,
                                   std::vector<int32_t> nodes, bool message, bool error) {
    beginResetModel();
    m_headers = headers;
    m_headerTips.clear();
    m_layout.clear();
    m_rows = std::move(rows);
    m_rowNodes = std::move(nodes);
    m_message = message;
    m_error = error;
    endResetModel();
}

void ConfigDetailsModel::setHeaderToolTip(int column, const QString& tip) {
    while (m_headerTips.size() <= column) m_headerTips << QString();
    m_headerTips[column] = tip;
    emit headerDataChanged(Qt::Horizontal, column, column);
}

int ConfigDetailsModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return static_cast<int>(m_layout.empty() ? m_rows.size() : m_configurable.size());
}

int ConfigDetailsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_headers.size());
}

QString ConfigDetailsModel::layoutCell(int row, int slot) const {
    return layoutString(
        m_layout.data() + (static_cast<size_t>(row) * kLayoutSlots + slot) * kSlotWidth,
        kSlotWidth);
}

int ConfigDetailsModel::layoutCellLength(int row, int slot) const {
    const float* v =
        m_layout.data() + (static_cast<size_t>(row) * kLayoutSlots + slot) * kSlotWidth;
    if (isDefaultLayout(v, kSlotWidth)) return kDefaultLayoutChars;
    int chars = 1;  // "{"
    for (int i = 0; i < kSlotWidth; ++i) {
        const auto axis = static_cast<int64_t>(std::llround(v[i]));
        if (axis != -1) chars += digitsOf(axis) + 1;  // and its "," or "}"
    }
    return chars == 1 ? 2 : chars;  // "{}"
}

QString ConfigDetailsModel::cell(int row, int column) const {
    if (m_layout.empty()) return m_rows[static_cast<size_t>(row)].value(column);
    if (column == 0) return QStringLiteral("#%1").arg(m_configurable[static_cast<size_t>(row)]);
    if (column == 1) return m_opcodes.value(row);
    return layoutCell(row, column - 2);
}

int ConfigDetailsModel::widestRow(int column) const {
    if (!m_layout.empty() && column == 0) return m_widestNodeRow;
    if (!m_layout.empty() && column == 1) return m_widestOpcodeRow;
    int widest = 0;
    int longest = -1;
    for (int r = 0; r < rowCount(); ++r) {
        const int chars = !m_layout.empty() && column < kLayoutColumns
                              ? layoutCellLength(r, column - 2)
                              : static_cast<int>(cell(r, column).size());
        if (chars > longest) {
            longest = chars;
            widest = r;
        }
    }
    return widest;
}

QVariant ConfigDetailsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const int row = index.row();
    const int32_t node = !m_layout.empty() ? m_configurable[static_cast<size_t>(row)]
                         : static_cast<size_t>(row) < m_rowNodes.size()
                             ? m_rowNodes[static_cast<size_t>(row)]
                             : -1;
    switch (role) {
        case Qt::DisplayRole:
            return cell(row, index.column());
        case NodeRole:
            return index.column() == 0 && node >= 0 ? QVariant(node) : QVariant();
        case Qt::ToolTipRole:
            if (m_message) return cell(row, 0);
            if (index.column() == 0 && node >= 0)
                return tr("double-click to show node %1 in the graph").arg(node);
            return {};
        case Qt::ForegroundRole:
            return m_message && m_error ? QVariant(QBrush(Qt::darkRed)) : QVariant();
        default:
            return {};
    }
}

QVariant ConfigDetailsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= m_headers.size()) return {};
    if (role == Qt::DisplayRole) return m_headers[section];
    if (role == Qt::ToolTipRole && section < m_headerTips.size() &&
        !m_headerTips[section].isEmpty())
        return m_headerTips[section];
    return {};
}

}  // namespace tpg
