#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace tpg::cli {

// A one-line progress bar on stderr, redrawn at most every kRedrawInterval; silent when stderr
// is not a terminal except for the final line, so logs stay readable. `done` may be fractional
// (a file part-way through), so one long item still moves the bar; the count shows whole items.
class ProgressBar {
public:
    explicit ProgressBar(std::string label, int64_t total);
    void update(double done, const std::string& detail = {});
    void finish(const std::string& detail = {});
    // Takes the bar off the terminal's line, so a line printed next starts clean (the bar comes
    // back with the next update).
    void clear();

private:
    void draw(double done, const std::string& detail);

    std::string m_label;
    int64_t m_total;
    bool m_tty;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_lastDraw;
    // The time left is estimated from the first progress on (a wait before it, such as a file's
    // decompression, says nothing of the rate): where and when that was.
    double m_etaFrom = 0;
    std::chrono::steady_clock::time_point m_etaStart;
};

}  // namespace tpg::cli
