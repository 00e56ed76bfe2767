#pragma once

// Test support shared by the GUI tests.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <algorithm>
#include <ctime>
#include <functional>

// Ticks on the GUI thread and records, between two ticks, the longest wall-clock gap and the most
// CPU time the GUI thread itself spent. The CPU figure is the one that says the GUI thread did long
// work: unlike the wall gap it does not grow when a loaded or descheduled (virtual) machine keeps
// the thread off the CPU: on one slow CI machine the wall gaps reached 345-608 ms in tests that passed elsewhere.
// The wall gap still catches the GUI thread waiting on a worker (a lock or a join), with a bound
// generous enough for such machines. `counts` decides which ticks are counted (e.g. only while
// work is pending).
class StallWatch {
public:
    static constexpr qint64 kMaxBusyMs = 100;  // the longest the GUI thread may compute at once
    static constexpr qint64 kMaxGapMs = 2000;  // beyond any machine stall seen; a wait on a worker's job exceeds it

    explicit StallWatch(int intervalMs, std::function<bool()> counts = [] { return true; }) {
        m_tick.setInterval(intervalMs);
        QObject::connect(&m_tick, &QTimer::timeout, [this, counts] {
            const qint64 now = m_clock.elapsed();
            const qint64 cpu = threadCpuMs();
            m_worstGap = std::max(m_worstGap, now - m_last);
            m_worstBusy = std::max(m_worstBusy, cpu - m_lastCpu);
            m_last = now;
            m_lastCpu = cpu;
            if (counts()) ++m_ticks;
        });
        m_clock.start();
        m_lastCpu = threadCpuMs();
        m_tick.start();
    }
    void stop() { m_tick.stop(); }
    qint64 worstGapMs() const { return m_worstGap; }
    qint64 worstBusyMs() const { return m_worstBusy; }
    int ticks() const { return m_ticks; }
    bool responsive() const { return m_worstBusy <= kMaxBusyMs && m_worstGap <= kMaxGapMs; }
    QString report() const {
        return QStringLiteral("GUI thread busy for up to %1 ms at once (limit %2); longest event-loop gap %3 ms (limit %4)")
            .arg(m_worstBusy).arg(kMaxBusyMs).arg(m_worstGap).arg(kMaxGapMs);
    }

    // CPU time this thread has used; the ticks run on the GUI thread, so this is the GUI thread's.
    static qint64 threadCpuMs() {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return qint64{t.tv_sec} * 1000 + t.tv_nsec / 1000000;
    }

private:
    QElapsedTimer m_clock;
    QTimer m_tick;
    qint64 m_last = 0, m_lastCpu = 0, m_worstGap = 0, m_worstBusy = 0;
    int m_ticks = 0;
};
