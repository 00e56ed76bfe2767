#pragma once

#include <QElapsedTimer>
#include <QString>

namespace tpg {

// "1:05": minutes and seconds, as the Training tab and `tpugraphs train` give times.
QString clockText(double seconds);

// The time a job has left, from the rate its share done has grown since the first report that
// showed any: the time before (a deflated file's configurations decompressing, a predictor set
// up) says nothing of the rest, and counted as progress it had made a 45,000-node file's first
// estimate 15 minutes for a 5-minute scoring. The first moments of progress say too little, so
// there is no estimate before kRemainingTimeMinFraction and kRemainingTimeMinSeconds of it.
class RemainingTime {
public:
    void restart();
    bool isRunning() const { return m_clock.isValid(); }
    // Seconds left at `fraction` (0-1) done (0 once all is), or -1 while it is too early to say.
    // The first call with a fraction above 0 marks where the progress started.
    double secondsLeft(double fraction);
    // The same at `nowSeconds` after restart() (what secondsLeft(fraction) reads off the clock).
    double secondsLeftAt(double fraction, double nowSeconds);
    // From (startFraction, 0 s) to (fraction, elapsedSeconds).
    static double secondsLeft(double startFraction, double fraction, double elapsedSeconds);

private:
    QElapsedTimer m_clock;
    double m_startFraction = 0;  // the first fraction above 0 reported (0: none yet)
    double m_startSeconds = 0;   // when it was reported, on m_clock
};

}  // namespace tpg
