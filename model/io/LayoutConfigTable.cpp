#include "io/LayoutConfigTable.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "io/ConfigValues.h"
#include "io/Error.h"
#include "io/Limits.h"
#include "io/NpzArchive.h"

namespace tpg {

namespace {

struct HashPair {
    size_t operator()(const std::array<uint64_t, 2>& h) const { return static_cast<size_t>(h[0] ^ (h[1] * 31)); }
};

std::array<uint64_t, 2> hashFloats(const float* v, int64_t n) {
    std::array<uint64_t, 2> h{0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL};
    for (int64_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, v + i, 4);
        h[0] = (h[0] ^ bits) * 0x100000001b3ULL;
        h[1] = (h[1] + bits) * 0xff51afd7ed558ccdULL;
        h[1] ^= h[1] >> 29;
    }
    return h;
}

}  // namespace

std::shared_ptr<LayoutConfigTable> LayoutConfigTable::open(const std::string& path,
                                                           const std::string& key,
                                                           const NpyHeader& header, bool stored,
                                                           bool decodeInBackground,
                                                           bool decodeStored, bool deferred) {
    std::shared_ptr<LayoutConfigTable> t(new LayoutConfigTable);
    t->m_path = path;
    t->m_key = key;
    t->m_header = header;
    t->m_numConfigs = header.shape.at(0);
    t->m_numNodes = header.shape.at(1);
    t->m_width = header.shape.at(2);
    t->m_matrix = CompactMatrix(t->rowSize());
    if (stored && !decodeStored && !header.fortranOrder) {
        t->m_mode = Mode::OnDemand;
        t->m_archive = std::make_unique<NpzArchive>(path);
        t->m_available = t->m_numConfigs;
        return t;
    }
    t->m_mode = Mode::Decoded;
    if (t->rowSize() == 0) {
        t->m_available = t->m_numConfigs;
        return t;
    }
    t->m_matrix.reserveRows(t->m_numConfigs);
    if (deferred) return t;
    if (decodeInBackground) {
        t->start();
    } else {
        std::call_once(t->m_started, [] {});
        t->decode();
        t->wait();
    }
    return t;
}

std::shared_ptr<LayoutConfigTable> LayoutConfigTable::fromMatrix(CompactMatrix matrix,
                                                                 int64_t numNodes, int64_t width) {
    std::shared_ptr<LayoutConfigTable> t(new LayoutConfigTable);
    t->m_mode = Mode::Decoded;
    t->m_numConfigs = matrix.rows();
    t->m_numNodes = numNodes;
    t->m_width = width;
    if (matrix.cols() != numNodes * width)
        throw FormatError("in-memory layout configs: expected rows of " +
                          std::to_string(numNodes * width) + " values, got " +
                          std::to_string(matrix.cols()));
    t->m_matrix = std::move(matrix);
    t->m_available = t->m_numConfigs;
    return t;
}

LayoutConfigTable::~LayoutConfigTable() {
    m_cancel = true;
    if (m_worker.joinable()) m_worker.join();
}

void LayoutConfigTable::appendDecoded(const float* rows, int64_t count) {
    {
        std::unique_lock<std::shared_mutex> lock(m_matrixMutex);
        m_matrix.appendRows(rows, count);
    }
    m_available += count;
    std::lock_guard<std::mutex> lock(m_stateMutex);
    m_progressed.notify_all();
}

void LayoutConfigTable::start() const {
    if (m_mode != Mode::Decoded || complete()) return;
    // The worker only touches the table through `self`; the destructor joins it first.
    auto* self = const_cast<LayoutConfigTable*>(this);
    std::call_once(m_started, [self] { self->m_worker = std::thread([self] { self->decode(); }); });
}

void LayoutConfigTable::decode() {
    try {
        NpzArchive archive(m_path);
        if (m_header.fortranOrder) decodeColumns(archive);
        else decodeRows(archive);
        if (m_cancel) {
            std::lock_guard<std::mutex> lock(m_stateMutex);
            m_error = describeProblem(m_path, m_key, "reading the configurations was cancelled");
        }
    } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(m_stateMutex);
        m_error = e.what();
    }
    std::lock_guard<std::mutex> lock(m_stateMutex);
    m_progressed.notify_all();
}

void LayoutConfigTable::decodeRows(NpzArchive& archive) {
    const size_t item = dtypeSize(m_header.dtype);
    const size_t rowBytes = static_cast<size_t>(rowSize()) * item;
    std::vector<uint8_t> carry;
    std::vector<float> floats;
    auto emit = [&](const uint8_t* p, size_t rows) {
        floats.resize(rows * static_cast<size_t>(rowSize()));
        convertToFloat(p, m_header.dtype, m_header.bigEndian, floats.size(), floats.data());
        checkRows(floats.data(), available(), static_cast<int64_t>(rows));
        appendDecoded(floats.data(), static_cast<int64_t>(rows));
    };
    archive.stream(m_key, m_header, [&](const uint8_t* p, size_t n) {
        if (m_cancel) return false;
        if (!carry.empty()) {
            const size_t take = std::min(n, rowBytes - carry.size());
            carry.insert(carry.end(), p, p + take);
            p += take;
            n -= take;
            if (carry.size() == rowBytes) {
                emit(carry.data(), 1);
                carry.clear();
            }
        }
        const size_t whole = n / rowBytes;
        if (whole) emit(p, whole);
        carry.assign(p + whole * rowBytes, p + n);
        return true;
    });
}

