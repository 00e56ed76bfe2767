// TensorMemory: the freed memory the process keeps (for LibTorch's re-allocated buffers) goes back
// to the OS when asked. Without that, the explorer stayed at a big file's peak (904 MB) after
// switching to a 176-node file.
#include <QtTest>

#include "ResidentMemory.h"
#include "TensorMemory.h"

using namespace tpg;

class TestTensorMemory : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { nn::keepFreedTensorMemory(); }  // as the executables start

    void freedMemoryGoesBackWhenAsked() {
        if (kSanitizerAllocator)
            QSKIP("AddressSanitizer's allocator: no heap keeping freed memory");
        const double before = residentMiB();
        allocateTouchAndFree(256);
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
