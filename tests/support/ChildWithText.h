#pragma once

// Test support: the child of `parent` showing `text` (a button or an action, found as a person
// finds it: by its label), or null.
#include <QObject>
#include <QString>

template <class Labelled>
Labelled* childWithText(const QObject& parent, const QString& text) {
    for (Labelled* child : parent.findChildren<Labelled*>())
        if (child->text() == text) return child;
    return nullptr;
}
