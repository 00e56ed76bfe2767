#pragma once

#include <string>

#include "graph/TpuGraph.h"
#include "session/WhatIfSession.h"

namespace tpg::cli {

// Entry `entry` (0-based) of the what-if session at `path`, every entry checked against `g`
// (session::readWhatIfSession); notes on stderr when the session was saved for another file.
// Throws FormatError naming the file, key and expectation.
session::WhatIfEntry readSessionEntry(const std::string& path, int entry, const TpuGraph& g);

}  // namespace tpg::cli
