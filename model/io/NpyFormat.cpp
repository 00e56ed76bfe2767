#include "io/NpyFormat.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "io/Error.h"
#include "io/Limits.h"

namespace tpg {

namespace {

struct DTypeInfo {
    DType type;
    char kind;
    int size;
    const char* name;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::Bool, 'b', 1, "bool"},     {DType::I8, 'i', 1, "int8"},
    {DType::I16, 'i', 2, "int16"},     {DType::I32, 'i', 4, "int32"},
    {DType::I64, 'i', 8, "int64"},     {DType::U8, 'u', 1, "uint8"},
    {DType::U16, 'u', 2, "uint16"},    {DType::U32, 'u', 4, "uint32"},
    {DType::U64, 'u', 8, "uint64"},    {DType::F16, 'f', 2, "float16"},
    {DType::F32, 'f', 4, "float32"},   {DType::F64, 'f', 8, "float64"},
};

const DTypeInfo& info(DType t) { return kDTypes[static_cast<int>(t)]; }

[[noreturn]] void fail(const std::string& context, const std::string& what) {
    throw FormatError(context + ": " + what);
}

// A minimal reader for the Python literal numpy writes as its header:
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderDictParser {
public:
    HeaderDictParser(const std::string& text, const std::string& context)
        : m_text(text), m_context(context) {}

    struct Value {
        enum Kind { String, Bool, Tuple, List, Other } kind = Other;
        std::string str;
        bool boolean = false;
        std::vector<int64_t> ints;
    };

    std::map<std::string, Value> parse() {
        std::map<std::string, Value> out;
        skipSpace();
        expect('{', "a header dict starting with '{'");
        for (;;) {
            skipSpace();
            if (peek() == '}') {
                ++m_pos;
                break;
            }
            std::string key = parseString();
            skipSpace();
            expect(':', "':' after a header key");
            skipSpace();
            out[key] = parseValue();
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            skipSpace();
            expect('}', "',' or '}' in the header dict");
            break;
        }
        return out;
    }

private:
    char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
    void skipSpace() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
    }
    void expect(char c, const char* what) {
        if (peek() != c) fail(m_context, std::string("malformed .npy header: expected ") + what);
        ++m_pos;
    }
    std::string parseString() {
        char q = peek();
        if (q != '\'' && q != '"') fail(m_context, "malformed .npy header: expected a quoted key");
        ++m_pos;
        std::string s;
        while (m_pos < m_text.size() && m_text[m_pos] != q) s += m_text[m_pos++];
        if (m_pos >= m_text.size()) fail(m_context, "malformed .npy header: unterminated string");
        ++m_pos;
        return s;
    }
    int64_t parseInt() {
        skipSpace();
        size_t start = m_pos;
        while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos])))
            ++m_pos;
        if (start == m_pos) {
            fail(m_context, "malformed .npy header: shape must hold non-negative integers");
        }
        if (m_pos - start > 18) fail(m_context, "shape dimension too large in .npy header");
        int64_t v = std::stoll(m_text.substr(start, m_pos - start));
        if (peek() == 'L') ++m_pos;  // Python 2 long suffix
        return v;
    }
    Value parseValue() {
        Value v;
        char c = peek();
        if (c == '\'' || c == '"') {
            v.kind = Value::String;
            v.str = parseString();
        } else if (m_text.compare(m_pos, 4, "True") == 0) {
            v.kind = Value::Bool;
            v.boolean = true;
            m_pos += 4;
        } else if (m_text.compare(m_pos, 5, "False") == 0) {
            v.kind = Value::Bool;
            m_pos += 5;
        } else if (c == '(') {
            v.kind = Value::Tuple;
            ++m_pos;
            for (;;) {
                skipSpace();
                if (peek() == ')') {
                    ++m_pos;
                    break;
                }
                v.ints.push_back(parseInt());
                skipSpace();
                if (peek() == ',') ++m_pos;
                else if (peek() != ')') fail(m_context, "malformed .npy header: bad shape tuple");
            }
        } else if (c == '[') {
            v.kind = Value::List;  // structured dtype: refused by the caller
            int depth = 0;
            do {
                if (peek() == '[') ++depth;
                if (peek() == ']') --depth;
                ++m_pos;
            } while (depth > 0 && m_pos < m_text.size());
        } else {
            fail(m_context, "malformed .npy header: unexpected value");
        }
        return v;
    }

    const std::string& m_text;
    const std::string& m_context;
    size_t m_pos = 0;
};

template <typename T>
T loadSwapped(const uint8_t* p, bool swap) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, p, sizeof(T));
    if (swap) {
        for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
    }
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
}

template <typename Src, typename Dst>
void convertTyped(const uint8_t* src, bool swap, size_t count, Dst* dst) {
    if (!swap || sizeof(Src) == 1) {
        // Fast path: the compiler vectorises this loop for the common little-endian case.
        for (size_t i = 0; i < count; ++i) {
            Src v;
            std::memcpy(&v, src + i * sizeof(Src), sizeof(Src));
            dst[i] = static_cast<Dst>(v);
        }
        return;
    }
    for (size_t i = 0; i < count; ++i)
        dst[i] = static_cast<Dst>(loadSwapped<Src>(src + i * sizeof(Src), true));
}

