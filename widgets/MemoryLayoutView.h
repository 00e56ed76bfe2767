#pragma once

#include <QString>
#include <QWidget>

#include "MemoryTiling.h"

namespace tpg {

// A tensor as laid out in memory, drawn natively: the plane of its two most-minor dimensions in
// (8 x 128) tiles, the used part of each tile filled and the padding shaded, the other dimensions
// as a stack of planes; with the XLA notation and the padded-to-used ratio. Or a tensor cut into
// a tile configuration's tiles (MemoryTiling::Grid::KernelTile), partial tiles shaded past its
// edge. Tensors of any size: beyond widgetlimits::kMaxTilesDrawn tiles a side the middle is
// summarised.
class MemoryLayoutView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryLayoutView(QWidget* parent = nullptr);
    void setTensor(const QString& title, const MemoryTiling& tiling);
    void clear(const QString& message);
    const MemoryTiling& tiling() const { return m_tiling; }
    QString summaryText() const;  // the lines drawn above the picture
    QSize sizeHint() const override { return {380, 260}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void drawTiles(QPainter& p, const QRectF& full) const;
    QString kernelTileText() const;
    QString m_title, m_message;
    MemoryTiling m_tiling;
};

}  // namespace tpg
