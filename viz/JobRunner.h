#pragma once

#include <QObject>
#include <QString>
#include <QVariant>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace tpg {

class JobRunner;

// What a running job sees: whether it should stop, and ways to report progress or partial
// results. Everything it reports reaches the GUI by queued signal; a job never touches a widget.
class JobControl {
public:
    bool cancelled() const { return m_cancelled->load(); }
    // Fraction in [0, 1] (negative: unknown) and a short description; throttled.
    void setProgress(double fraction, const QString& what = {});
    // A piece of the result that is ready early (e.g. a batch of file headers).
    void post(const QVariant& partial);

private:
    friend class JobRunner;
    JobControl(JobRunner* runner, quint64 id, std::shared_ptr<std::atomic<bool>> cancelled)
        : m_runner(runner), m_id(id), m_cancelled(std::move(cancelled)) {}
    JobRunner* m_runner;
    quint64 m_id;
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    qint64 m_lastProgressMs = -1;
};

// The one background-job primitive of the application: a dedicated worker thread running
// jobs one at a time, in submission order. Layout uses one runner (so every Graphviz call
// happens on that one thread: cgraph is not thread-safe); file loading another; scoring and
// training can add theirs.
// - A job submitted on a non-empty `lane` supersedes the earlier jobs of that lane: queued ones
//   never run, a running one is told to stop (cancelled()), and its result is dropped. Newest
//   request wins.
// - Results, failures (exception messages) and progress come back as queued signals on the
//   thread that owns the runner. A cancelled job emits cancelled(), never finished().
class JobRunner : public QObject {
    Q_OBJECT
public:
    using Work = std::function<QVariant(JobControl&)>;

    explicit JobRunner(const QString& name, QObject* parent = nullptr);
    ~JobRunner() override;  // cancels everything and joins the worker

    quint64 submit(const QString& lane, Work work);
    void cancel(quint64 id);
    void cancelLane(const QString& lane);
    void cancelAll();

    // True from submit() until the job's final signal has been emitted.
    bool isActive(quint64 id) const;
    int activeCount() const;
    const QString& name() const { return m_name; }
    std::thread::id workerThreadId() const { return m_thread.get_id(); }

signals:
    void started(quint64 id);
    void progressed(quint64 id, double fraction, const QString& what);
    void partial(quint64 id, const QVariant& value);
    void finished(quint64 id, const QVariant& result);
    void failed(quint64 id, const QString& message);
    void cancelled(quint64 id);

private:
    friend class JobControl;
    struct Job {
        quint64 id = 0;
        QString lane;
        Work work;
        std::shared_ptr<std::atomic<bool>> cancelled;
    };
    void run();
    void deliver(quint64 id, const std::function<void()>& emitIfLive);
    void finish(quint64 id);

    QString m_name;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Job> m_queue;
    // Every job not yet finished (queued, running, or with signals in flight), by id.
    std::map<quint64, std::shared_ptr<std::atomic<bool>>> m_active;
    std::map<quint64, QString> m_laneOf;
    quint64 m_nextId = 1;
    bool m_stop = false;
    std::thread m_thread;
};

}  // namespace tpg
