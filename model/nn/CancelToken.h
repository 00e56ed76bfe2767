#pragma once

#include <atomic>

namespace tpg::nn {

// Set from any thread (e.g. a GUI's Cancel button); long work polls it between steps.
class CancelToken {
public:
    void cancel() { m_cancelled.store(true); }
    void reset() { m_cancelled.store(false); }
    bool cancelled() const { return m_cancelled.load(); }

private:
    std::atomic<bool> m_cancelled{false};
};

}  // namespace tpg::nn
