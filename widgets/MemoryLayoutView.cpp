#include "MemoryLayoutView.h"

#include <QPainter>
#include <QStringList>
#include <algorithm>
#include <cmath>

#include "CountText.h"
#include "WidgetLimits.h"

namespace tpg {

namespace {

const QColor kUsed(0x42, 0x85, 0xf4);
const QColor kPadding(0xe0, 0xe0, 0xe0);
const QColor kPaddingHatch(0xb0, 0xb0, 0xb0);

// Which tiles of `count` along a side are drawn: all, or the first ones, a gap, and the last.
std::vector<int64_t> shownTiles(int64_t count, int maxDrawn) {
    std::vector<int64_t> shown;
    if (count <= maxDrawn) {
        for (int64_t i = 0; i < count; ++i) shown.push_back(i);
        return shown;
    }
    for (int64_t i = 0; i < maxDrawn - 2; ++i) shown.push_back(i);
    shown.push_back(-1);  // the summarised middle
    shown.push_back(count - 1);
    return shown;
}

QString bytesText(double b) {
    if (b >= 1 << 20) return QStringLiteral("%1 MiB").arg(b / (1 << 20), 0, 'f', 2);
    if (b >= 1 << 10) return QStringLiteral("%1 KiB").arg(b / (1 << 10), 0, 'f', 1);
    return QStringLiteral("%1 B").arg(b, 0, 'f', 0);
}

}  // namespace

MemoryLayoutView::MemoryLayoutView(QWidget* parent) : QWidget(parent) {
    setMinimumSize(260, 180);
    clear(tr("Select a node to see its tensor in memory."));
}

void MemoryLayoutView::setTensor(const QString& title, const MemoryTiling& tiling) {
    m_title = title;
    m_tiling = tiling;
    m_message = tiling.drawable ? QString() : tr("%1: %2 — nothing to tile").arg(title, tiling.why);
    update();
}

void MemoryLayoutView::clear(const QString& message) {
    m_title.clear();
    m_tiling = {};
    m_message = message;
    update();
}

QString MemoryLayoutView::summaryText() const {
    if (!m_tiling.drawable) return m_message;
    const MemoryTiling& t = m_tiling;
    if (t.grid == MemoryTiling::Grid::KernelTile) return kernelTileText();
    QStringList lines{m_title, t.notation};
    if (t.secondDim >= 0)
        lines << tr("dim %1 (%2) across 128 lanes · dim %3 (%4) down %5 sublanes · %6 planes")
                     .arg(t.minorDim)
                     .arg(t.minor)
                     .arg(t.secondDim)
                     .arg(t.second)
                     .arg(t.tileRows)
                     .arg(t.planes);
    else
        lines << tr("dim %1 (%2) across 128 lanes").arg(t.minorDim).arg(t.minor);
    lines << tr("%1 used · %2 as tiled (×%3)%4")
                 .arg(bytesText(t.usedBytes), bytesText(t.paddedBytes))
                 .arg(t.paddedRatio, 0, 'f', 2)
                 .arg(t.smallerTile ? tr(": beyond ×8 the compiler picks smaller tiles") : QString());
    return lines.join(QLatin1Char('\n'));
}

QString MemoryLayoutView::kernelTileText() const {
    const MemoryTiling& t = m_tiling;
    QStringList lines{m_title, t.notation};
    QString cut =
        tr("dim %1 (%2) in tiles of %3 across").arg(t.minorDim).arg(t.minor).arg(t.tileCols);
    if (t.secondDim >= 0)
        cut +=
            tr(" · dim %1 (%2) in tiles of %3 down").arg(t.secondDim).arg(t.second).arg(t.tileRows);
    if (t.planes > 1) cut += tr(" · ×%1 along the other dimensions").arg(countText(t.planes));
    lines << cut;
    const int64_t tiles = t.tilesAcross * t.tilesDown * t.planes;
    QString steps = tiles == 1
                        ? tr("1 tile: the kernel's loop runs once")
                        : tr("%1 tiles: the kernel's loop runs %1 times").arg(countText(tiles));
    steps += t.paddedRatio > 1
                 ? tr(" · partial tiles compute ×%1 the tensor").arg(t.paddedRatio, 0, 'f', 2)
                 : tr(" · no partial tiles");
    lines << steps;
    // A tile narrower than a vector register still occupies all of its lanes.
    if (t.tileCols < kRegisterLanes) {
        const double lanePadding = static_cast<double>(kRegisterLanes) / t.tileCols *
                                   (t.secondDim >= 0 && t.tileRows < kRegisterSublanes
                                        ? static_cast<double>(kRegisterSublanes) / t.tileRows
                                        : 1.0);
        lines << tr("a tile %1 wide fills %1 of a register's %2 lanes%3")
                     .arg(t.tileCols)
                     .arg(kRegisterLanes)
                     .arg(lanePadding > kMaxChargedPadding
                              ? tr(" (the synthetic TPU charges ×%1 at most: the compiler picks "
                                   "smaller register tiles)")
                                    .arg(kMaxChargedPadding)
                              : QString());
    }
    return lines.join(QLatin1Char('\n'));
}

void MemoryLayoutView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().text().color());
    const QString text = summaryText();
    const QRectF textArea = rect().adjusted(6, 4, -6, -4);
    const QRectF used = p.boundingRect(textArea, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, text);
    p.drawText(textArea, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, text);
    if (!m_tiling.drawable) return;
    drawTiles(p, QRectF(textArea.left() + 8, used.bottom() + 10, textArea.width() - 16,
                        textArea.bottom() - used.bottom() - 14));
}

