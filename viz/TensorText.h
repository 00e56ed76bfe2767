#pragma once

#include <QString>
#include <cstdint>
#include <vector>

// Node features written the way XLA prints them: f32[64,128,56,56]{1,0,3,2}.
namespace tpg {

struct TensorShape {
    bool known = false;   // false for trimmed feature rows (columns cannot be mapped)
    QString elementType;  // "f32", "bf16", "pred", "tuple", ... ("?" when no one-hot is set)
    std::vector<int64_t> dims;
    std::vector<int> minorToMajor;  // empty when the features hold no valid layout
    int tupleSize = 0;              // tuples only
};

// From one node_feat row of `width` columns (140 in the schema).
TensorShape tensorShape(const float* features, int64_t width);
// "f32[64,128,56,56]{1,0,3,2}", "(tuple, 3 elements)", "?" for a trimmed row.
QString tensorString(const float* features, int64_t width);
QString tensorString(const TensorShape& shape);
// A minor-to-major layout from `count` config values padded with -1: "{1,0,2}", or "default"
// when every value is -1 (the compiler chooses).
QString layoutString(const float* values, int count);
bool isDefaultLayout(const float* values, int count);

}  // namespace tpg
