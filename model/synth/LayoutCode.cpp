#include "synth/LayoutCode.h"

#include <cmath>
#include <cstdio>

namespace tpg::synth::detail {

LayoutCode encode(const int* dims, int rank) {
    LayoutCode c = static_cast<LayoutCode>(rank);
    for (int i = 0; i < rank; ++i) c |= static_cast<LayoutCode>(dims[i]) << (3 + 3 * i);
    return c;
}

LayoutCode descending(int rank) {
    int d[kMaxRank];
    for (int i = 0; i < rank; ++i) d[i] = rank - 1 - i;
    return encode(d, rank);
}

std::vector<int> decode(LayoutCode c) {
    std::vector<int> v(static_cast<size_t>(rankOf(c)));
    for (int i = 0; i < rankOf(c); ++i) v[static_cast<size_t>(i)] = dimAt(c, i);
    return v;
}

std::string layoutString(LayoutCode c) {
    std::string s = "{";
    for (int i = 0; i < rankOf(c); ++i) s += (i ? "," : "") + std::to_string(dimAt(c, i));
    return s + "}";
}

LayoutCode parseSlot(const float* v, int rank, bool& invalid) {
    invalid = false;
    bool allUnset = true;
    for (int i = 0; i < kMaxRank; ++i) allUnset &= v[i] == -1.0f;
    if (allUnset) return kUnset;
    int d[kMaxRank];
    unsigned seen = 0;
    for (int i = 0; i < kMaxRank; ++i) {
        const float x = v[i];
        if (i >= rank) {
            if (x != -1.0f) invalid = true;
            continue;
        }
        if (!(x >= 0.0f && x < static_cast<float>(rank)) || x != std::floor(x)) {
            invalid = true;
            continue;
        }
        d[i] = static_cast<int>(x);
        if (seen & (1u << d[i])) invalid = true;
        seen |= 1u << d[i];
    }
    if (invalid || rank <= 0) {
        invalid = true;
        return kUnset;
    }
    return encode(d, rank);
}

std::string fmt(const char* f, double a) {
    char b[64];
    std::snprintf(b, sizeof b, f, a);
    return b;
}

std::string ns(double v) {
    return v >= 1e6   ? fmt("%.2f ms", v / 1e6)
           : v >= 1e3 ? fmt("%.1f us", v / 1e3)
                      : fmt("%.0f ns", v);
}

std::string bytesText(double b) {
    return b >= 1 << 20 ? fmt("%.1f MiB", b / (1 << 20))
           : b >= 1024  ? fmt("%.1f KiB", b / 1024)
                        : fmt("%.0f B", b);
}

}  // namespace tpg::synth::detail
