#pragma once

// Test support: this process's resident memory, and a way to leave freed memory behind in it.
#include <QFile>
#include <cstdlib>
#include <vector>

// Resident memory in MiB, from /proc/self/status (-1 when it cannot be read).
inline double residentMiB() {
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly)) return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return -1;
}

// Allocates `mib` MiB in 4 MiB blocks (below the heap's mmap threshold once keepFreedTensorMemory
// has run, so the heap keeps them when freed), touches every page and frees them again.
inline void allocateTouchAndFree(int mib) {
    constexpr size_t kBlock = size_t{4} << 20;
    std::vector<char*> blocks;
    for (int i = 0; i < mib / 4; ++i) {
        auto* b = static_cast<char*>(std::malloc(kBlock));
        if (!b) break;
        for (size_t j = 0; j < kBlock; j += 4096) b[j] = 1;
        blocks.push_back(b);
    }
    for (char* b : blocks) std::free(b);
}

// Under AddressSanitizer the allocator is ASan's: freed memory waits in its quarantine, so there is
// no heap keeping it for the tests above to watch handed back (they skip), and every step is
// slower, so the GUI's timing limits are not what that build checks.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizerAllocator = true;
#else
constexpr bool kSanitizerAllocator = false;
#endif