void LayoutConfigTable::decodeColumns(NpzArchive& archive) {
    // Stored column s is (node s % nc, feature s / nc), i.e. column (s % nc) * F + s / nc of a row.
    const size_t item = dtypeSize(m_header.dtype);
    const size_t columnBytes = static_cast<size_t>(m_numConfigs) * item;
    const auto columns = static_cast<size_t>(rowSize());
    const size_t blockColumns = std::max<size_t>(
        1, std::min(limits::kFortranDecodeBlockBytes / std::max<size_t>(1, columnBytes),
                    (columns + limits::kFortranDecodeMinBlocks - 1) / limits::kFortranDecodeMinBlocks));
    std::vector<uint8_t> block;
    std::vector<float> floats;
    std::vector<int64_t> targets;
    int64_t next = 0;  // stored column index of block's first column
    auto flush = [&] {
        const auto count = static_cast<int64_t>(block.size() / columnBytes);
        floats.resize(block.size() / item);
        convertToFloat(block.data(), m_header.dtype, m_header.bigEndian, floats.size(), floats.data());
        targets.resize(static_cast<size_t>(count));
        for (int64_t k = 0; k < count; ++k)
            targets[static_cast<size_t>(k)] = ((next + k) % m_numNodes) * m_width + (next + k) / m_numNodes;
        const int64_t bad = config_values::firstNonLayoutValue(floats.data(), floats.size());
        if (bad >= 0)
            refuseValue(bad % m_numConfigs, targets[static_cast<size_t>(bad / m_numConfigs)],
                        floats[static_cast<size_t>(bad)]);
        {
            std::unique_lock<std::shared_mutex> lock(m_matrixMutex);
            if (m_matrix.rows() == 0) m_matrix.resizeRows(m_numConfigs);  // only once data is real
            m_matrix.writeColumns(targets.data(), count, floats.data());
        }
        next += count;
        m_columnsDecoded = next;
        block.clear();
    };
    archive.stream(m_key, m_header, [&](const uint8_t* p, size_t n) {
        while (n > 0 && !m_cancel) {
            const size_t take = std::min(n, blockColumns * columnBytes - block.size());
            block.insert(block.end(), p, p + take);
            p += take;
            n -= take;
            if (block.size() == blockColumns * columnBytes) flush();
        }
        return !m_cancel;
    });
    if (m_cancel) return;
    if (!block.empty()) flush();
    finishColumns();
}

void LayoutConfigTable::finishColumns() {
    m_available = m_numConfigs;
    std::lock_guard<std::mutex> lock(m_stateMutex);
    m_progressed.notify_all();
}

void LayoutConfigTable::checkRows(const float* rows, int64_t firstConfig, int64_t count) const {
    const int64_t bad =
        config_values::firstNonLayoutValue(rows, static_cast<size_t>(count * rowSize()));
    if (bad >= 0) refuseValue(firstConfig + bad / rowSize(), bad % rowSize(), rows[bad]);
}

void LayoutConfigTable::refuseValue(int64_t config, int64_t column, float value) const {
    throw FormatError(describeProblem(
        m_path, m_key,
        "configuration " + std::to_string(config) + ", configurable node " +
            std::to_string(column / m_width) + ", feature " + std::to_string(column % m_width) +
            " holds " + config_values::valueText(value) + " (expected " +
            config_values::kLayoutExpected + ")"));
}

double LayoutConfigTable::progress() const {
    if (m_numConfigs == 0) return 1.0;
    if (m_header.fortranOrder && !complete() && rowSize() > 0)
        return static_cast<double>(m_columnsDecoded.load()) / static_cast<double>(rowSize());
    return static_cast<double>(available()) / static_cast<double>(m_numConfigs);
}

std::string LayoutConfigTable::error() const {
    std::lock_guard<std::mutex> lock(m_stateMutex);
    return m_error;
}

void LayoutConfigTable::cancel() { m_cancel = true; }

void LayoutConfigTable::wait() const {
    start();
    std::unique_lock<std::mutex> lock(m_stateMutex);
    m_progressed.wait(lock, [&] { return available() == m_numConfigs || !m_error.empty(); });
    if (available() < m_numConfigs) throw FormatError(m_error);
}

bool LayoutConfigTable::waitForRows(int64_t rows, const std::function<bool(double)>& report,
                                    std::chrono::milliseconds interval) const {
    rows = std::min(rows, m_numConfigs);
    auto ready = [&] { return available() >= rows || !m_error.empty(); };
    {
        std::lock_guard<std::mutex> lock(m_stateMutex);
        if (ready()) return true;
    }
    start();
    while (true) {
        if (!report(progress())) return false;
        std::unique_lock<std::mutex> lock(m_stateMutex);
        if (m_progressed.wait_for(lock, interval, ready)) return true;
    }
}

