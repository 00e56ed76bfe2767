#include "TensorMemory.h"

#include <dlfcn.h>
#include <malloc.h>

#include "NnLimits.h"

namespace tpg::nn {

void keepFreedTensorMemory() {
    mallopt(M_MMAP_THRESHOLD, static_cast<int>(limits::kHeapAllocationBytes));
    mallopt(M_TRIM_THRESHOLD, static_cast<int>(limits::kKeptFreeHeapBytes - 1));
}

std::string allocatorName() {
    // Looked up, not linked: the core does not depend on tcmalloc, and a preloaded one counts too.
    using Version = const char* (*)(int*, int*, const char**);
    auto version = reinterpret_cast<Version>(dlsym(RTLD_DEFAULT, "tc_version"));
    if (!version) return "glibc";
    int major = 0, minor = 0;
    const char* patch = nullptr;
    version(&major, &minor, &patch);
    return "tcmalloc " + std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace tpg::nn
