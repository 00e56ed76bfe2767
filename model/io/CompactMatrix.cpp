#include "io/CompactMatrix.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tpg {

namespace {

// Nibble stores v + 1 for integral v in [-1, 14].
constexpr float kNibbleMin = -1.0f;
constexpr float kNibbleMax = 14.0f;

uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

}  // namespace

CompactMatrix::CompactMatrix(int64_t cols) : m_cols(cols) {}

const char* CompactMatrix::encodingName(Encoding e) {
    switch (e) {
        case Encoding::Nibble: return "4-bit";
        case Encoding::Int8: return "int8";
        case Encoding::Float32: return "float32";
    }
    return "?";
}

size_t CompactMatrix::rowBytes(Encoding e) const {
    switch (e) {
        case Encoding::Nibble: return static_cast<size_t>((m_cols + 1) / 2);
        case Encoding::Int8: return static_cast<size_t>(m_cols);
        case Encoding::Float32: return static_cast<size_t>(m_cols) * 4;
    }
    return 0;
}

size_t CompactMatrix::residentBytes() const { return m_bytes.capacity(); }

void CompactMatrix::reserveRows(int64_t rows) {
    m_reservedRows = rows;
    m_bytes.reserve(static_cast<size_t>(rows) * rowBytes(m_encoding));
}

CompactMatrix::Encoding CompactMatrix::encodingFor(const float* v, size_t n, Encoding atLeast) {
    // Range first, then integrality by a round trip through int (no libm call: this sees every
    // value of a multi-GB tensor). NaN fails every comparison and lands in Float32.
    auto integralIn = [](float x, float lo, float hi) {
        return x >= lo && x <= hi && static_cast<float>(static_cast<int>(x)) == x;
    };
    Encoding e = atLeast;
    for (size_t i = 0; i < n && e != Encoding::Float32; ++i) {
        const float x = v[i];
        if (e == Encoding::Nibble && !integralIn(x, kNibbleMin, kNibbleMax)) e = Encoding::Int8;
        if (e == Encoding::Int8 && !integralIn(x, -128.0f, 127.0f)) e = Encoding::Float32;
    }
    return e;
}

void CompactMatrix::reencode(Encoding e) {
    // Row blocks at a time: the float copy of a whole table could be 8x the table.
    constexpr int64_t kBlockRows = 1024;
    CompactMatrix wider(m_cols);
    wider.m_encoding = e;
    wider.reserveRows(std::max(m_reservedRows, m_rows));
    std::vector<float> block;
    for (int64_t r = 0; r < m_rows; r += kBlockRows) {
        const int64_t n = std::min(kBlockRows, m_rows - r);
        block.resize(static_cast<size_t>(n * m_cols));
        readRows(r, n, block.data());
        wider.appendRows(block.data(), n);
    }
    *this = std::move(wider);
}

void CompactMatrix::resizeRows(int64_t rows) {
    m_bytes.resize(static_cast<size_t>(rows) * rowBytes(m_encoding));
    m_rows = rows;
}

void CompactMatrix::writeColumns(const int64_t* cols, int64_t count, const float* values) {
    const Encoding need = encodingFor(values, static_cast<size_t>(count * m_rows), m_encoding);
    if (need != m_encoding) reencode(need);
    // In tiles of rows: a tile's rows stay in cache while every column of the block is written
    // into them, and each column is read sequentially. One loop per encoding (this runs once
    // per value of a multi-GB tensor).
    constexpr size_t kTileRows = 64;
    const size_t rb = rowBytes(m_encoding);
    const auto rows = static_cast<size_t>(m_rows);
    uint8_t* base = m_bytes.data();
    for (size_t r0 = 0; r0 < rows; r0 += kTileRows) {
        const size_t r1 = std::min(rows, r0 + kTileRows);
        for (int64_t k = 0; k < count; ++k) {
            const auto c = static_cast<size_t>(cols[k]);
            const float* v = values + static_cast<size_t>(k) * rows;
            switch (m_encoding) {
                case Encoding::Nibble: {
                    const unsigned shift = (c & 1) ? 4 : 0;
                    const auto keep = static_cast<uint8_t>(0xf0 >> shift);
                    for (size_t r = r0; r < r1; ++r) {
                        uint8_t& b = base[r * rb + (c >> 1)];
                        b = static_cast<uint8_t>((b & keep) | ((static_cast<int>(v[r]) + 1) << shift));
                    }
                    break;
                }
                case Encoding::Int8:
                    for (size_t r = r0; r < r1; ++r)
                        base[r * rb + c] = static_cast<uint8_t>(static_cast<int8_t>(v[r]));
                    break;
                case Encoding::Float32:
                    for (size_t r = r0; r < r1; ++r) std::memcpy(base + r * rb + c * 4, v + r, 4);
                    break;
            }
        }
    }
}