template <typename Dst>
void convertAny(const uint8_t* src, DType t, bool bigEndian, size_t count, Dst* dst) {
    switch (t) {
        case DType::Bool:
        case DType::U8: return convertTyped<uint8_t>(src, bigEndian, count, dst);
        case DType::I8: return convertTyped<int8_t>(src, bigEndian, count, dst);
        case DType::I16: return convertTyped<int16_t>(src, bigEndian, count, dst);
        case DType::I32: return convertTyped<int32_t>(src, bigEndian, count, dst);
        case DType::I64: return convertTyped<int64_t>(src, bigEndian, count, dst);
        case DType::U16: return convertTyped<uint16_t>(src, bigEndian, count, dst);
        case DType::U32: return convertTyped<uint32_t>(src, bigEndian, count, dst);
        case DType::U64: return convertTyped<uint64_t>(src, bigEndian, count, dst);
        case DType::F32: return convertTyped<float>(src, bigEndian, count, dst);
        case DType::F64: return convertTyped<double>(src, bigEndian, count, dst);
        case DType::F16:
            for (size_t i = 0; i < count; ++i)
                dst[i] = static_cast<Dst>(halfToFloat(loadSwapped<uint16_t>(src + 2 * i, bigEndian)));
            return;
    }
}

}  // namespace

size_t dtypeSize(DType t) { return static_cast<size_t>(info(t).size); }
const char* dtypeName(DType t) { return info(t).name; }
bool dtypeIsInteger(DType t) { return info(t).kind != 'f'; }
bool dtypeIsFloat(DType t) { return info(t).kind == 'f'; }

std::string dtypeDescr(DType t) {
    const auto& i = info(t);
    return std::string(i.size == 1 ? "|" : "<") + i.kind + std::to_string(i.size);
}

uint64_t NpyHeader::elementCount() const {
    uint64_t n = 1;
    for (int64_t d : shape) n *= static_cast<uint64_t>(d);
    return n;
}

uint64_t NpyHeader::dataBytes() const { return elementCount() * dtypeSize(dtype); }

std::string NpyHeader::shapeString() const {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    if (shape.size() == 1) s += ",";
    return s + ")";
}

std::string NpyHeader::describe() const { return std::string(dtypeName(dtype)) + " " + shapeString(); }

size_t npyHeaderSize(const uint8_t* data, size_t available, const std::string& context) {
    static const uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (available < 10 || std::memcmp(data, kMagic, 6) != 0)
        fail(context, "not a numpy .npy array (missing \\x93NUMPY magic)");
    const int major = data[6];
    uint64_t len = 0;
    size_t prefix = 0;
    if (major == 1) {
        len = data[8] | (uint32_t{data[9]} << 8);
        prefix = 10;
    } else if (major == 2 || major == 3) {
        if (available < 12) fail(context, "truncated .npy header");
        len = data[8] | (uint32_t{data[9]} << 8) | (uint32_t{data[10]} << 16) |
              (uint64_t{data[11]} << 24);
        prefix = 12;
    } else {
        fail(context, "unsupported .npy format version " + std::to_string(major) + "." +
                          std::to_string(data[7]) + " (expected 1.0, 2.0 or 3.0)");
    }
    if (len > limits::kMaxNpyHeaderBytes)
        fail(context, ".npy header claims " + std::to_string(len) + " bytes (at most " +
                          std::to_string(limits::kMaxNpyHeaderBytes) + " expected)");
    return prefix + static_cast<size_t>(len);
}

