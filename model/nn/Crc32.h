#pragma once

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>

namespace tpg::nn {

// zlib's CRC-32 of `bytes`, of any length (zlib takes a uInt length per call).
inline uint32_t crc32Of(std::string_view bytes) {
    uLong crc = crc32(0L, Z_NULL, 0);
    while (!bytes.empty()) {
        const size_t chunk = std::min<size_t>(bytes.size(), std::numeric_limits<uInt>::max());
        crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(chunk));
        bytes.remove_prefix(chunk);
    }
    return static_cast<uint32_t>(crc);
}

}  // namespace tpg::nn
