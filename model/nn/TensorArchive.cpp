#include "TensorArchive.h"

#include <cstring>
#include <set>
#include <stdexcept>

#include "Crc32.h"
#include "NnLimits.h"
#include "io/Error.h"

namespace tpg::nn {

namespace {

const size_t kMagicSize = std::strlen(kTensorArchiveMagic);
constexpr size_t kCrcSize = 4;

template <typename T>
void put(std::string& out, T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));  // host order: little-endian on every target this builds for
    out.append(b, sizeof(T));
}

// Reads fields in order; every read is checked against the bytes left before the checksum.
class Reader {
public:
    Reader(const std::string& bytes, const std::string& label, const std::string& key)
        : m_bytes(bytes), m_end(bytes.size() - kCrcSize), m_label(label), m_key(key) {}

    template <typename T>
    T get(const char* what) {
        need(sizeof(T), what);
        T v;
        std::memcpy(&v, m_bytes.data() + m_at, sizeof(T));
        m_at += sizeof(T);
        return v;
    }
    std::string text(size_t n, const char* what) {
        need(n, what);
        m_at += n;
        return m_bytes.substr(m_at - n, n);
    }
    void floats(std::vector<float>& out, uint64_t count, const std::string& name) {
        if (count > (m_end - m_at) / sizeof(float))
            fail("tensor '" + name + "' holds " + std::to_string(count) +
                 " values, more than the archive's remaining bytes (truncated?)");
        out.resize(count);
        if (count == 0) return;  // memcpy must not see an empty vector's null data()
        std::memcpy(out.data(), m_bytes.data() + m_at, count * sizeof(float));
        m_at += count * sizeof(float);
    }
    bool atEnd() const { return m_at == m_end; }
    [[noreturn]] void fail(const std::string& what) const {
        throwFormatError(m_label, m_key, what);
    }

private:
    void need(size_t n, const char* what) const {
        if (n > m_end - m_at) fail(std::string("truncated (") + what + " cut short)");
    }
    const std::string& m_bytes;
    size_t m_at = kMagicSize;
    size_t m_end;
    const std::string& m_label;
    const std::string& m_key;
};

NamedTensor readTensor(Reader& r) {
    NamedTensor t;
    const auto nameLength = r.get<uint32_t>("a name's length");
    if (nameLength == 0 || nameLength > limits::kMaxTensorNameBytes)
        r.fail("a tensor name of " + std::to_string(nameLength) + " bytes (expected 1 to " +
               std::to_string(limits::kMaxTensorNameBytes) + ")");
    t.name = r.text(nameLength, "a tensor name");
    const auto rank = r.get<uint32_t>("a rank");
    if (rank > limits::kMaxTensorRank)
        r.fail("tensor '" + t.name + "' has rank " + std::to_string(rank) + " (expected at most " +
               std::to_string(limits::kMaxTensorRank) + ")");
    uint64_t count = 1;
    for (uint32_t d = 0; d < rank; ++d) {
        const auto extent = r.get<int64_t>("a dimension");
        if (extent < 0 || extent > limits::kMaxTensorValues)
            r.fail("tensor '" + t.name + "' has a dimension of " + std::to_string(extent));
        t.shape.push_back(extent);
        count *= static_cast<uint64_t>(extent);
        if (count > static_cast<uint64_t>(limits::kMaxTensorValues))
            r.fail("tensor '" + t.name + "' would hold more than " +
                   std::to_string(limits::kMaxTensorValues) + " values");
    }
    r.floats(t.values, count, t.name);
    return t;
}

}  // namespace

bool isTensorArchive(const std::string& bytes) {
    return bytes.compare(0, kMagicSize, kTensorArchiveMagic) == 0;
}

std::string encodeTensorArchive(const std::vector<NamedTensor>& tensors) {
    std::string out = kTensorArchiveMagic;
    put<uint64_t>(out, tensors.size());
    for (const NamedTensor& t : tensors) {
        uint64_t count = 1;
        for (int64_t extent : t.shape) count *= static_cast<uint64_t>(extent);
        if (count != t.values.size())
            throw std::logic_error("tensor '" + t.name + "': shape and values disagree");
        put<uint32_t>(out, static_cast<uint32_t>(t.name.size()));
        out += t.name;
        put<uint32_t>(out, static_cast<uint32_t>(t.shape.size()));
        for (int64_t extent : t.shape) put<int64_t>(out, extent);
        if (!t.values.empty())
            out.append(reinterpret_cast<const char*>(t.values.data()),
                       t.values.size() * sizeof(float));
    }
    put<uint32_t>(out, crc32Of(out));
    return out;
}

std::vector<NamedTensor> decodeTensorArchive(const std::string& bytes, const std::string& label,
                                             const std::string& key) {
    if (!isTensorArchive(bytes)) throwFormatError(label, key, "not a tensor archive");
    if (bytes.size() < kMagicSize + kCrcSize)
        throwFormatError(label, key, "truncated (no checksum)");
    uint32_t stored = 0;
    std::memcpy(&stored, bytes.data() + bytes.size() - kCrcSize, kCrcSize);
    if (stored != crc32Of(std::string_view(bytes).substr(0, bytes.size() - kCrcSize)))
        throwFormatError(label, key, "damaged: the checksum does not match the contents");
    Reader r(bytes, label, key);
    const auto count = r.get<uint64_t>("the tensor count");
    if (count > limits::kMaxTensors)
        r.fail(std::to_string(count) + " tensors (expected at most " +
               std::to_string(limits::kMaxTensors) + ")");
    std::vector<NamedTensor> tensors;
    std::set<std::string> names;
    for (uint64_t i = 0; i < count; ++i) {
        tensors.push_back(readTensor(r));
        if (!names.insert(tensors.back().name).second)
            r.fail("tensor '" + tensors.back().name + "' appears twice");
    }
    if (!r.atEnd()) r.fail("unexpected bytes after the last tensor");
    return tensors;
}

}  // namespace tpg::nn
