// libFuzzer harness over a model file's weights, both formats: the input sealed as a TensorArchive
// (magic in front, its CRC-32 behind, so mutations reach the fields behind the checksum); the input
// as LibTorch's zip archive through our reader of those; and the input as such an archive's
// data.pkl beside two storages, given to the pickle reader unzipped (mutations of a zip mostly
// break its CRCs, so they would rarely reach the pickle machine; zipping each input cost ~4x). Bad
// input must end in FormatError: any other exception, a crash, a leak or a sanitizer report is a
// finding.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "Crc32.h"
#include "TensorArchive.h"
#include "TorchArchiveReader.h"
#include "io/Error.h"

namespace {

std::string sealed(const uint8_t* data, size_t size) {
    std::string bytes = tpg::nn::kTensorArchiveMagic;
    bytes.append(reinterpret_cast<const char*>(data), size);
    const uint32_t crc = tpg::nn::crc32Of(bytes);
    bytes.append(reinterpret_cast<const char*>(&crc), sizeof crc);
    return bytes;
}

// Storages 0 (24 bytes: the seed's six floats) and 1 (16) in a LibTorch archive's folder.
tpg::nn::TorchArchiveEntries entriesAround(const uint8_t* pickle, size_t size) {
    tpg::nn::TorchArchiveEntries entries;
    entries.folder = "archive";
    entries.pickle.assign(reinterpret_cast<const char*>(pickle), size);
    entries.storages = {{"0", std::string(24, '\1')}, {"1", std::string(16, '\2')}};
    return entries;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        (void)tpg::nn::decodeTensorArchive(sealed(data, size), "fuzz.tpgm", "weights");
    } catch (const tpg::FormatError&) {
    }
    try {
        (void)tpg::nn::readTorchArchive(std::string(reinterpret_cast<const char*>(data), size),
                                        "fuzz.tpgm", "weights");
    } catch (const tpg::FormatError&) {
    }
    try {
        (void)tpg::nn::readTorchPickle(entriesAround(data, size), "fuzz.tpgm", "weights");
    } catch (const tpg::FormatError&) {
    }
    return 0;
}