NpyHeader parseNpyHeader(const uint8_t* data, size_t size, const std::string& context) {
    const size_t total = npyHeaderSize(data, size, context);
    if (size < total) fail(context, "truncated .npy header");
    NpyHeader h;
    h.majorVersion = data[6];
    h.minorVersion = data[7];
    h.headerBytes = total;
    const size_t prefix = h.majorVersion == 1 ? 10 : 12;
    const std::string text(reinterpret_cast<const char*>(data) + prefix, total - prefix);

    auto dict = HeaderDictParser(text, context).parse();
    auto descr = dict.find("descr");
    auto fortran = dict.find("fortran_order");
    auto shape = dict.find("shape");
    if (descr == dict.end() || fortran == dict.end() || shape == dict.end())
        fail(context, ".npy header must have 'descr', 'fortran_order' and 'shape'");
    if (descr->second.kind == HeaderDictParser::Value::List)
        fail(context, "structured dtypes are not supported (expected a plain numeric array)");
    if (descr->second.kind != HeaderDictParser::Value::String)
        fail(context, "malformed .npy header: 'descr' must be a string");
    if (fortran->second.kind != HeaderDictParser::Value::Bool)
        fail(context, "malformed .npy header: 'fortran_order' must be True or False");
    h.fortranOrder = fortran->second.boolean;
    if (shape->second.kind != HeaderDictParser::Value::Tuple)
        fail(context, "malformed .npy header: 'shape' must be a tuple");

    const std::string& d = descr->second.str;
    if (d == "|O" || d == "O" || d == "<O" || d == ">O")
        fail(context, "pickled Python objects are not supported (expected a numeric array)");
    if (d.size() < 3) fail(context, "unsupported dtype '" + d + "'");
    const char order = d[0];
    const char kind = d[1];
    int bytes = 0;
    try {
        bytes = std::stoi(d.substr(2));
    } catch (...) {
        fail(context, "unsupported dtype '" + d + "'");
    }
    if (order != '<' && order != '>' && order != '|' && order != '=')
        fail(context, "unsupported dtype '" + d + "'");
    bool found = false;
    for (const auto& i : kDTypes) {
        if (i.kind == kind && i.size == bytes) {
            h.dtype = i.type;
            found = true;
        }
    }
    if (!found)
        fail(context, "unsupported dtype '" + d +
                          "' (expected bool, int8-64, uint8-64 or float16-64)");
    h.bigEndian = order == '>' && bytes > 1;

    h.shape = shape->second.ints;
    if (static_cast<int>(h.shape.size()) > limits::kMaxNpyDims)
        fail(context, "shape has " + std::to_string(h.shape.size()) + " dimensions (at most " +
                          std::to_string(limits::kMaxNpyDims) + ")");
    // The element count times the item size must fit 63 bits: anything else is a lying header.
    const uint64_t cap = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / 8;
    uint64_t n = 1;
    for (int64_t dim : h.shape) {
        if (dim != 0 && n > cap / static_cast<uint64_t>(dim))
            fail(context, "shape " + h.shapeString() + " is impossibly large");
        n *= static_cast<uint64_t>(dim);
    }
    return h;
}

std::vector<uint8_t> makeNpyHeader(DType dtype, const std::vector<int64_t>& shape) {
    NpyHeader tmp;
    tmp.shape = shape;
    std::string dict = "{'descr': '" + dtypeDescr(dtype) + "', 'fortran_order': False, 'shape': " +
                       tmp.shapeString() + ", }";
    // Pad with spaces and a newline so data starts on a 64-byte boundary, as numpy does.
    const bool v2 = dict.size() + 11 > 65535;
    const size_t prefix = v2 ? 12 : 10;
    size_t total = prefix + dict.size() + 1;
    total = (total + 63) / 64 * 64;
    dict.append(total - prefix - dict.size() - 1, ' ');
    dict += '\n';
    std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(v2 ? 2 : 1), 0};
    const uint32_t len = static_cast<uint32_t>(dict.size());
    out.push_back(len & 0xff);
    out.push_back((len >> 8) & 0xff);
    if (v2) {
        out.push_back((len >> 16) & 0xff);
        out.push_back((len >> 24) & 0xff);
    }
    out.insert(out.end(), dict.begin(), dict.end());
    return out;
}

std::vector<uint8_t> fortranToCOrder(const uint8_t* data, const std::vector<int64_t>& shape,
                                     size_t itemSize) {
    uint64_t count = 1;
    for (int64_t d : shape) count *= static_cast<uint64_t>(d);
    std::vector<uint8_t> out(static_cast<size_t>(count) * itemSize);
    if (count == 0) return out;
    // Walk the source in its own order (first index fastest) with an odometer over the indices,
    // keeping the C-order destination offset in step.
    const size_t rank = shape.size();
    std::vector<uint64_t> cStride(rank, 1);
    for (size_t d = rank; d-- > 1;) cStride[d - 1] = cStride[d] * static_cast<uint64_t>(shape[d]);
    std::vector<int64_t> index(rank, 0);
    uint64_t dst = 0;
    for (uint64_t src = 0; src < count; ++src) {
        std::memcpy(out.data() + dst * itemSize, data + src * itemSize, itemSize);
        for (size_t d = 0; d < rank; ++d) {
            dst += cStride[d];
            if (++index[d] < shape[d]) break;
            dst -= cStride[d] * static_cast<uint64_t>(shape[d]);
            index[d] = 0;
        }
    }
    return out;
}

void convertToFloat(const uint8_t* src, DType t, bool bigEndian, size_t count, float* dst) {
    convertAny(src, t, bigEndian, count, dst);
}

void convertToDouble(const uint8_t* src, DType t, bool bigEndian, size_t count, double* dst) {
    convertAny(src, t, bigEndian, count, dst);
}

void convertToInt64(const uint8_t* src, DType t, bool bigEndian, size_t count, int64_t* dst) {
    convertAny(src, t, bigEndian, count, dst);
}

float halfToFloat(uint16_t h) {
    const uint32_t sign = (h >> 15) & 1;
    const uint32_t exp = (h >> 10) & 0x1f;
    const uint32_t mant = h & 0x3ff;
    float v;
    if (exp == 0) v = std::ldexp(static_cast<float>(mant), -24);
    else if (exp == 31) v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
    return sign ? -v : v;
}

}  // namespace tpg
