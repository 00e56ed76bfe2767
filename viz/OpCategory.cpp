#include "OpCategory.h"

#include <string>

#include "graph/Schema.h"

namespace tpg {

namespace {

bool startsWith(const std::string& s, const char* p) {
    return s.rfind(p, 0) == 0;
}

bool isOneOf(const std::string& s, std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (s == n) return true;
    return false;
}

}  // namespace

OpCategory opCategory(int opcode) {
    const std::string n = schema::opcodeName(opcode);
    if (isOneOf(n, {"parameter", "constant", "iota", "infeed", "rng", "rng-bit-generator",
                    "rng-get-and-update-state", "partition-id", "replica-id", "after-all"}))
        return OpCategory::Input;
    if (isOneOf(n, {"convolution", "dot", "fft", "custom-call", "cholesky", "triangular-solve",
                    "batch-norm-grad", "batch-norm-inference", "batch-norm-training"}))
        return OpCategory::Compute;
    if (isOneOf(n, {"reduce", "reduce-window", "select-and-scatter", "sort", "reduce-precision"}))
        return OpCategory::Reduction;
    if (isOneOf(n,
                {"reshape", "transpose", "copy", "copy-start", "copy-done", "broadcast", "slice",
                 "concatenate", "pad", "gather", "scatter", "dynamic-slice", "dynamic-update-slice",
                 "reverse", "dynamic-reshape", "get-dimension-size", "set-dimension-size"}))
        return OpCategory::DataMovement;
    if (isOneOf(n, {"tuple", "get-tuple-element", "call", "while", "conditional", "fusion",
                    "bitcast", "domain", "add-dependency", "opt-barrier", "map", "async-start",
                    "async-update", "async-done", "outfeed"}))
        return OpCategory::Structure;
    if (startsWith(n, "all-") || startsWith(n, "collective-") || startsWith(n, "send") ||
        startsWith(n, "recv") || n == "reduce-scatter")
        return OpCategory::Communication;
    if (n.rfind("unknown", 0) == 0) return OpCategory::Other;
    return OpCategory::Elementwise;
}

QString opCategoryName(OpCategory c) {
    switch (c) {
        case OpCategory::Input:
            return QStringLiteral("input / constant");
        case OpCategory::Compute:
            return QStringLiteral("convolution / dot");
        case OpCategory::Elementwise:
            return QStringLiteral("elementwise");
        case OpCategory::Reduction:
            return QStringLiteral("reduction");
        case OpCategory::DataMovement:
            return QStringLiteral("data movement");
        case OpCategory::Structure:
            return QStringLiteral("tuple / control");
        case OpCategory::Communication:
            return QStringLiteral("communication");
        case OpCategory::Other:
            return QStringLiteral("unknown opcode");
    }
    return {};
}

QColor opCategoryColor(OpCategory c) {
    // Light fills so black labels stay readable; hues far apart for the common categories.
    switch (c) {
        case OpCategory::Input:
            return QColor(0xd9, 0xea, 0xd3);
        case OpCategory::Compute:
            return QColor(0xf9, 0xcb, 0x9c);
        case OpCategory::Elementwise:
            return QColor(0xcf, 0xe2, 0xf3);
        case OpCategory::Reduction:
            return QColor(0xd9, 0xd2, 0xe9);
        case OpCategory::DataMovement:
            return QColor(0xff, 0xf2, 0xcc);
        case OpCategory::Structure:
            return QColor(0xe6, 0xe6, 0xe6);
        case OpCategory::Communication:
            return QColor(0xf4, 0xcc, 0xcc);
        case OpCategory::Other:
            return QColor(0xff, 0xff, 0xff);
    }
    return Qt::white;
}

}  // namespace tpg
