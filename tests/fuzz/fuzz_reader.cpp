// libFuzzer harness over the reader: the .npy header parser and element conversion on the raw
// input, then the input as a whole .npz through loadTpuGraph (validation included) and every
// configuration row. Bad input must end in FormatError: any other exception, a crash, a leak or a
// sanitizer report is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "graph/GraphFile.h"
#include "io/Error.h"
#include "io/NpyFormat.h"

namespace {

// Each fuzzing process writes its input to a file of its own (the reader opens paths, as libzip
// does); /dev/shm keeps that in memory.
const std::string& scratchPath() {
    static const std::string path = "/dev/shm/tpg-fuzz-" + std::to_string(getpid()) + ".npz";
    return path;
}

void parseAsNpy(const uint8_t* data, size_t size) {
    try {
        const size_t headerSize = tpg::npyHeaderSize(data, size, "fuzz.npy");
        if (headerSize > size) return;
        const tpg::NpyHeader h = tpg::parseNpyHeader(data, headerSize, "fuzz.npy");
        const size_t available = (size - headerSize) / tpg::dtypeSize(h.dtype);
        const size_t count = std::min<uint64_t>(available, h.elementCount());
        std::vector<double> out(count);
        tpg::convertToDouble(data + headerSize, h.dtype, h.bigEndian, count, out.data());
        if (h.fortranOrder && count == h.elementCount())
            tpg::fortranToCOrder(data + headerSize, h.shape, tpg::dtypeSize(h.dtype));
    } catch (const tpg::FormatError&) {
    }
}

void loadAsNpz(const uint8_t* data, size_t size) {
    FILE* f = std::fopen(scratchPath().c_str(), "wb");
    if (!f) return;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    try {
        tpg::LoadOptions options;
        options.backgroundConfigs = false;  // decode on this thread: findings stay attributable
        const tpg::TpuGraph g = tpg::loadTpuGraph(scratchPath(), options);
        if (g.isLayout()) {
            const auto& t = *g.layoutConfigs();
            std::vector<float> rows(static_cast<size_t>(t.numConfigs() * t.rowSize()));
            t.read(0, t.numConfigs(), rows.data());
            t.countDistinct();
        }
        for (int64_t c = 0; c < g.numConfigs(); ++c) (void)g.normalizedRuntime(c);
    } catch (const tpg::FormatError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    parseAsNpy(data, size);
    loadAsNpz(data, size);
    return 0;
}
