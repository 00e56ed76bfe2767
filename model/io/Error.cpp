#include "io/Error.h"

namespace tpg {

std::string describeProblem(const std::string& file, const std::string& key, const std::string& what) {
    std::string msg = file;
    if (!key.empty()) msg += ": key '" + key + "'";
    msg += ": " + what;
    return msg;
}

void throwFormatError(const std::string& file, const std::string& key, const std::string& what) {
    throw FormatError(describeProblem(file, key, what));
}

}  // namespace tpg
