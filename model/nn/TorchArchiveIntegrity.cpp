#include "TorchArchiveIntegrity.h"

#include <zip.h>

#include <array>
#include <memory>

#include "NnLimits.h"
#include "io/Error.h"

namespace tpg::nn {

namespace {

struct ZipCloser {
    void operator()(zip_t* z) const { zip_discard(z); }
};
struct ZipFileCloser {
    void operator()(zip_file_t* f) const { zip_fclose(f); }
};

std::unique_ptr<zip_t, ZipCloser> openFromMemory(const std::string& bytes, const std::string& label,
                                                 const std::string& key) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
    zip_t* archive =
        source ? zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &err) : nullptr;
    if (!archive) {
        const std::string why = zip_error_strerror(&err);
        zip_error_fini(&err);
        if (source) zip_source_free(source);
        throwFormatError(label, key, "damaged: not a readable LibTorch archive (" + why + ")");
    }
    zip_error_fini(&err);
    return std::unique_ptr<zip_t, ZipCloser>(archive);
}

// Reads one entry to its end, which makes libzip compare its CRC-32; returns the bytes read.
uint64_t readWholeEntry(zip_t* archive, zip_uint64_t index, const std::string& name,
                        uint64_t budget, const std::string& label, const std::string& key) {
    std::unique_ptr<zip_file_t, ZipFileCloser> entry(zip_fopen_index(archive, index, 0));
    if (!entry)
        throwFormatError(
            label, key,
            "damaged: entry '" + name + "' cannot be opened (" + zip_strerror(archive) + ")");
    std::array<char, size_t{64} << 10> chunk{};
    uint64_t total = 0;
    for (;;) {
        const zip_int64_t got = zip_fread(entry.get(), chunk.data(), chunk.size());
        if (got < 0)
            throwFormatError(
                label, key,
                "damaged: entry '" + name + "' (" + zip_file_strerror(entry.get()) + ")");
        if (got == 0) return total;
        total += static_cast<uint64_t>(got);
        if (total > budget)
            throwFormatError(label, key,
                             "unpacks to more than " +
                                 std::to_string(limits::kMaxWeightsArchiveBytes >> 20) +
                                 " MiB, far more than any cost model");
    }
}

}  // namespace

void requireIntactTorchArchive(const std::string& bytes, const std::string& label,
                               const std::string& key) {
    auto archive = openFromMemory(bytes, label, key);
    const zip_int64_t n = zip_get_num_entries(archive.get(), 0);
    if (n <= 0) throwFormatError(label, key, "damaged: an empty archive");
    std::string folder;
    bool hasData = false;
    uint64_t unpacked = 0;
    for (zip_int64_t i = 0; i < n; ++i) {
        const auto index = static_cast<zip_uint64_t>(i);
        const char* raw = zip_get_name(archive.get(), index, 0);
        const std::string name = raw ? raw : "";
        const size_t slash = name.find('/');
        if (slash == std::string::npos || slash == 0)
            throwFormatError(label, key,
                             "damaged: entry '" + name + "' lies outside the archive's folder");
        if (folder.empty()) folder = name.substr(0, slash);
        if (name.compare(0, slash, folder) != 0 || slash != folder.size())
            throwFormatError(
                label, key,
                "damaged: entry '" + name + "' lies outside '" + folder.append("/") + "'");
        hasData = hasData || name.compare(slash, std::string::npos, "/data.pkl") == 0;
        unpacked += readWholeEntry(archive.get(), index, name,
                                   limits::kMaxWeightsArchiveBytes - unpacked, label, key);
    }
    if (!hasData) throwFormatError(label, key, "damaged: no '" + folder + "/data.pkl' entry");
}

}  // namespace tpg::nn
