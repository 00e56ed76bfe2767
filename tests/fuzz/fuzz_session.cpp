// libFuzzer harness over what-if session files (the explorer's Load…, `whatif` and `explain
// --from-json`): the input as a session's text, read against the smallest layout program. Bad
// input must end in FormatError: any other exception (nlohmann's own had escaped the reader), a
// crash, a leak or a sanitizer report is a finding.

#include <cstddef>
#include <cstdint>
#include <string>

#include "SmallLayout.h"
#include "io/Error.h"
#include "session/WhatIfSession.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const tpg::TpuGraph graph(tpg::testing::smallLayout());
    try {
        (void)tpg::session::parseWhatIfSession(
            std::string(reinterpret_cast<const char*>(data), size), "fuzz.json", graph);
    } catch (const tpg::FormatError&) {
    }
    return 0;
}
