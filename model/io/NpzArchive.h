#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/NpyFormat.h"

struct zip;

namespace tpg {

// One array of an .npz, fully read: header plus raw little- or big-endian bytes, in C order
// (a Fortran-ordered entry is rearranged as it is read).
struct NpyArray {
    NpyHeader header;
    std::vector<uint8_t> bytes;

    std::vector<float> toFloat() const;
    std::vector<double> toDouble() const;
    std::vector<int64_t> toInt64() const;  // integer dtypes only
};

struct NpzEntry {
    std::string key;  // the entry name without ".npy"
    uint64_t index = 0;
    bool stored = false;  // np.savez (stored) vs np.savez_compressed (deflated)
    uint64_t compressedSize = 0;
    uint64_t size = 0;
};

// An .npz (zip of .npy files) opened with libzip: stored and deflated entries, zip64.
// Every access is serialised by one mutex, because a libzip archive is not thread-safe;
// a background reader opens its own NpzArchive on the same path instead of sharing this one.
class NpzArchive {
public:
    explicit NpzArchive(const std::string& path);  // throws FormatError
    ~NpzArchive();
    NpzArchive(const NpzArchive&) = delete;
    NpzArchive& operator=(const NpzArchive&) = delete;

    const std::string& path() const { return m_path; }
    const std::vector<NpzEntry>& entries() const { return m_entries; }
    const NpzEntry* find(const std::string& key) const;
    bool has(const std::string& key) const { return find(key) != nullptr; }

    // Reads and checks the header of `key`: its data size must match the entry's size, and the
    // entry's size must be believable for its compressed size, so nothing is allocated for a lie.
    NpyHeader header(const std::string& key);
    // Reads the whole array (header checked first), in C order.
    NpyArray read(const std::string& key);
    // Stored entries only: `bytes` of data starting `offset` bytes into the array's data, in
    // the entry's own order (see NpyHeader::fortranOrder).
    void readRange(const std::string& key, const NpyHeader& header, uint64_t offset, uint64_t bytes,
                   uint8_t* out);
    // Streams the array's data in its stored order (any entry). `sink` returns false to stop early;
    // the call then returns false. Throws FormatError when the entry is short or corrupt.
    bool stream(const std::string& key, const NpyHeader& header,
                const std::function<bool(const uint8_t*, size_t)>& sink);

    // Opens the zip entry of `key`, throwing a clear message when absent.
    const NpzEntry& require(const std::string& key) const;

private:
    std::string m_path;
    zip* m_zip = nullptr;
    std::vector<NpzEntry> m_entries;
    std::mutex m_mutex;
};

}  // namespace tpg
