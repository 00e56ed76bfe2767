#pragma once

#include <stdexcept>
#include <string>

namespace tpg {

// A file or value the core refuses. what() is the whole message a user sees, naming the file,
// the key and what was expected, e.g. "a.npz: key 'edge_index': expected shape (m, 2), got (4, 3)".
class FormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// "FILE: key 'KEY': WHAT" (the key part is left out when key is empty).
std::string describeProblem(const std::string& file, const std::string& key, const std::string& what);

[[noreturn]] void throwFormatError(const std::string& file, const std::string& key,
                                   const std::string& what);

}  // namespace tpg
