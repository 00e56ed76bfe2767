#include "graph/GroundTruth.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "io/Error.h"
#include "io/NpyFormat.h"

namespace tpg {

namespace fs = std::filesystem;

namespace {

// A ground truth is one float64 per configuration: a file far larger is not one (nor read).
constexpr uintmax_t kMaxHeaderBytes = 1 << 16;

std::vector<double> readRuntimes(const std::string& path, int64_t expected) {
    std::error_code ec;
    const uintmax_t size = fs::file_size(path, ec);
    if (ec) throwFormatError(path, "", "cannot read: " + ec.message());
    if (size > kMaxHeaderBytes + static_cast<uintmax_t>(expected) * sizeof(double))
        throwFormatError(path, "", "larger than " + std::to_string(expected) + " runtimes");
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t headerSize = npyHeaderSize(bytes.data(), bytes.size(), path);
    if (headerSize > bytes.size()) throwFormatError(path, "", "truncated header");
    const NpyHeader h = parseNpyHeader(bytes.data(), headerSize, path);
    if (h.shape.size() != 1 || static_cast<int64_t>(h.elementCount()) != expected ||
        (!dtypeIsInteger(h.dtype) && !dtypeIsFloat(h.dtype)))
        throwFormatError(path, "", "expected " + std::to_string(expected) + " runtimes, got " + h.describe());
    if (bytes.size() < h.headerBytes + h.dataBytes()) throwFormatError(path, "", "truncated data");
    std::vector<double> out(static_cast<size_t>(expected));
    convertToDouble(bytes.data() + h.headerBytes, h.dtype, h.bigEndian, out.size(), out.data());
    return out;
}

}  // namespace

std::string groundTruthPath(const std::string& npzPath) {
    const fs::path p(npzPath);
    fs::path rel;
    for (fs::path dir = p.parent_path(); !dir.empty() && dir != dir.parent_path(); dir = dir.parent_path()) {
        if (dir.filename() == "npz")
            return (dir.parent_path() / "ground_truth" / rel / (p.stem().string() + ".config_runtime.npy")).string();
        rel = dir.filename() / rel;
    }
    return {};
}

TpuGraph withGroundTruth(const TpuGraph& graph, const std::string& npzPath) {
    if (graph.isNull() || graph.runtimesKnown() || graph.numConfigs() == 0) return graph;
    const std::string path = groundTruthPath(npzPath);
    std::error_code ec;
    if (path.empty() || !fs::is_regular_file(path, ec)) return graph;
    try {
        TpuGraphData d = graph.data();
        d.runtimes = readRuntimes(path, graph.numConfigs());
        if (!graph.isLayout()) {
            const std::string norm = path.substr(0, path.size() - 4) + "_normalizers.npy";
            d.runtimeNormalizers = readRuntimes(norm, graph.numConfigs());
        }
        d.runtimeSource = path;
        return TpuGraph(std::move(d));
    } catch (const FormatError& e) {
        TpuGraphData unchanged = graph.data();
        unchanged.warnings.push_back(std::string("ground truth not used: ") + e.what());
        return TpuGraph(std::move(unchanged));
    }
}

TpuGraph loadWithGroundTruth(const std::string& path, const LoadOptions& options) {
    return withGroundTruth(loadTpuGraph(path, options), path);
}

}  // namespace tpg
