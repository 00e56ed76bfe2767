#pragma once

// Test support: the numpy fixture whose 3,000 configurations are stored in Fortran order, loaded
// with their decoding not yet started, as a big file's are while they decompress: a test sees
// the wait, then starts or awaits the decoding itself (layoutConfigs()->wait()).
#include <string>

#include "graph/GraphFile.h"

inline tpg::TpuGraph undecodedFortranFixture() {
    tpg::LoadOptions deferred;
    deferred.deferDecoding = true;
    return tpg::loadTpuGraph(std::string(TPG_FIXTURE_DIR) + "/good/layout_many_configs_fortran.npz",
                             deferred);
}
