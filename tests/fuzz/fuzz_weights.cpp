// libFuzzer harness over a model file's weights, both formats: the input sealed as a TensorArchive
// (magic in front, its CRC-32 behind, so mutations reach the fields behind the checksum), and the
// input as LibTorch's zip archive through the checks that run before LibTorch reads one. Bad input
// must end in FormatError: any other exception, a crash, a leak or a sanitizer report is a finding.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "Crc32.h"
#include "TensorArchive.h"
#include "TorchArchiveIntegrity.h"
#include "io/Error.h"

namespace {

std::string sealed(const uint8_t* data, size_t size) {
    std::string bytes = tpg::nn::kTensorArchiveMagic;
    bytes.append(reinterpret_cast<const char*>(data), size);
    const uint32_t crc = tpg::nn::crc32Of(bytes);
    bytes.append(reinterpret_cast<const char*>(&crc), sizeof crc);
    return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        (void)tpg::nn::decodeTensorArchive(sealed(data, size), "fuzz.tpgm", "weights");
    } catch (const tpg::FormatError&) {
    }
    try {
        tpg::nn::requireIntactTorchArchive(std::string(reinterpret_cast<const char*>(data), size),
                                           "fuzz.tpgm", "weights");
    } catch (const tpg::FormatError&) {
    }
    return 0;
}
