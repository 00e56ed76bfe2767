#pragma once

#include <string>

namespace tpg::nn {

// Checks the zip archive that LibTorch wrote for a model's or training state's weights before
// LibTorch reads it: every entry's CRC-32, the archive's consistency, LibTorch's layout (one top
// folder holding data.pkl) and the unpacked size (limits::kMaxWeightsArchiveBytes). LibTorch 1.13
// checks no CRC, so a damaged file loaded with silently wrong weights, or crashed its script
// parser. Throws FormatError(label, key, what is wrong) naming the damaged entry.
void requireIntactTorchArchive(const std::string& bytes, const std::string& label,
                               const std::string& key);

}  // namespace tpg::nn
