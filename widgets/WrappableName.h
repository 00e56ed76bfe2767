#pragma once

#include <QChar>
#include <QString>

namespace tpg {

// A file name or path that a word-wrapped label may break after its underscores and dots: Qt
// breaks lines at spaces, hyphens and slashes only, so a real nlp file's name
// ("small_bert_bert_en_uncased_L-10_H-128_A-2_batch_size_32_train.npz") was one word whose width
// became the dock's, and the window's, minimum. The zero-width spaces it inserts draw nothing.
inline QString wrappableName(const QString& name) {
    QString out;
    out.reserve(name.size() + name.size() / 4);
    for (const QChar c : name) {
        out += c;
        if (c == QLatin1Char('_') || c == QLatin1Char('.')) out += QChar(0x200B);
    }
    return out;
}

}  // namespace tpg
