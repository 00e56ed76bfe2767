#pragma once

// The synthetic TPU's compact layouts: a minor-to-major permutation as one 21-bit code (rank in
// bits 0-2, then the dims, 3 bits each), so propagating and comparing layouts over 45,000-node
// graphs costs integer operations. Internal to model/synth.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/Schema.h"

namespace tpg::synth::detail {

using LayoutCode = uint32_t;
constexpr LayoutCode kUnset = 0xFFFFFFFFu;
constexpr int kMaxRank = schema::kMaxRank;

LayoutCode encode(const int* dims, int rank);
inline int rankOf(LayoutCode c) {
    return static_cast<int>(c & 7u);
}
inline int dimAt(LayoutCode c, int i) {
    return static_cast<int>((c >> (3 + 3 * i)) & 7u);
}
LayoutCode descending(int rank);  // row-major: {rank-1, ..., 0}
std::vector<int> decode(LayoutCode c);
std::string layoutString(LayoutCode c);  // "{1,0,2}"

// A valid permutation of 0..rank-1 in the first `rank` values, -1 after: its code. All -1:
// kUnset. Anything else: `invalid` is set and kUnset returned.
LayoutCode parseSlot(const float* v, int rank, bool& invalid);

// Text for the explanations' reasons.
std::string fmt(const char* f, double a);
std::string ns(double v);         // "1.25 ms", "35.1 us", "812 ns"
std::string bytesText(double b);  // "1.5 MiB"

}  // namespace tpg::synth::detail
