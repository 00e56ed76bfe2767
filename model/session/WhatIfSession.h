#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"

// What-if session files ("format": "tpugraphs-whatif", version 1): the configurations the
// explorer saves and loads, `tune` writes (best first) and `whatif` / `explain --from-json` read.
// One reader and one writer serve them all.
namespace tpg::session {

inline constexpr const char* kWhatIfFormat = "tpugraphs-whatif";
inline constexpr int kWhatIfFormatVersion = 1;

struct WhatIfEntry {
    std::string label;  // "entry N" where the file has none
    std::vector<float> config;
    bool pinned = false;
};

struct WhatIfSession {
    std::string file;  // the graph file it was saved for ("" where it does not say)
    std::string collection;
    std::string model;
    std::vector<WhatIfEntry> entries;  // at least one
};

// Every entry's config must be a configuration row of `g` (TpuGraph::configRowProblem). Throws
// FormatError(path, key, what was expected), naming the entry and value.
WhatIfSession readWhatIfSession(const std::string& path, const TpuGraph& g);

// The same, of a session's text (`path` names it in errors).
WhatIfSession parseWhatIfSession(const std::string& text, const std::string& path,
                                 const TpuGraph& g);

// "" when the session was saved for `openFile` (by file name: folders move) or does not say;
// otherwise a sentence naming both files (configurations of one graph rarely fit another, but a
// tile session's rows fit any kernel).
std::string otherFileNote(const WhatIfSession& session, const std::string& sessionPath,
                          const std::string& openFile);

// A session document for `file`; the caller appends entries to "configurations".
nlohmann::json whatIfDocument(const std::string& file, const std::string& collection,
                              const std::string& model);

// Writes `doc` atomically (a temporary file, then renamed over `path`), so a failed write leaves
// the previous file; throws FormatError when it cannot.
void writeWhatIfSession(const std::string& path, const nlohmann::json& doc);

}  // namespace tpg::session
