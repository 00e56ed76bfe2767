#pragma once

#include <QString>

class QGraphicsScene;

namespace tpg {

// Writes the whole scene (the current view's drawing) as SVG or PNG. Returns "" on success,
// else a message naming the file and the problem.
QString exportSceneSvg(QGraphicsScene* scene, const QString& path, const QString& title);
QString exportScenePng(QGraphicsScene* scene, const QString& path);

}  // namespace tpg
