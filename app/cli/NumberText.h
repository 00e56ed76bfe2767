#pragma once

#include <cstdint>
#include <string>

namespace tpg::cli {

// 1234567 -> "1,234,567": figures the commands print.
std::string withCommas(int64_t v);

}  // namespace tpg::cli
