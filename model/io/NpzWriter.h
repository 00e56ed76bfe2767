#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/NpyFormat.h"

namespace tpg {

// Builds an .npz as numpy's savez / savez_compressed do, through libzip.
class NpzWriter {
public:
    explicit NpzWriter(bool compressed) : m_compressed(compressed) {}

    // Copies `data` (elementCount(shape) values of `dtype`, little-endian, C order).
    void add(const std::string& key, DType dtype, const std::vector<int64_t>& shape, const void* data);
    void addFloat32(const std::string& key, const std::vector<int64_t>& shape, const std::vector<float>& v);
    void addInt64(const std::string& key, const std::vector<int64_t>& shape, const std::vector<int64_t>& v);

    // Writes `path` atomically (temporary file + rename). Throws FormatError on I/O failure.
    void save(const std::string& path) const;

private:
    struct Entry {
        std::string name;
        std::vector<uint8_t> bytes;  // header + data
    };
    bool m_compressed;
    std::vector<Entry> m_entries;
};

}  // namespace tpg
