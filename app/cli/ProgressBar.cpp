#include "ProgressBar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "NumberText.h"

namespace tpg::cli {

namespace {
// Redrawing faster than the eye reads only costs terminal time.
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
constexpr int kBarWidth = 30;
// An estimate of the time left from less than this much work or time is mostly noise.
constexpr double kEtaMinFraction = 0.01;
constexpr double kEtaMinSeconds = 1.0;

}  // namespace

ProgressBar::ProgressBar(std::string label, int64_t total)
    : m_label(std::move(label)), m_total(std::max<int64_t>(1, total)), m_tty(isatty(STDERR_FILENO) != 0),
      m_start(std::chrono::steady_clock::now()) {}

void ProgressBar::update(double done, const std::string& detail) {
    const auto now = std::chrono::steady_clock::now();
    if (m_etaFrom <= 0 && done > 0) {
        m_etaFrom = std::min(done, static_cast<double>(m_total)) / static_cast<double>(m_total);
        m_etaStart = now;
    }
    if (!m_tty || now - m_lastDraw < kRedrawInterval) return;
    m_lastDraw = now;
    draw(done, detail);
}

void ProgressBar::finish(const std::string& detail) {
    draw(static_cast<double>(m_total), detail);
    std::fputc('\n', stderr);
}

void ProgressBar::clear() {
    if (!m_tty) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
}

void ProgressBar::draw(double done, const std::string& detail) {
    const double frac = std::clamp(done / static_cast<double>(m_total), 0.0, 1.0);
    const int filled = static_cast<int>(frac * kBarWidth);
    const auto now = std::chrono::steady_clock::now();
    const double secs = std::chrono::duration<double>(now - m_start).count();
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kBarWidth, '.');
    const double moved = frac - m_etaFrom;
    const double timed = std::chrono::duration<double>(now - m_etaStart).count();
    const std::string eta =
        m_etaFrom > 0 && moved >= kEtaMinFraction && frac < 1 && timed >= kEtaMinSeconds
            ? " ETA " + clockText(timed / moved * (1 - frac))
            : std::string();
    std::fprintf(stderr, "%s%s [%s] %3d%% %lld/%lld %.1fs%s %s", m_tty ? "\r" : "", m_label.c_str(),
                 bar.c_str(), static_cast<int>(frac * 100), static_cast<long long>(done),
                 static_cast<long long>(m_total), secs, eta.c_str(), detail.c_str());
    if (m_tty) std::fputs("\033[K", stderr);
    std::fflush(stderr);
}

}  // namespace tpg::cli
