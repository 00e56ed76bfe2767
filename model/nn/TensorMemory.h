#pragma once

#include <string>

namespace tpg::nn {

// Keeps freed tensor memory in the process: LibTorch frees and re-allocates activation buffers of
// the same sizes every forward pass, and glibc's defaults hand big ones back to the OS, so every
// pass page-faults them in again (measured: +27% training configs/s; 1.5-2.1x scoring throughput
// in ../shared/performance-notes.md). Call once at start-up, before any thread allocates. Where
// the executables link tcmalloc (TPUGRAPHS_TCMALLOC) it keeps freed memory itself and ignores this.
void keepFreedTensorMemory();

// Hands the freed memory the process keeps back to the OS (tcmalloc's page heap, or glibc's heap
// top beyond what keepFreedTensorMemory keeps): for when a big job is over, not between passes.
// Thread-safe; takes milliseconds per hundred MB.
void releaseFreedMemory();

// The malloc this process runs on: "tcmalloc MAJOR.MINOR" when gperftools' tcmalloc is linked or
// preloaded, else "glibc". Recorded in training logs, so throughput figures say what they ran on.
std::string allocatorName();

}  // namespace tpg::nn
