#pragma once

#include <QColor>
#include <QString>

namespace tpg {

// Coarse families of HLO opcodes, for colouring nodes and the legend.
enum class OpCategory {
    Input,          // parameter, constant, iota, infeed, rng
    Compute,        // convolution, dot, fft, custom-call, ... (where the FLOPs are)
    Elementwise,    // add, multiply, exp, compare, select, convert, ...
    Reduction,      // reduce, reduce-window, select-and-scatter, sort
    DataMovement,   // reshape, transpose, copy, broadcast, slice, concatenate, pad, gather, ...
    Structure,      // tuple, get-tuple-element, call, while, conditional, fusion, bitcast
    Communication,  // all-reduce, all-gather, collective-permute, send/recv, ...
    Other
};

OpCategory opCategory(int opcode);
QString opCategoryName(OpCategory c);
QColor opCategoryColor(OpCategory c);
constexpr int kNumOpCategories = 8;

}  // namespace tpg
