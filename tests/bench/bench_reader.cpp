// Reader benchmark: time and peak resident memory to open a layout file (graph ready) and,
// with --distinct, to decode every configuration. Usage: bench_reader FILE [--distinct]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>

#include "graph/GraphFile.h"

namespace {

double peakRssMiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is KiB on Linux
}

double since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_reader FILE [--distinct]\n");
        return 2;
    }
    const bool distinct = argc > 2 && std::strcmp(argv[2], "--distinct") == 0;
    try {
        const auto t0 = std::chrono::steady_clock::now();
        tpg::LoadOptions lo;
        lo.deferDecoding = !distinct;
        tpg::TpuGraph g = tpg::loadTpuGraph(argv[1], lo);
        const double ready = since(t0);
        std::printf("graph ready      %.3f s  (%lld nodes, %lld configs)  peak RSS %.0f MiB\n", ready,
                    static_cast<long long>(g.numNodes()), static_cast<long long>(g.numConfigs()), peakRssMiB());
        if (distinct && g.isLayout()) {
            const auto t1 = std::chrono::steady_clock::now();
            const int64_t d = g.layoutConfigs()->countDistinct();
            std::printf("all configs      %.3f s  (%lld distinct, %s, %.0f MiB stored)  peak RSS %.0f MiB\n", since(t1),
                        static_cast<long long>(d), tpg::CompactMatrix::encodingName(g.layoutConfigs()->encoding()),
                        static_cast<double>(g.layoutConfigs()->residentBytes()) / (1 << 20), peakRssMiB());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_reader: %s\n", e.what());
        return 1;
    }
    return 0;
}
