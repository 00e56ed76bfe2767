#include "io/NpzArchive.h"

#include <zip.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/Error.h"
#include "io/Limits.h"

namespace tpg {

namespace {

struct ZipFileCloser {
    void operator()(zip_file_t* f) const {
        if (f) zip_fclose(f);
    }
};
using ZipFilePtr = std::unique_ptr<zip_file_t, ZipFileCloser>;

std::string zipErrorString(int code) {
    zip_error_t err;
    zip_error_init_with_code(&err, code);
    std::string s = zip_error_strerror(&err);
    zip_error_fini(&err);
    return s;
}

}  // namespace

std::vector<float> NpyArray::toFloat() const {
    std::vector<float> out(header.elementCount());
    convertToFloat(bytes.data(), header.dtype, header.bigEndian, out.size(), out.data());
    return out;
}

std::vector<double> NpyArray::toDouble() const {
    std::vector<double> out(header.elementCount());
    convertToDouble(bytes.data(), header.dtype, header.bigEndian, out.size(), out.data());
    return out;
}

std::vector<int64_t> NpyArray::toInt64() const {
    std::vector<int64_t> out(header.elementCount());
    convertToInt64(bytes.data(), header.dtype, header.bigEndian, out.size(), out.data());
    return out;
}

namespace {

// Why a file that libzip cannot open is not an archive, in the user's terms: empty, cut short
// (a zip's local headers without the directory at its end), a single .npy, or something else.
[[noreturn]] void refuseUnreadableArchive(const std::string& path, int code) {
    std::ifstream in(path, std::ios::binary);
    char head[6] = {};
    in.read(head, sizeof head);
    const std::streamsize got = in.gcount();
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size == 0) throwFormatError(path, "", "empty file (0 bytes): not a .npz archive");
    if (got >= 4 && std::memcmp(head, "PK\x03\x04", 4) == 0 && code == ZIP_ER_NOZIP)
        throwFormatError(path, "",
                         "truncated: the zip's central directory is missing (the file has " +
                             std::to_string(ec ? 0 : size) + " bytes; it was cut short or is still being written)");
    if (got >= 6 && std::memcmp(head, "\x93NUMPY", 6) == 0)
        throwFormatError(path, "", "a single .npy array (np.save), not a .npz archive of arrays (np.savez)");
    throwFormatError(path, "", "not a readable .npz (zip) archive: " + zipErrorString(code));
}

}  // namespace

NpzArchive::NpzArchive(const std::string& path) : m_path(path) {
    int code = 0;
    m_zip = zip_open(path.c_str(), ZIP_RDONLY, &code);
    if (!m_zip) {
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec))  // libzip: "Operation not supported"
            throwFormatError(path, "", "a folder, not a .npz file");
        if (code == ZIP_ER_NOENT || code == ZIP_ER_OPEN) throwFormatError(path, "", "cannot open file: " + zipErrorString(code));
        refuseUnreadableArchive(path, code);
    }
    const zip_int64_t n = zip_get_num_entries(m_zip, 0);
    for (zip_int64_t i = 0; i < n; ++i) {
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(m_zip, static_cast<zip_uint64_t>(i), 0, &st) != 0) continue;
        NpzEntry e;
        e.key = st.name ? st.name : "";
        if (e.key.size() > 4 && e.key.compare(e.key.size() - 4, 4, ".npy") == 0)
            e.key.resize(e.key.size() - 4);
        e.index = static_cast<uint64_t>(i);
        e.stored = st.comp_method == ZIP_CM_STORE;
        e.compressedSize = st.comp_size;
        e.size = st.size;
        m_entries.push_back(std::move(e));
    }
}

NpzArchive::~NpzArchive() {
    if (m_zip) zip_discard(m_zip);
}

const NpzEntry* NpzArchive::find(const std::string& key) const {
    auto it = std::find_if(m_entries.begin(), m_entries.end(),
                           [&](const NpzEntry& e) { return e.key == key; });
    return it == m_entries.end() ? nullptr : &*it;
}

const NpzEntry& NpzArchive::require(const std::string& key) const {
    const NpzEntry* e = find(key);
    if (!e) throwFormatError(m_path, key, "missing (expected an array named '" + key + "')");
    return *e;
}

