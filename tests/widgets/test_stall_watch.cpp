// The GUI tests' stall check: work on the GUI thread fails it, a thread kept off the CPU does not.
#include <QtTest>
#include <chrono>
#include <thread>

#include "StallWatch.h"

class TestStallWatch : public QObject {
    Q_OBJECT
private slots:
    void computingOnTheGuiThreadCountsAsBusy() {
        StallWatch watch(10);
        QTest::qWait(50);
        QTimer::singleShot(0, [] {
            const qint64 start = StallWatch::threadCpuMs();
            while (StallWatch::threadCpuMs() - start < 250) {}
        });
        QTest::qWait(400);  // outlasts the block, so ticks follow it
        watch.stop();
        QVERIFY2(watch.worstBusyMs() >= 240, qPrintable(watch.report()));
        QVERIFY2(watch.worstGapMs() >= 240, qPrintable(watch.report()));
        QVERIFY(!watch.responsive());
    }

    // A sleep stands in for the machine descheduling the GUI thread: the event loop stalls for
    // longer than the busy limit, yet the GUI thread computed nothing.
    void aThreadKeptOffTheCpuIsNotBusy() {
        StallWatch watch(10);
        QTest::qWait(50);
        QTimer::singleShot(0, [] { std::this_thread::sleep_for(std::chrono::milliseconds(400)); });
        QTest::qWait(600);
        watch.stop();
        QVERIFY2(watch.worstGapMs() >= 390, qPrintable(watch.report()));
        QVERIFY2(watch.worstBusyMs() < StallWatch::kMaxBusyMs, qPrintable(watch.report()));
        QVERIFY(watch.responsive());
    }

    void aWaitLongerThanAnyMachineStallIsNotResponsive() {
        StallWatch watch(10);
        QTest::qWait(50);
        QTimer::singleShot(0, [] {
            std::this_thread::sleep_for(std::chrono::milliseconds(StallWatch::kMaxGapMs + 200));
        });
        QTest::qWait(StallWatch::kMaxGapMs + 500);
        watch.stop();
        QVERIFY2(watch.worstGapMs() > StallWatch::kMaxGapMs, qPrintable(watch.report()));
        QVERIFY(!watch.responsive());
    }
};

QTEST_GUILESS_MAIN(TestStallWatch)
#include "test_stall_watch.moc"
