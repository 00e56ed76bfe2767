// TensorMemory: the freed memory the process keeps (for LibTorch's re-allocated buffers) goes back
// to the OS when asked. Without that, the explorer stayed at a big file's peak (904 MB) after
// switching to a 176-node file.
#include <QFile>
#include <QtTest>
#include <cstdlib>
#include <vector>

#include "TensorMemory.h"

using namespace tpg;

namespace {

// This process's resident memory in MiB, from /proc/self/status.
double residentMiB() {
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly)) return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return -1;
}

}  // namespace

class TestTensorMemory : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { nn::keepFreedTensorMemory(); }  // as the executables start

    void freedMemoryGoesBackWhenAsked() {
        constexpr size_t kBlock = size_t{4}
                                  << 20;  // below the heap's mmap threshold: kept when freed
        constexpr int kBlocks = 64;       // 256 MiB
        const double before = residentMiB();
        std::vector<char*> blocks;
        for (int i = 0; i < kBlocks; ++i) {
            auto* b = static_cast<char*>(std::malloc(kBlock));
            QVERIFY(b);
            for (size_t j = 0; j < kBlock; j += 4096) b[j] = 1;  // resident
            blocks.push_back(b);
        }
        const double full = residentMiB();
        QVERIFY2(full - before > 200,
                 qPrintable(QStringLiteral("%1 -> %2 MiB").arg(before).arg(full)));
        for (char* b : blocks) std::free(b);
        const double kept = residentMiB();
        QVERIFY2(kept - before > 200,
                 qPrintable(QStringLiteral("freed: %1 MiB kept").arg(kept - before)));
        nn::releaseFreedMemory();
        const double released = residentMiB();
        QVERIFY2(
            released - before < 50,
            qPrintable(QStringLiteral("released: %1 MiB still resident").arg(released - before)));
    }
};

QTEST_GUILESS_MAIN(TestTensorMemory)
#include "test_tensor_memory.moc"