NpyHeader NpzArchive::header(const std::string& key) {
    const NpzEntry& e = require(key);
    std::lock_guard<std::mutex> lock(m_mutex);
    ZipFilePtr f(zip_fopen_index(m_zip, e.index, 0));
    if (!f) throwFormatError(m_path, key, std::string("cannot open entry: ") + zip_strerror(m_zip));
    uint8_t pre[kNpyPreambleBytes];
    zip_int64_t got = zip_fread(f.get(), pre, sizeof pre);
    if (got < 0) throwFormatError(m_path, key, std::string("corrupt data: ") + zip_file_strerror(f.get()));
    if (got < 10) throwFormatError(m_path, key, "truncated: not a numpy .npy array");
    const std::string context = m_path + ": key '" + key + "'";
    const size_t total = npyHeaderSize(pre, static_cast<size_t>(got), context);
    std::vector<uint8_t> buf(total);
    std::memcpy(buf.data(), pre, static_cast<size_t>(std::min<zip_int64_t>(got, static_cast<zip_int64_t>(total))));
    if (static_cast<size_t>(got) < total) {
        zip_int64_t more = zip_fread(f.get(), buf.data() + got, total - static_cast<size_t>(got));
        if (more < 0) throwFormatError(m_path, key, std::string("corrupt data: ") + zip_file_strerror(f.get()));
        if (static_cast<size_t>(got + more) < total)
            throwFormatError(m_path, key, "truncated .npy header");
    }
    NpyHeader h = parseNpyHeader(buf.data(), total, context);
    if (e.size < h.headerBytes || e.size - h.headerBytes != h.dataBytes())
        throwFormatError(m_path, key,
                         "header says " + h.describe() + " (" + std::to_string(h.dataBytes()) +
                             " bytes of data) but the entry holds " +
                             std::to_string(e.size > h.headerBytes ? e.size - h.headerBytes : 0) +
                             " bytes");
    if (!e.stored && e.size > e.compressedSize * limits::kMaxDeflateRatio + limits::kDeflateRatioSlackBytes)
        throwFormatError(m_path, key,
                         "entry claims " + std::to_string(e.size) + " bytes from " +
                             std::to_string(e.compressedSize) +
                             " compressed bytes, more than deflate can produce");
    return h;
}

NpyArray NpzArchive::read(const std::string& key) {
    NpyArray a;
    a.header = header(key);
    a.bytes.resize(a.header.dataBytes());
    size_t filled = 0;
    stream(key, a.header, [&](const uint8_t* p, size_t n) {
        std::memcpy(a.bytes.data() + filled, p, n);
        filled += n;
        return true;
    });
    if (a.header.fortranOrder) {
        a.bytes = fortranToCOrder(a.bytes.data(), a.header.shape, dtypeSize(a.header.dtype));
        a.header.fortranOrder = false;
    }
    return a;
}

void NpzArchive::readRange(const std::string& key, const NpyHeader& header, uint64_t offset,
                           uint64_t bytes, uint8_t* out) {
    const NpzEntry& e = require(key);
    if (!e.stored) throwFormatError(m_path, key, "random access needs a stored (np.savez) entry");
    if (offset + bytes > header.dataBytes()) throwFormatError(m_path, key, "read past the end of the array");
    std::lock_guard<std::mutex> lock(m_mutex);
    ZipFilePtr f(zip_fopen_index(m_zip, e.index, 0));
    if (!f) throwFormatError(m_path, key, std::string("cannot open entry: ") + zip_strerror(m_zip));
    if (zip_fseek(f.get(), static_cast<zip_int64_t>(header.headerBytes + offset), SEEK_SET) != 0)
        throwFormatError(m_path, key, std::string("cannot seek: ") + zip_file_strerror(f.get()));
    uint64_t done = 0;
    while (done < bytes) {
        zip_int64_t got = zip_fread(f.get(), out + done, bytes - done);
        if (got <= 0)
            throwFormatError(m_path, key,
                             got < 0 ? std::string("read failed: ") + zip_file_strerror(f.get())
                                     : std::string("truncated: the file ends inside the array"));
        done += static_cast<uint64_t>(got);
    }
}

bool NpzArchive::stream(const std::string& key, const NpyHeader& header,
                        const std::function<bool(const uint8_t*, size_t)>& sink) {
    const NpzEntry& e = require(key);
    std::vector<uint8_t> buf(std::min<uint64_t>(limits::kStreamChunkBytes, header.headerBytes + header.dataBytes() + 1));
    std::unique_lock<std::mutex> lock(m_mutex);
    ZipFilePtr f(zip_fopen_index(m_zip, e.index, 0));
    if (!f) throwFormatError(m_path, key, std::string("cannot open entry: ") + zip_strerror(m_zip));
    uint64_t skip = header.headerBytes;
    uint64_t remaining = header.dataBytes();
    while (remaining > 0) {
        const uint64_t want = std::min<uint64_t>(buf.size(), skip + remaining);
        zip_int64_t got = zip_fread(f.get(), buf.data(), want);
        if (got < 0)
            throwFormatError(m_path, key, std::string("corrupt data: ") + zip_file_strerror(f.get()));
        if (got == 0) throwFormatError(m_path, key, "truncated: the file ends inside the array");
        uint64_t start = std::min<uint64_t>(skip, static_cast<uint64_t>(got));
        skip -= start;
        const uint64_t n = static_cast<uint64_t>(got) - start;
        if (n > 0) {
            remaining -= n;
            if (!sink(buf.data() + start, n)) return false;
        }
    }
    // One more read reaches the end of the entry, where libzip verifies the CRC.
    uint8_t tail;
    if (zip_fread(f.get(), &tail, 1) < 0)
        throwFormatError(m_path, key, std::string("corrupt data: ") + zip_file_strerror(f.get()));
    return true;
}

}  // namespace tpg
