#pragma once

// Test support shared by the GUI tests.
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <algorithm>
#include <functional>

// Ticks on the GUI thread and records the longest gap between ticks: how long the event loop
// stalled while it ran. `counts` decides which ticks are counted (e.g. only while work is pending).
class StallWatch {
public:
    explicit StallWatch(int intervalMs, std::function<bool()> counts = [] { return true; }) {
        m_tick.setInterval(intervalMs);
        QObject::connect(&m_tick, &QTimer::timeout, [this, counts] {
            const qint64 now = m_clock.elapsed();
            m_worst = std::max(m_worst, now - m_last);
            m_last = now;
            if (counts()) ++m_ticks;
        });
        m_clock.start();
        m_tick.start();
    }
    void stop() { m_tick.stop(); }
    qint64 worstGapMs() const { return m_worst; }
    int ticks() const { return m_ticks; }

private:
    QElapsedTimer m_clock;
    QTimer m_tick;
    qint64 m_last = 0, m_worst = 0;
    int m_ticks = 0;
};
