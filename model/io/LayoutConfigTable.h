#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/CompactMatrix.h"
#include "io/NpyFormat.h"

namespace tpg {

class NpzArchive;

// The node_config_feat tensor (c, nc, F) of a layout file, one row per configuration.
// - A stored (np.savez) entry is read on demand: rows are fetched by seeking into the file,
//   so opening a 2 GB file costs nothing.
// - A deflated (np.savez_compressed) entry must be inflated from the start; it is decoded once,
//   on a background thread, into a CompactMatrix. Rows become readable as they arrive; a read
//   of a row not yet decoded waits for it.
// - A Fortran-ordered entry (stored or deflated) holds each (node, feature) column of all
//   configurations contiguously, so one row would take nc * F seeks: it is decoded once, in the
//   background, into the CompactMatrix a block of columns at a time; rows become readable when
//   the last column has arrived.
class LayoutConfigTable {
public:
    enum class Mode { OnDemand, Decoded };

    // Opens `key` of the .npz at `path` (header already checked). With decodeInBackground false,
    // a deflated entry is decoded before this returns. Stored entries are always on demand
    // unless `decodeStored` asks for them to be decoded as well.
    static std::shared_ptr<LayoutConfigTable> open(const std::string& path, const std::string& key,
                                                   const NpyHeader& header, bool stored,
                                                   bool decodeInBackground = true,
                                                   bool decodeStored = false, bool deferred = false);
    // An in-memory table (synthetic data, tests).
    static std::shared_ptr<LayoutConfigTable> fromMatrix(CompactMatrix matrix, int64_t numNodes,
                                                         int64_t width);

    ~LayoutConfigTable();
    LayoutConfigTable(const LayoutConfigTable&) = delete;
    LayoutConfigTable& operator=(const LayoutConfigTable&) = delete;

    int64_t numConfigs() const { return m_numConfigs; }
    int64_t numNodes() const { return m_numNodes; }  // configurable nodes (nc)
    int64_t width() const { return m_width; }        // features per node (18)
    int64_t rowSize() const { return m_numNodes * m_width; }
    Mode mode() const { return m_mode; }

    int64_t available() const { return m_available.load(); }  // rows readable without waiting
    bool complete() const { return available() == m_numConfigs; }
    double progress() const;
    std::string error() const;  // empty unless decoding failed or was cancelled
    void cancel();
    // Blocks until every row is decoded; throws FormatError if decoding failed.
    void wait() const;
    // Waits until `rows` rows are readable or decoding ends, calling `report(progress())` before
    // each `interval` of waiting, so a caller can show the wait (a Fortran-ordered table's rows
    // all arrive at its end). False when `report` returned false (cancelled); after a failed
    // decode true, and the next read throws its error.
    bool waitForRows(int64_t rows, const std::function<bool(double)>& report,
                     std::chrono::milliseconds interval) const;
    // Starts a deferred decode (reads, wait() and countDistinct() start it themselves).
    void start() const;

    // Rows [begin, begin + count) as float32, rowSize() each. Throws FormatError.
    void read(int64_t begin, int64_t count, float* out) const;
    std::vector<float> config(int64_t c) const;
    // Columns [col, col + count) of a row (e.g. one node's 18 values) for every configuration:
    // numConfigs() x count values. Throws FormatError.
    std::vector<float> readColumns(int64_t col, int64_t count) const;

    // Distinct configurations (by 128-bit row hash; decodes or reads every row).
    int64_t countDistinct() const;

    CompactMatrix::Encoding encoding() const;
    size_t residentBytes() const;

private:
    LayoutConfigTable() = default;
    void decode();
    void decodeRows(NpzArchive& archive);
    void decodeColumns(NpzArchive& archive);
    void appendDecoded(const float* rows, int64_t count);
    void finishColumns();
    // Throw FormatError naming the configuration, node and feature of a value that is not a
    // layout value (config_values::isLayoutValue).
    void checkRows(const float* rows, int64_t firstConfig, int64_t count) const;
    [[noreturn]] void refuseValue(int64_t config, int64_t column, float value) const;

    std::string m_path;
    std::string m_key;
    NpyHeader m_header;
    Mode m_mode = Mode::Decoded;
    int64_t m_numConfigs = 0;
    int64_t m_numNodes = 0;
    int64_t m_width = 0;

    std::unique_ptr<NpzArchive> m_archive;  // OnDemand only

    mutable std::shared_mutex m_matrixMutex;
    CompactMatrix m_matrix;  // Decoded only
    std::atomic<int64_t> m_available{0};
    std::atomic<int64_t> m_columnsDecoded{0};  // Fortran-ordered entries: progress before rows
    std::atomic<bool> m_cancel{false};
    mutable std::mutex m_stateMutex;
    mutable std::condition_variable m_progressed;
    std::string m_error;
    mutable std::thread m_worker;
    mutable std::once_flag m_started;
};

}  // namespace tpg
