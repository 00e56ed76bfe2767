#include "SceneExport.h"

#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <cmath>

#include "VizLimits.h"

namespace tpg {

QString exportSceneSvg(QGraphicsScene* scene, const QString& path, const QString& title) {
    const QRectF source = scene->sceneRect();
    if (source.isEmpty())
        return QStringLiteral("%1: nothing is drawn, nothing to export").arg(path);
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setTitle(title);
    svg.setDescription(QStringLiteral("TpuGraphs Explorer view"));
    svg.setSize(source.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), source.size()));
    QPainter painter;
    if (!painter.begin(&svg)) return QStringLiteral("%1: cannot write the file").arg(path);
    scene->render(&painter, QRectF(QPointF(0, 0), source.size()), source);
    painter.end();
    if (!QFileInfo(path).exists() || QFileInfo(path).size() == 0)
        return QStringLiteral("%1: cannot write the file").arg(path);
    return {};
}

QString exportScenePng(QGraphicsScene* scene, const QString& path) {
    const QRectF source = scene->sceneRect();
    if (source.isEmpty())
        return QStringLiteral("%1: nothing is drawn, nothing to export").arg(path);
    // 2x for crisp text, scaled down when that would exceed the pixel budget.
    double scale = 2.0;
    const double pixels = source.width() * source.height() * scale * scale;
    if (pixels > static_cast<double>(vizlimits::kMaxExportPixels))
        scale *= std::sqrt(static_cast<double>(vizlimits::kMaxExportPixels) / pixels);
    const QSize size(std::max(1, static_cast<int>(source.width() * scale)),
                     std::max(1, static_cast<int>(source.height() * scale)));
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return QStringLiteral("%1: not enough memory for a %2 x %3 image")
            .arg(path)
            .arg(size.width())
            .arg(size.height());
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    scene->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
    painter.end();
    if (!image.save(path, "PNG")) return QStringLiteral("%1: cannot write the file").arg(path);
    return {};
}

}  // namespace tpg
