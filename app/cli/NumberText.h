#pragma once

#include <cstdint>
#include <string>

namespace tpg::cli {

// 1234567 -> "1,234,567": figures the commands print.
std::string withCommas(int64_t v);
// "+12.3%" / "-4.0%": `now` against `reference`; `unknown` when either is not a runtime.
std::string percentChange(double now, double reference, const std::string& unknown);

}  // namespace tpg::cli
