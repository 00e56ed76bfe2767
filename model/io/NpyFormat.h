#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tpg {

// The element types a TpuGraphs file may use (numpy descr kinds b, i, u, f).
enum class DType : uint8_t { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, F32, F64 };

size_t dtypeSize(DType t);
const char* dtypeName(DType t);  // numpy's name: "int64", "float32", ...
bool dtypeIsInteger(DType t);    // signed or unsigned integer, or bool
bool dtypeIsFloat(DType t);
// numpy's descr for little-endian storage: "<i8", "|u1", "<f4", ...
std::string dtypeDescr(DType t);

// A parsed .npy header (format versions 1.0, 2.0 and 3.0).
struct NpyHeader {
    int majorVersion = 1;
    int minorVersion = 0;
    DType dtype = DType::F32;
    bool bigEndian = false;
    bool fortranOrder = false;  // column-major: element (i, j) of an (r, c) array at j * r + i
    std::vector<int64_t> shape;
    size_t headerBytes = 0;  // magic + version + length + dict + padding: where data starts

    uint64_t elementCount() const;  // product of shape (fits: checked at parse time)
    uint64_t dataBytes() const;     // elementCount() * dtypeSize(dtype)
    std::string shapeString() const;  // "(3, 4)", "(5,)", "()"
    std::string describe() const;     // "int64 (3, 4)"
};

// Bytes needed before the header length is known: magic(6) + version(2) + length(4).
constexpr size_t kNpyPreambleBytes = 12;

// From the first bytes of an .npy stream (at least 10; 12 for versions 2 and 3), the total
// header size. Throws FormatError prefixed with `context` when this is not a numpy array.
size_t npyHeaderSize(const uint8_t* data, size_t available, const std::string& context);

// Parses a whole header of `size` bytes (as returned by npyHeaderSize). Refuses what the core
// cannot read: pickled objects, structured or string dtypes, absurd shapes.
NpyHeader parseNpyHeader(const uint8_t* data, size_t size, const std::string& context);

// Serialises a version 1.0 header (version 2.0 when the dict does not fit 65535 bytes).
std::vector<uint8_t> makeNpyHeader(DType dtype, const std::vector<int64_t>& shape);

// Fortran-ordered (column-major) element bytes of `shape` rearranged into C order, as numpy reads
// them: the element at index (i0, i1, ...) sits at i0 + s0 * (i1 + s1 * (...)) in the source.
std::vector<uint8_t> fortranToCOrder(const uint8_t* data, const std::vector<int64_t>& shape,
                                     size_t itemSize);

// Element conversion from raw .npy bytes. Byte order is swapped for big-endian data.
void convertToFloat(const uint8_t* src, DType t, bool bigEndian, size_t count, float* dst);
void convertToDouble(const uint8_t* src, DType t, bool bigEndian, size_t count, double* dst);
// Integer types only (callers check dtypeIsInteger first).
void convertToInt64(const uint8_t* src, DType t, bool bigEndian, size_t count, int64_t* dst);

// IEEE half to single precision.
float halfToFloat(uint16_t h);

}  // namespace tpg
