// libFuzzer harness over a model file's weights, both formats: the input sealed as a TensorArchive
// (magic in front, its CRC-32 behind, so mutations reach the fields behind the checksum); the input
// as LibTorch's zip archive through our reader of those; and the input as such an archive's
// data.pkl, zipped with valid CRCs beside two storages (mutations of a zip mostly break its CRCs,
// so they would rarely reach the pickle machine). Bad input must end in FormatError: any other
// exception, a crash, a leak or a sanitizer report is a finding.

#include <zip.h>

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

// A zip in LibTorch's layout holding `pickle` as data.pkl and storages 0 (24 bytes: the seed's six
// floats) and 1 (16).
std::string archiveAround(const uint8_t* pickle, size_t size) {
    static const std::string storage0(24, '\1');
    static const std::string storage1(16, '\2');
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &err);
    zip_source_keep(buffer);
    zip_t* z = zip_open_from_source(buffer, ZIP_TRUNCATE, &err);
    auto add = [&](const char* name, const void* bytes, size_t n) {
        zip_source_t* s = zip_source_buffer(z, bytes, n, 0);
        const zip_int64_t i = zip_file_add(z, name, s, 0);
        zip_set_file_compression(z, static_cast<zip_uint64_t>(i), ZIP_CM_STORE, 0);
    };
    add("archive/data.pkl", pickle, size);
    add("archive/data/0", storage0.data(), storage0.size());
    add("archive/data/1", storage1.data(), storage1.size());
    zip_close(z);
    zip_source_open(buffer);
    zip_source_seek(buffer, 0, SEEK_END);
    std::string out(static_cast<size_t>(zip_source_tell(buffer)), '\0');
    zip_source_seek(buffer, 0, SEEK_SET);
    zip_source_read(buffer, out.data(), out.size());
    zip_source_close(buffer);
    zip_source_free(buffer);
    zip_error_fini(&err);
    return out;
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
        (void)tpg::nn::readTorchArchive(archiveAround(data, size), "fuzz.tpgm", "weights");
    } catch (const tpg::FormatError&) {
    }
    return 0;
}
