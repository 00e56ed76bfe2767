#pragma once

#include <string>

#include "graph/TpuGraph.h"

namespace tpg {

struct LoadOptions {
    // Deflated layout configs are decoded on a background thread (the graph is usable at once);
    // false decodes them before returning.
    bool backgroundConfigs = true;
    // Decode stored (np.savez) layout configs into memory too, instead of reading on demand.
    bool decodeStoredConfigs = false;
    // Start no decoding at load: a deflated table starts decoding the first time a row is
    // needed (inspect reads no configuration unless asked).
    bool deferDecoding = false;
};

// Reads a TpuGraphs .npz (tile or layout) exactly as the real files are: any integer width for
// ids and counts, any float width for features, node_splits 1-D or (1, k), trimmed feature
// widths (with a warning), the collection an explorer export records. Throws FormatError with one
// message naming file, key and expectation.
TpuGraph loadTpuGraph(const std::string& path, const LoadOptions& options = {});

// The search a file records in "collection_name" (an explorer export: "layout:nlp:default"),
// read without its arrays; "" when it records none or something else. Throws FormatError.
std::string recordedCollection(const std::string& path);

// Which collection a file holds, from its keys alone (cheap). Throws FormatError.
Collection detectCollection(const std::string& path);

// Writes `graph` as the dataset does (np.savez layout: uint8 opcodes, int64 edges and runtimes,
// float32 features, node_splits as (1, k)); deflated when `compressed` (np.savez_compressed).
// Written to a temporary file and renamed, so a reader never sees half a file.
void saveTpuGraph(const TpuGraph& graph, const std::string& path, bool compressed);

}  // namespace tpg
