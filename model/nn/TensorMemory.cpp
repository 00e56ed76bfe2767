#include "TensorMemory.h"

#include <malloc.h>

#include "NnLimits.h"

namespace tpg::nn {

void keepFreedTensorMemory() {
    mallopt(M_MMAP_THRESHOLD, static_cast<int>(limits::kHeapAllocationBytes));
    mallopt(M_TRIM_THRESHOLD, static_cast<int>(limits::kKeptFreeHeapBytes - 1));
}

}  // namespace tpg::nn
