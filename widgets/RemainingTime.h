#pragma once

#include <QElapsedTimer>
#include <QString>

namespace tpg {

// "1:05": minutes and seconds, as the Training tab and `tpugraphs train` give times.
QString clockText(double seconds);

// The time a job has left, from the share of it done so far and the time that took. The first
// moments (a file's header read, a phase set up) say too little, so there is no estimate before
// kRemainingTimeMinFraction and kRemainingTimeMinSeconds.
class RemainingTime {
public:
    void restart() { m_clock.start(); }
    bool isRunning() const { return m_clock.isValid(); }
    // Seconds left at `fraction` (0-1) done (0 once all is), or -1 while it is too early to say.
    double secondsLeft(double fraction) const;
    static double secondsLeft(double fraction, double elapsedSeconds);

private:
    QElapsedTimer m_clock;
};

}  // namespace tpg
