#pragma once

#include <QColor>
#include <QRectF>
#include <QString>
#include <utility>
#include <vector>

class QGraphicsScene;
class QImage;

namespace tpg {

// What an exported picture shows besides the drawing: a title (file, view, configuration), a
// legend (colour swatches with their meaning), and which part of the scene (the visible area, or
// an empty rect for the whole view).
struct ExportPage {
    QString title;
    QString subtitle;
    std::vector<std::pair<QColor, QString>> legend;
    QRectF source;  // scene coordinates; empty: the whole scene
};

// Writes the drawing under its title and legend as SVG (with a viewBox) or PNG (2x, bounded by
// vizlimits::kMaxExportPixels). Returns "" on success, else a message naming the file and the
// problem.
QString exportSceneSvg(QGraphicsScene* scene, const QString& path, const ExportPage& page);
QString exportScenePng(QGraphicsScene* scene, const QString& path, const ExportPage& page);

// Saves `image` as PNG at `path` whole or not at all (QSaveFile): a failed save keeps the file it
// would have replaced. False when it cannot.
bool savePngWhole(const QImage& image, const QString& path);

}  // namespace tpg
