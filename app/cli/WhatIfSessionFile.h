#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"

// What-if session files ("format": "tpugraphs-whatif"): what the explorer saves and loads,
// `tune` writes (best first) and `whatif` / `explain --from-json` read.
namespace tpg::cli {

inline constexpr const char* kWhatIfFormat = "tpugraphs-whatif";
inline constexpr int kWhatIfFormatVersion = 1;

struct SessionEntry {
    std::string label;
    std::vector<float> config;
};

// Entry `entry` (0-based) of a session; its config must be a configuration row of `g`
// (TpuGraph::configRowProblem). Throws FormatError naming the file, key and expectation.
SessionEntry readSessionEntry(const std::string& path, int entry, const TpuGraph& g);

// A session document for `file`, entries added by the caller to "configurations".
nlohmann::json sessionDocument(const std::string& file, const std::string& collection, const std::string& model);

// Writes `doc` to `path` (atomically: a temp file renamed); throws FormatError when it cannot.
void writeSessionFile(const std::string& path, const nlohmann::json& doc);

}  // namespace tpg::cli
