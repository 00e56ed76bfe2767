#include "JobRunner.h"

#include <QDateTime>
#include <QMetaObject>
#include <exception>

#include "VizLimits.h"

namespace tpg {

void JobControl::setProgress(double fraction, const QString& what) {
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (fraction < 1.0 && m_lastProgressMs >= 0 &&
        now - m_lastProgressMs < vizlimits::kProgressIntervalMs)
        return;
    m_lastProgressMs = now;
    JobRunner* r = m_runner;
    const quint64 id = m_id;
    r->deliver(id, [r, id, fraction, what] { emit r->progressed(id, fraction, what); });
}

void JobControl::post(const QVariant& value) {
    JobRunner* r = m_runner;
    const quint64 id = m_id;
    r->deliver(id, [r, id, value] { emit r->partial(id, value); });
}

JobRunner::JobRunner(const QString& name, QObject* parent) : QObject(parent), m_name(name) {
    m_thread = std::thread([this] { run(); });
}

JobRunner::~JobRunner() {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
        for (auto& [id, flag] : m_active) flag->store(true);
        m_queue.clear();
    }
    m_wake.notify_all();
    m_thread.join();
}

quint64 JobRunner::submit(const QString& lane, Work work) {
    std::vector<quint64> superseded;
    quint64 id = 0;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        id = m_nextId++;
        if (!lane.isEmpty()) {
            for (const auto& [other, otherLane] : m_laneOf)
                if (otherLane == lane) superseded.push_back(other);
        }
        Job job{id, lane, std::move(work), std::make_shared<std::atomic<bool>>(false)};
        m_active[id] = job.cancelled;
        m_laneOf[id] = lane;
        m_queue.push_back(std::move(job));
    }
    for (quint64 other : superseded) cancel(other);
    m_wake.notify_one();
    return id;
}

void JobRunner::cancel(quint64 id) {
    bool wasQueued = false;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_active.find(id);
        if (it == m_active.end()) return;
        it->second->store(true);
        for (auto q = m_queue.begin(); q != m_queue.end(); ++q) {
            if (q->id == id) {
                m_queue.erase(q);
                wasQueued = true;
                break;
            }
        }
    }
    // A queued job never runs: report it now (queued, so callers see signals in a steady order).
    if (wasQueued)
        QMetaObject::invokeMethod(
            this,
            [this, id] {
                finish(id);
                emit cancelled(id);
            },
            Qt::QueuedConnection);
    // A running job reports cancelled() when its work returns (see run()).
}

void JobRunner::cancelLane(const QString& lane) {
    std::vector<quint64> ids;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (const auto& [id, l] : m_laneOf)
            if (l == lane) ids.push_back(id);
    }
    for (quint64 id : ids) cancel(id);
}

void JobRunner::cancelAll() {
    std::vector<quint64> ids;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (const auto& [id, flag] : m_active) ids.push_back(id);
    }
    for (quint64 id : ids) cancel(id);
}

bool JobRunner::isActive(quint64 id) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_active.count(id) > 0;
}

int JobRunner::activeCount() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return static_cast<int>(m_active.size());
}

void JobRunner::finish(quint64 id) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_active.erase(id);
    m_laneOf.erase(id);
}

// Queues `emitIfLive` on the runner's thread. Progress and partial results of a job that has
// been cancelled in the meantime are dropped there, so a superseded job never shows up late.
void JobRunner::deliver(quint64 id, const std::function<void()>& emitIfLive) {
    QMetaObject::invokeMethod(
        this,
        [this, id, emitIfLive] {
            std::shared_ptr<std::atomic<bool>> flag;
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                auto it = m_active.find(id);
                if (it == m_active.end()) return;
                flag = it->second;
            }
            if (!flag->load()) emitIfLive();
        },
        Qt::QueuedConnection);
}

void JobRunner::run() {
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stop || !m_queue.empty(); });
            if (m_stop) return;
            job = std::move(m_queue.front());
            m_queue.pop_front();
        }
        const quint64 id = job.id;
        auto flag = job.cancelled;
        QMetaObject::invokeMethod(
            this,
            [this, id, flag] {
                if (!flag->load()) emit started(id);
            },
            Qt::QueuedConnection);
        JobControl control(this, id, flag);
        QVariant result;
        QString error;
        bool ok = false;
        try {
            result = job.work(control);
            ok = true;
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        } catch (...) {
            error = QStringLiteral("unknown error in background job");
        }
        job.work = nullptr;  // release captured data on the worker, not in the GUI's event loop
        // The final signal: decided on the owner's thread, so a cancel() issued there before this
        // event is processed still wins over a result that was already computed.
        QMetaObject::invokeMethod(
            this,
            [this, id, flag, ok, result, error] {
                finish(id);
                if (flag->load())
                    emit cancelled(id);
                else if (ok)
                    emit finished(id, result);
                else
                    emit failed(id, error);
            },
            Qt::QueuedConnection);
    }
}

}  // namespace tpg