void CompactMatrix::appendRows(const float* values, int64_t rows) {
    const size_t n = static_cast<size_t>(rows * m_cols);
    const Encoding need = encodingFor(values, n, m_encoding);
    if (need != m_encoding) reencode(need);
    const size_t rb = rowBytes(m_encoding);
    const size_t start = m_bytes.size();
    m_bytes.resize(start + rb * static_cast<size_t>(rows));
    uint8_t* out = m_bytes.data() + start;
    switch (m_encoding) {
        case Encoding::Nibble:
            for (int64_t r = 0; r < rows; ++r) {
                const float* v = values + r * m_cols;
                uint8_t* o = out + r * rb;
                std::memset(o, 0, rb);
                for (int64_t c = 0; c < m_cols; ++c) {
                    const auto q = static_cast<uint8_t>(static_cast<int>(v[c]) + 1);
                    o[c >> 1] |= static_cast<uint8_t>((c & 1) ? q << 4 : q);
                }
            }
            break;
        case Encoding::Int8:
            for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(static_cast<int8_t>(values[i]));
            break;
        case Encoding::Float32: std::memcpy(out, values, n * 4); break;
    }
    m_rows += rows;
}

void CompactMatrix::readRows(int64_t begin, int64_t count, float* out) const {
    const size_t rb = rowBytes(m_encoding);
    const uint8_t* in = m_bytes.data() + static_cast<size_t>(begin) * rb;
    switch (m_encoding) {
        case Encoding::Nibble:
            for (int64_t r = 0; r < count; ++r) {
                const uint8_t* i = in + r * rb;
                float* o = out + r * m_cols;
                for (int64_t c = 0; c < m_cols; ++c) {
                    const int q = (c & 1) ? (i[c >> 1] >> 4) : (i[c >> 1] & 0xf);
                    o[c] = static_cast<float>(q - 1);
                }
            }
            break;
        case Encoding::Int8:
            for (size_t k = 0; k < static_cast<size_t>(count * m_cols); ++k)
                out[k] = static_cast<float>(static_cast<int8_t>(in[k]));
            break;
        case Encoding::Float32: std::memcpy(out, in, static_cast<size_t>(count * m_cols) * 4); break;
    }
}

void CompactMatrix::readColumns(int64_t col, int64_t count, float* out) const {
    const size_t rb = rowBytes(m_encoding);
    for (int64_t r = 0; r < m_rows; ++r) {
        const uint8_t* in = m_bytes.data() + static_cast<size_t>(r) * rb;
        float* o = out + r * count;
        for (int64_t k = 0; k < count; ++k) {
            const int64_t c = col + k;
            switch (m_encoding) {
                case Encoding::Nibble:
                    o[k] = static_cast<float>(((c & 1) ? (in[c >> 1] >> 4) : (in[c >> 1] & 0xf)) - 1);
                    break;
                case Encoding::Int8: o[k] = static_cast<float>(static_cast<int8_t>(in[c])); break;
                case Encoding::Float32: std::memcpy(o + k, in + c * 4, 4); break;
            }
        }
    }
}

std::array<uint64_t, 2> CompactMatrix::rowHash(int64_t r) const {
    const size_t rb = rowBytes(m_encoding);
    const uint8_t* p = m_bytes.data() + static_cast<size_t>(r) * rb;
    uint64_t a = 0x243f6a8885a308d3ULL, b = 0x13198a2e03707344ULL;
    size_t i = 0;
    for (; i + 8 <= rb; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        a = mix(a, w);
        b = mix(b, w ^ 0xa4093822299f31d0ULL);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, p + i, rb - i);
    return {mix(a, tail ^ rb), mix(b, tail + rb)};
}

}  // namespace tpg
