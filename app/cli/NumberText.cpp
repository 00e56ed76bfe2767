#include "NumberText.h"

#include <algorithm>
#include <cstdio>

namespace tpg::cli {

std::string withCommas(int64_t v) {
    std::string s = std::to_string(v);
    for (int i = static_cast<int>(s.size()) - 3; i > (v < 0 ? 1 : 0); i -= 3) s.insert(static_cast<size_t>(i), ",");
    return s;
}

std::string countOf(int64_t n, const std::string& one, const std::string& many) {
    return withCommas(n) + " " + (n == 1 ? one : many);
}

std::string clockText(double seconds) {
    const auto s = static_cast<long long>(std::max(0.0, seconds));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
    return buf;
}

std::string percentChange(double now, double reference, const std::string& unknown) {
    if (now < 0 || reference <= 0) return unknown;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * (now / reference - 1.0));
    return buf;
}

}  // namespace tpg::cli
