#include <QSignalSpy>
#include <QTest>
#include <atomic>
#include <stdexcept>
#include <thread>

#include "JobRunner.h"

using tpg::JobControl;
using tpg::JobRunner;

class TestJobRunner : public QObject {
    Q_OBJECT
private slots:
    void deliversResultOnOwnerThread() {
        JobRunner runner(QStringLiteral("test"));
        QSignalSpy finished(&runner, &JobRunner::finished);
        std::thread::id ranOn;
        const quint64 id = runner.submit({}, [&](JobControl&) {
            ranOn = std::this_thread::get_id();
            return QVariant(42);
        });
        QVERIFY(finished.wait(5000));
        QCOMPARE(finished.at(0).at(0).toULongLong(), id);
        QCOMPARE(finished.at(0).at(1).toInt(), 42);
        QVERIFY(ranOn != std::this_thread::get_id());
        QCOMPARE(ranOn, runner.workerThreadId());
        QVERIFY(!runner.isActive(id));
    }

    void everyJobRunsOnTheSameThread() {
        JobRunner runner(QStringLiteral("test"));
        QSignalSpy finished(&runner, &JobRunner::finished);
        std::vector<std::thread::id> threads(5);
        for (int i = 0; i < 5; ++i)
            runner.submit({}, [&threads, i](JobControl&) {
                threads[static_cast<size_t>(i)] = std::this_thread::get_id();
                return QVariant(i);
            });
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 5, 5000);
        for (int i = 0; i < 5; ++i) {
            QCOMPARE(threads[static_cast<size_t>(i)], runner.workerThreadId());
            QCOMPARE(finished.at(i).at(1).toInt(), i);  // submission order
        }
    }

    void newestRequestOfALaneWins() {
        JobRunner runner(QStringLiteral("test"));
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy cancelled(&runner, &JobRunner::cancelled);
        std::atomic<bool> release{false}, sawCancel{false}, running{false};
        const quint64 first = runner.submit(QStringLiteral("layout"), [&](JobControl& c) {
            running = true;
            while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            sawCancel = c.cancelled();
            return QVariant(1);
        });
        while (!running.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const quint64 second =
            runner.submit(QStringLiteral("layout"), [](JobControl&) { return QVariant(2); });
        const quint64 third =
            runner.submit(QStringLiteral("layout"), [](JobControl&) { return QVariant(3); });
        const quint64 other =
            runner.submit(QStringLiteral("load"), [](JobControl&) { return QVariant(4); });
        release = true;
        QTRY_COMPARE_WITH_TIMEOUT(finished.count() + cancelled.count(), 4, 5000);
        QVERIFY(sawCancel.load());  // the running job was told to stop
        QCOMPARE(finished.count(), 2);
        QCOMPARE(finished.at(0).at(0).toULongLong(), third);
        QCOMPARE(finished.at(1).at(0).toULongLong(), other);
        QList<quint64> dropped;
        for (const auto& args : cancelled) dropped << args.at(0).toULongLong();
        QVERIFY(dropped.contains(first));
        QVERIFY(dropped.contains(second));
        QCOMPARE(runner.activeCount(), 0);
    }

    void cancelDropsAComputedResult() {
        JobRunner runner(QStringLiteral("test"));
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy cancelled(&runner, &JobRunner::cancelled);
        std::atomic<bool> done{false};
        const quint64 id = runner.submit({}, [&](JobControl&) {
            done = true;
            return QVariant(7);
        });
        // Wait without processing events: the result is computed and its event queued, not handled.
        while (!done.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        runner.cancel(id);  // cancel still wins over the queued result
        QVERIFY(cancelled.wait(5000));
        QCOMPARE(finished.count(), 0);
    }

    void exceptionBecomesFailure() {
        JobRunner runner(QStringLiteral("test"));
        QSignalSpy failed(&runner, &JobRunner::failed);
        runner.submit({}, [](JobControl&) -> QVariant {
            throw std::runtime_error("a.npz: key 'x': broken");
        });
        QVERIFY(failed.wait(5000));
        QCOMPARE(failed.at(0).at(1).toString(), QStringLiteral("a.npz: key 'x': broken"));
        // The runner stays usable after a failure.
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.submit({}, [](JobControl&) { return QVariant(true); });
        QVERIFY(finished.wait(5000));
    }

    void progressAndPartialResultsArrive() {
        JobRunner runner(QStringLiteral("test"));
        QSignalSpy partial(&runner, &JobRunner::partial);
        QSignalSpy progressed(&runner, &JobRunner::progressed);
        QSignalSpy finished(&runner, &JobRunner::finished);
        runner.submit({}, [](JobControl& c) {
            for (int i = 0; i < 3; ++i) c.post(i);
            c.setProgress(1.0, QStringLiteral("done"));
            return QVariant();
        });
        QVERIFY(finished.wait(5000));
        QCOMPARE(partial.count(), 3);
        QCOMPARE(partial.at(2).at(1).toInt(), 2);
        QVERIFY(progressed.count() >= 1);
        QCOMPARE(progressed.last().at(2).toString(), QStringLiteral("done"));
    }

    void destructionWithPendingJobsIsClean() {
        std::atomic<int> ran{0};
        {
            JobRunner runner(QStringLiteral("test"));
            for (int i = 0; i < 50; ++i)
                runner.submit({}, [&](JobControl& c) {
                    ++ran;
                    while (!c.cancelled())
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                    return QVariant();
                });
            QTRY_VERIFY_WITH_TIMEOUT(ran.load() >= 1, 5000);
        }
        QCOMPARE(ran.load(), 1);  // the rest never started
    }
};

QTEST_MAIN(TestJobRunner)
#include "test_job_runner.moc"
