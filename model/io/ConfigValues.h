#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

// What a configuration value may hold. A file or a what-if session holding anything else is
// refused: the model would turn it into a meaningless or NaN score, and NaN scores cannot be
// ranked.
namespace tpg::config_values {

// Layout: a minor-to-major dimension index of a tensor of rank <= 6, or -1 (padding, default).
constexpr int kLayoutMin = -1;
constexpr int kLayoutMax = 5;
inline bool isLayoutValue(float v) {
    // Compared with each of the seven values, without a branch or a conversion (NaN equals none):
    // the check vectorises over the gigabytes a config tensor can hold.
    int equal = 0;
    for (int k = kLayoutMin; k <= kLayoutMax; ++k)
        equal |= static_cast<int>(v == static_cast<float>(k));
    return equal != 0;
}
inline constexpr const char* kLayoutExpected = "a layout value: a whole number from -1 to 5";

// Tile: a tile size, or a sum or product of them. A generous cap, far below where the model's
// float arithmetic overflows.
constexpr float kTileMax = 1e15f;
inline bool isTileValue(float v) {
    return static_cast<int>(v >= 0) & static_cast<int>(v <= kTileMax);
}  // NaN: false
inline constexpr const char* kTileExpected = "a tile size, sum or product: from 0 to 1e15";

// The index of the first value `accepts` refuses, or -1. Blocks are checked without branches
// (the compiler vectorises them): files of several GB are checked as they are decoded.
template <typename Accepts>
int64_t firstRefused(const float* values, size_t count, Accepts accepts) {
    constexpr size_t kBlock = 1024;
    for (size_t begin = 0; begin < count; begin += kBlock) {
        const size_t end = begin + kBlock < count ? begin + kBlock : count;
        int all = 1;
        for (size_t i = begin; i < end; ++i) all &= static_cast<int>(accepts(values[i]));
        if (all) continue;
        for (size_t i = begin; i < end; ++i)
            if (!accepts(values[i])) return static_cast<int64_t>(i);
    }
    return -1;
}

inline int64_t firstNonLayoutValue(const float* values, size_t count) {
    return firstRefused(values, count, [](float v) { return isLayoutValue(v); });
}
inline int64_t firstNonTileValue(const float* values, size_t count) {
    return firstRefused(values, count, [](float v) { return isTileValue(v); });
}

// A value as a user wrote it: "99", "0.5", "inf", "nan".
inline std::string valueText(float v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    return buf;
}

}  // namespace tpg::config_values