void LayoutConfigTable::read(int64_t begin, int64_t count, float* out) const {
    if (begin < 0 || count < 0 || begin + count > m_numConfigs)
        throw FormatError(describeProblem(m_path, m_key, "configuration " + std::to_string(begin + count - 1) +
                                                             " out of range (" + std::to_string(m_numConfigs) +
                                                             " configurations)"));
    if (count == 0 || rowSize() == 0) return;
    if (m_mode == Mode::OnDemand) {
        const size_t item = dtypeSize(m_header.dtype);
        const uint64_t rowBytes = static_cast<uint64_t>(rowSize()) * item;
        std::vector<uint8_t> raw(static_cast<size_t>(rowBytes * static_cast<uint64_t>(count)));
        m_archive->readRange(m_key, m_header, rowBytes * static_cast<uint64_t>(begin), raw.size(), raw.data());
        // Row by row, so each row is checked while it is still in cache.
        for (int64_t r = 0; r < count; ++r) {
            float* row = out + r * rowSize();
            convertToFloat(raw.data() + static_cast<uint64_t>(r) * rowBytes, m_header.dtype,
                           m_header.bigEndian, static_cast<size_t>(rowSize()), row);
            checkRows(row, begin + r, 1);
        }
        return;
    }
    if (available() < begin + count) {
        start();
        std::unique_lock<std::mutex> lock(m_stateMutex);
        m_progressed.wait(lock, [&] { return available() >= begin + count || !m_error.empty(); });
        if (available() < begin + count) throw FormatError(m_error);
    }
    std::shared_lock<std::shared_mutex> lock(m_matrixMutex);
    m_matrix.readRows(begin, count, out);
}

std::vector<float> LayoutConfigTable::config(int64_t c) const {
    std::vector<float> out(static_cast<size_t>(rowSize()));
    read(c, 1, out.data());
    return out;
}

std::vector<float> LayoutConfigTable::readColumns(int64_t col, int64_t count) const {
    if (col < 0 || count < 0 || col + count > rowSize())
        throw FormatError(describeProblem(m_path, m_key, "columns " + std::to_string(col) + "+" + std::to_string(count) +
                                                             " out of range (" + std::to_string(rowSize()) + " per row)"));
    std::vector<float> out(static_cast<size_t>(m_numConfigs * count));
    if (m_mode == Mode::OnDemand) {
        // A stored entry: one short read per configuration.
        const size_t item = dtypeSize(m_header.dtype);
        const uint64_t rowBytes = static_cast<uint64_t>(rowSize()) * item;
        std::vector<uint8_t> raw(static_cast<size_t>(count) * item);
        for (int64_t r = 0; r < m_numConfigs; ++r) {
            m_archive->readRange(m_key, m_header, rowBytes * static_cast<uint64_t>(r) + static_cast<uint64_t>(col) * item,
                                 raw.size(), raw.data());
            float* values = out.data() + r * count;
            convertToFloat(raw.data(), m_header.dtype, m_header.bigEndian,
                           static_cast<size_t>(count), values);
            const int64_t bad =
                config_values::firstNonLayoutValue(values, static_cast<size_t>(count));
            if (bad >= 0) refuseValue(r, col + bad, values[bad]);
        }
        return out;
    }
    wait();
    std::shared_lock<std::shared_mutex> lock(m_matrixMutex);
    m_matrix.readColumns(col, count, out.data());
    return out;
}

int64_t LayoutConfigTable::countDistinct() const {
    std::unordered_set<std::array<uint64_t, 2>, HashPair> seen;
    if (m_mode == Mode::Decoded) {
        wait();
        std::shared_lock<std::shared_mutex> lock(m_matrixMutex);
        if (rowSize() == 0) return m_numConfigs > 0 ? 1 : 0;
        for (int64_t r = 0; r < m_matrix.rows(); ++r) seen.insert(m_matrix.rowHash(r));
        return static_cast<int64_t>(seen.size());
    }
    // On demand: read in batches and hash the float rows.
    std::vector<float> buf;
    for (int64_t b = 0; b < m_numConfigs; b += limits::kConfigScanBatchRows) {
        const int64_t n = std::min(limits::kConfigScanBatchRows, m_numConfigs - b);
        buf.resize(static_cast<size_t>(n * rowSize()));
        read(b, n, buf.data());
        for (int64_t r = 0; r < n; ++r) seen.insert(hashFloats(buf.data() + r * rowSize(), rowSize()));
    }
    return static_cast<int64_t>(seen.size());
}

CompactMatrix::Encoding LayoutConfigTable::encoding() const {
    std::shared_lock<std::shared_mutex> lock(m_matrixMutex);
    return m_matrix.encoding();
}

size_t LayoutConfigTable::residentBytes() const {
    std::shared_lock<std::shared_mutex> lock(m_matrixMutex);
    return m_matrix.residentBytes();
}

}  // namespace tpg
