#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tpg {

// Rows of configuration values kept as small as the values allow. Layout configs hold small
// integers (-1 to 5): two per byte (Nibble, 1/8 of float32), else one per byte (Int8, 1/4),
// else plain Float32. Appending a value that does not fit re-encodes what is stored, once.
// Not thread-safe: LayoutConfigTable guards it.
class CompactMatrix {
public:
    enum class Encoding { Nibble, Int8, Float32 };

    explicit CompactMatrix(int64_t cols = 0);

    void reserveRows(int64_t rows);
    void appendRows(const float* values, int64_t rows);
    // Column-wise filling, for column-major (Fortran-ordered) sources: grows the matrix to `rows`
    // rows (new values unspecified until written), then writes whole columns. `values` holds
    // `count` columns one after another, rows() values each; column k goes to column cols[k].
    void resizeRows(int64_t rows);
    void writeColumns(const int64_t* cols, int64_t count, const float* values);

    int64_t rows() const { return m_rows; }
    int64_t cols() const { return m_cols; }
    Encoding encoding() const { return m_encoding; }
    size_t residentBytes() const;

    void readRows(int64_t begin, int64_t count, float* out) const;
    // Columns [col, col + count) of every row, row after row (rows() x count values).
    void readColumns(int64_t col, int64_t count, float* out) const;
    // A 128-bit hash of row r's values: equal rows hash equal (the encoding is canonical).
    std::array<uint64_t, 2> rowHash(int64_t r) const;

    static const char* encodingName(Encoding e);

private:
    size_t rowBytes(Encoding e) const;
    void reencode(Encoding e);
    static Encoding encodingFor(const float* values, size_t n, Encoding atLeast);

    int64_t m_cols = 0;
    int64_t m_rows = 0;
    int64_t m_reservedRows = 0;
    Encoding m_encoding = Encoding::Nibble;
    std::vector<uint8_t> m_bytes;
};

}  // namespace tpg
