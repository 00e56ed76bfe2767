#include "WhatIfSessionFile.h"

#include <cstdio>

#include "io/Error.h"

namespace tpg::cli {

session::WhatIfEntry readSessionEntry(const std::string& path, int entry, const TpuGraph& g) {
    session::WhatIfSession s = session::readWhatIfSession(path, g);
    const int n = static_cast<int>(s.entries.size());
    if (entry < 0 || entry >= n)
        throwFormatError(path, "configurations",
                         "has " + std::to_string(n) + " entries; entry " + std::to_string(entry) + " does not exist");
    if (const std::string note = session::otherFileNote(s, path, g.path()); !note.empty())
        std::fprintf(stderr, "note: %s\n", note.c_str());
    return std::move(s.entries[static_cast<size_t>(entry)]);
}

}  // namespace tpg::cli
