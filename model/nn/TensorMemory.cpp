#include "TensorMemory.h"

#include <dlfcn.h>
#include <malloc.h>

#include "NnLimits.h"

namespace tpg::nn {

void keepFreedTensorMemory() {
    mallopt(M_MMAP_THRESHOLD, static_cast<int>(limits::kHeapAllocationBytes));
    mallopt(M_TRIM_THRESHOLD, static_cast<int>(limits::kKeptFreeHeapBytes - 1));
}

void releaseFreedMemory() {
    // Looked up, as in allocatorName: tcmalloc's C entry point where it is the malloc.
    using Release = void (*)();
    if (auto release =
            reinterpret_cast<Release>(dlsym(RTLD_DEFAULT, "MallocExtension_ReleaseFreeMemory"))) {
        release();
        return;
    }
    malloc_trim(0);
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
