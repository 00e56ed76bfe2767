#include "NumberText.h"

namespace tpg::cli {

std::string withCommas(int64_t v) {
    std::string s = std::to_string(v);
    for (int i = static_cast<int>(s.size()) - 3; i > (v < 0 ? 1 : 0); i -= 3) s.insert(static_cast<size_t>(i), ",");
    return s;
}

}  // namespace tpg::cli
