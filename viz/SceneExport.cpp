#include "SceneExport.h"

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <cmath>

#include "VizLimits.h"

namespace tpg {

namespace {

constexpr double kMinPageWidth = 900;  // room for the title and a legend row at any drawing size
constexpr double kMargin = 16;
constexpr double kTitlePoints = 14;
constexpr double kTextPoints = 9;
constexpr double kSwatch = 12;
constexpr double kLegendGap = 14;

QRectF sourceOf(QGraphicsScene* scene, const ExportPage& page) {
    const QRectF whole = scene->sceneRect();
    return page.source.isEmpty() ? whole : page.source.intersected(whole);
}

// The header (title, subtitle, legend rows wrapped to `width`) drawn at the top, or only measured
// when `painter` is null; returns its height.
double drawHeader(QPainter* painter, const ExportPage& page, double width) {
    QFont title;
    title.setPointSizeF(kTitlePoints);
    title.setBold(true);
    QFont text;
    text.setPointSizeF(kTextPoints);
    const QFontMetricsF tm(title), fm(text);
    double y = kMargin;
    if (painter) {
        painter->setPen(Qt::black);
        painter->setFont(title);
        painter->drawText(QPointF(kMargin, y + tm.ascent()), page.title);
    }
    y += tm.height() + 4;
    if (!page.subtitle.isEmpty()) {
        if (painter) {
            painter->setFont(text);
            painter->setPen(QColor(0x44, 0x44, 0x44));
            painter->drawText(QPointF(kMargin, y + fm.ascent()), page.subtitle);
        }
        y += fm.height() + 4;
    }
    double x = kMargin;
    for (const auto& [colour, label] : page.legend) {
        const double w = kSwatch + 4 + fm.horizontalAdvance(label) + kLegendGap;
        if (x + w > width - kMargin && x > kMargin) {
            x = kMargin;
            y += fm.height() + 4;
        }
        if (painter) {
            painter->setPen(QPen(QColor(0x88, 0x88, 0x88), 1));
            painter->setBrush(colour);
            painter->drawRect(QRectF(x, y + (fm.height() - kSwatch) / 2, kSwatch, kSwatch));
            painter->setFont(text);
            painter->setPen(Qt::black);
            painter->drawText(QPointF(x + kSwatch + 4, y + fm.ascent()), label);
        }
        x += w;
    }
    if (!page.legend.empty()) y += fm.height() + 4;
    return y + kMargin / 2;
}

// The page: header above the drawing at 1:1 scene scale, centred.
QSizeF pageSize(const QRectF& source, const ExportPage& page, double* header) {
    const double width = std::max(kMinPageWidth, source.width() + 2 * kMargin);
    *header = drawHeader(nullptr, page, width);
    return {width, *header + source.height() + kMargin};
}

void drawPage(QPainter& painter, QGraphicsScene* scene, const QRectF& source, const ExportPage& page,
              const QSizeF& size, double header) {
    painter.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
    drawHeader(&painter, page, size.width());
    const QRectF target((size.width() - source.width()) / 2, header, source.width(), source.height());
    scene->render(&painter, target, source);
}

}  // namespace

QString exportSceneSvg(QGraphicsScene* scene, const QString& path, const ExportPage& page) {
    const QRectF source = sourceOf(scene, page);
    if (source.isEmpty()) return QStringLiteral("%1: nothing is drawn, nothing to export").arg(path);
    double header = 0;
    const QSizeF size = pageSize(source, page, &header);
    // Written whole or not at all, as every file the app writes.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("%1: cannot write the file (%2)").arg(path, file.errorString());
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setTitle(page.title);
    svg.setDescription(page.subtitle.isEmpty() ? QStringLiteral("TpuGraphs Explorer view") : page.subtitle);
    svg.setSize(size.toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), size));
    QPainter painter;
    if (!painter.begin(&svg)) return QStringLiteral("%1: cannot write the file").arg(path);
    drawPage(painter, scene, source, page, size, header);
    painter.end();
    if (file.size() == 0 || !file.commit())
        return QStringLiteral("%1: cannot write the file").arg(path);
    return {};
}

QString exportScenePng(QGraphicsScene* scene, const QString& path, const ExportPage& page) {
    const QRectF source = sourceOf(scene, page);
    if (source.isEmpty()) return QStringLiteral("%1: nothing is drawn, nothing to export").arg(path);
    double header = 0;
    const QSizeF size = pageSize(source, page, &header);
    // 2x for crisp text, scaled down when that would exceed the pixel budget.
    double scale = 2.0;
    const double pixels = size.width() * size.height() * scale * scale;
    if (pixels > static_cast<double>(vizlimits::kMaxExportPixels))
        scale *= std::sqrt(static_cast<double>(vizlimits::kMaxExportPixels) / pixels);
    const QSize pixelSize(std::max(1, static_cast<int>(size.width() * scale)),
                          std::max(1, static_cast<int>(size.height() * scale)));
    QImage image(pixelSize, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return QStringLiteral("%1: not enough memory for a %2 x %3 image").arg(path).arg(pixelSize.width()).arg(pixelSize.height());
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    painter.scale(scale, scale);
    drawPage(painter, scene, source, page, size, header);
    painter.end();
    if (!savePngWhole(image, path)) return QStringLiteral("%1: cannot write the file").arg(path);
    return {};
}

bool savePngWhole(const QImage& image, const QString& path) {
    QSaveFile file(path);
    return !image.isNull() && file.open(QIODevice::WriteOnly) && image.save(&file, "PNG") &&
           file.commit();
}

}  // namespace tpg