void MemoryLayoutView::drawTiles(QPainter& p, const QRectF& full) const {
    const MemoryTiling& t = m_tiling;
    // The key under the tiles wraps in a narrow view (it ran off the right of the 282-px one).
    const bool kernelTile = t.grid == MemoryTiling::Grid::KernelTile;
    const QString key =
        (kernelTile ? tr("%1 × %2 tiles a plane · blue: the tensor · grey: past its edge")
                    : tr("%1 × %2 tiles a plane · blue: the tensor · grey: padding"))
            .arg(countText(t.tilesDown), countText(t.tilesAcross));
    const double keyHeight = p.boundingRect(full, Qt::AlignLeft | Qt::TextWordWrap, key).height();
    const QRectF area = full.adjusted(0, 0, 0, -(keyHeight + 4));
    const auto across = shownTiles(t.tilesAcross, widgetlimits::kMaxTilesDrawn);
    const auto down = shownTiles(t.tilesDown, widgetlimits::kMaxTilesDrawn);
    // A tile keeps the 1:16 aspect of 8 x 128 as far as the area allows; planes stack behind.
    const double stack = t.planes > 1 ? 8.0 : 0.0;
    double w = std::max(8.0, (area.width() - stack) / static_cast<double>(across.size()) - 4);
    // A kernel's tile keeps its own aspect, its square root: 16 x 2 and 128 x 3072 both fit.
    const double aspect = kernelTile ? std::sqrt(static_cast<double>(t.tileRows) / t.tileCols)
                                     : static_cast<double>(t.tileRows) / 128.0 * 4.0;
    const double hMax =
        std::max(6.0, (area.height() - stack) / static_cast<double>(down.size()) - 4);
    const double h = std::clamp(w * aspect, 6.0, hMax);
    if (kernelTile) w = std::max(8.0, std::min(w, h / aspect));  // a tall tile stays narrow
    for (int behind = t.planes > 1 ? 2 : 0; behind >= 0; --behind) {
        const QPointF shift(behind * stack / 2, -behind * stack / 2);
        for (size_t r = 0; r < down.size(); ++r)
            for (size_t c = 0; c < across.size(); ++c) {
                const QRectF tile(area.left() + static_cast<double>(c) * (w + 4) + shift.x(),
                                  area.top() + stack + static_cast<double>(r) * (h + 4) + shift.y(), w, h);
                if (across[c] < 0 || down[r] < 0) {
                    if (behind == 0) p.drawText(tile, Qt::AlignCenter, QStringLiteral("…"));
                    continue;
                }
                if (behind > 0) {  // planes behind: outlines only
                    p.setPen(QPen(Qt::gray, 0.8));
                    p.setBrush(palette().base());
                    p.drawRect(tile);
                    continue;
                }
                const int64_t colsUsed = std::min<int64_t>(t.tileCols, t.minor - across[c] * t.tileCols);
                const int64_t rowsUsed = std::min<int64_t>(t.tileRows, t.second - down[r] * t.tileRows);
                p.setPen(Qt::NoPen);
                p.setBrush(QBrush(kPaddingHatch, Qt::BDiagPattern));
                p.fillRect(tile, kPadding);
                p.drawRect(tile);
                p.fillRect(QRectF(tile.left(), tile.top(), w * static_cast<double>(colsUsed) / t.tileCols,
                                  h * static_cast<double>(rowsUsed) / t.tileRows),
                           kUsed);
                p.setPen(QPen(Qt::black, 1));
                p.setBrush(Qt::NoBrush);
                p.drawRect(tile);
            }
    }
    p.setPen(palette().text().color());
    p.drawText(QRectF(full.left(), full.bottom() - keyHeight, full.width(), keyHeight),
               Qt::AlignLeft | Qt::TextWordWrap, key);
}

}  // namespace tpg
