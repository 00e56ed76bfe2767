#pragma once

#include <QChar>
#include <QDir>
#include <QFileInfo>
#include <QString>

#include "WidgetLimits.h"

namespace tpg {

// A model as the explorer's labels name it: a model file by its folder and file name
// ("2026-11-29_005648_layout-xla-default/model.tpgm"), which tell training runs apart where the
// file name alone does not; other labels ("built-in layout:xla:default model") as they are. A name
// longer than widgetlimits::kModelNameMaxChars keeps its two ends. Tooltips carry the whole label.
inline QString shortModelName(const QString& label) {
    QString name = label;
    if (label.contains(QLatin1Char('/'))) {
        const QFileInfo file(label);
        const QString folder = file.dir().dirName();
        name = folder.isEmpty() || folder == QStringLiteral(".")
                   ? file.fileName()
                   : folder + QLatin1Char('/') + file.fileName();
    }
    constexpr int kMax = widgetlimits::kModelNameMaxChars;
    if (name.size() <= kMax) return name;
    const int head = (kMax - 1) / 2;
    return name.left(head) + QChar(0x2026) + name.right(kMax - 1 - head);
}

}  // namespace tpg
