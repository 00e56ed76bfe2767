#pragma once

#include <cstdint>
#include <string>

namespace tpg::cli {

// 1234567 -> "1,234,567": figures the commands print.
std::string withCommas(int64_t v);
// (3, "copy", "copies") -> "3 copies", (1, ...) -> "1 copy".
std::string countOf(int64_t n, const std::string& one, const std::string& many);
// 65 -> "1:05": minutes and seconds, as every ETA is given (and the explorer's).
std::string clockText(double seconds);
// "+12.3%" / "-4.0%": `now` against `reference`; `unknown` when either is not a runtime.
std::string percentChange(double now, double reference, const std::string& unknown);
// "<= " / ">= " before a predicted runtime the fit clamped (WhatIfReport::beyondFit), else "".
inline const char* boundPrefix(int beyondFit) {
    return beyondFit < 0 ? "<= " : beyondFit > 0 ? ">= " : "";
}

}  // namespace tpg::cli
