#include "DataParallelGroup.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>
#include <vector>

namespace tpg::nn {

namespace {

using Clock = std::chrono::steady_clock;
// Every rank bumps its heartbeat counter this often, so that after a failed collective the
// survivors can tell which rank stopped...
constexpr auto kHeartbeatInterval = std::chrono::milliseconds(400);
// ...and a counter that has not moved for this long belongs to a rank that is gone.
constexpr auto kHeartbeatSilence = std::chrono::milliseconds(1500);
// How often a joining rank looks for the others.
constexpr auto kJoinPoll = std::chrono::milliseconds(100);
// A collective waiting this long on a peer that is alive but stuck fails: PyTorch's default,
// generous for a slow validation shard on the real data.
constexpr auto kCollectiveTimeout = std::chrono::minutes(30);
// Single store reads and writes after the join.
constexpr auto kStoreTimeout = std::chrono::seconds(30);

std::string rankList(const std::vector<int>& ranks) {
    std::string s = ranks.size() == 1 ? "rank " : "ranks ";
    for (size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
    return s;
}

std::string textOf(const std::exception& e) {
    if (const auto* c = dynamic_cast<const c10::Error*>(&e)) return c->what_without_backtrace();
    return e.what();
}

std::string hostName() {
    char name[256] = {};
    return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("?");
}

// This machine's address on the route to rank 0 (a connected UDP socket sends nothing): the
// interface the other machines can reach, where the host name may resolve to 127.0.1.1.
std::string addressTowards(const std::string& host) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo* found = nullptr;
    if (getaddrinfo(host.c_str(), "9", &hints, &found) != 0 || !found) return {};
    std::string address;
    const int fd = socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in local{};
    socklen_t length = sizeof local;
    if (fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
        char text[INET_ADDRSTRLEN] = {};
        if (inet_ntop(AF_INET, &local.sin_addr, text, sizeof text)) address = text;
    }
    if (fd >= 0) close(fd);
    freeaddrinfo(found);
    return address;
}

std::shared_ptr<gloo::transport::Device> glooDevice(const WorkerEnvironment& env) {
    if (const char* name = std::getenv("GLOO_SOCKET_IFNAME"); name && *name) {
        const std::string first = std::string(name).substr(0, std::string(name).find(','));
        try {
            return c10d::ProcessGroupGloo::createDeviceForInterface(first);
        } catch (const std::exception&) {
            throw DistributedError("rank " + std::to_string(env.rank) + ": GLOO_SOCKET_IFNAME='" + name +
                                   "': this machine has no interface '" + first +
                                   "' with an address (see `ip -brief address`)");
        }
    }
    const std::string address = addressTowards(env.masterAddr);
    return address.empty() ? c10d::ProcessGroupGloo::createDefaultDevice()
                           : c10d::ProcessGroupGloo::createDeviceForHostname(address);
}

}  // namespace

struct DataParallelGroup::Impl {
    WorkerEnvironment env;
    c10::intrusive_ptr<c10d::TCPStore> store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
    double collectiveSeconds = 0;
    std::thread heartbeat;
    std::mutex mutex;
    std::condition_variable stopping;
    bool stop = false;

    // Keys of this attempt: torchrun's agent store outlives a restarted attempt's workers.
    std::string prefix() const { return "tpg/attempt" + std::to_string(env.attempt) + "/"; }
    std::string key(const char* kind, int rank) const { return prefix() + kind + "/" + std::to_string(rank); }

    ~Impl() {
        {
            const std::lock_guard<std::mutex> lock(mutex);
            stop = true;
        }
        stopping.notify_all();
        if (heartbeat.joinable()) heartbeat.join();
    }

    // Its own store connection: the main thread may be blocked in a store call meanwhile.
    void beat() {
        try {
            c10d::TCPStoreOptions o;
            o.port = static_cast<uint16_t>(env.masterPort);
            o.waitWorkers = false;
            o.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(kHeartbeatSilence);
            c10d::TCPStore client(env.masterAddr, o);
            for (;;) {
                client.add(key("heartbeat", env.rank), 1);
                std::unique_lock<std::mutex> lock(mutex);
                if (stopping.wait_for(lock, kHeartbeatInterval, [this] { return stop; })) return;
            }
        } catch (const std::exception&) {
            // Rank 0 (the store) is gone: the next collective fails and says so.
        }
    }

    // After a failed collective: which ranks stopped beating, and what they reported.
    std::string culprits() {
        try {
            store->setTimeout(std::chrono::milliseconds(kHeartbeatSilence));
            std::vector<int64_t> before(static_cast<size_t>(env.worldSize));
            for (int r = 0; r < env.worldSize; ++r) before[static_cast<size_t>(r)] = store->add(key("heartbeat", r), 0);
            std::this_thread::sleep_for(kHeartbeatSilence);
            std::vector<int> silent;
            std::string reports;
            for (int r = 0; r < env.worldSize; ++r) {
                if (r != env.rank && store->add(key("heartbeat", r), 0) == before[static_cast<size_t>(r)])
                    silent.push_back(r);
                if (r != env.rank && store->check({key("failed", r)})) {
                    const std::vector<uint8_t> m = store->get(key("failed", r));
                    reports += "; rank " + std::to_string(r) + " reported: " + std::string(m.begin(), m.end());
                }
            }
            if (silent.empty()) return "every rank is still alive (a stuck peer or a network fault?)" + reports;
            return rankList(silent) + " stopped (no heartbeat for " +
                   std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(kHeartbeatSilence).count()) +
                   " ms)" + reports;
        } catch (const std::exception&) {
            return std::string(env.agentStore ? "torchrun's store at " : "rank 0, which hosts the store at ") +
                   env.masterAddr + ":" + std::to_string(env.masterPort) + ", stopped";
        }
    }

    void run(const char* what, const std::function<c10::intrusive_ptr<c10d::Work>()>& start) {
        const auto begin = Clock::now();
        try {
            start()->wait();
        } catch (const std::exception& e) {
            throw DistributedError("rank " + std::to_string(env.rank) + ": " + what + " failed: " + culprits() +
                                   " (Gloo: " + textOf(e) + ")");
        }
        collectiveSeconds += std::chrono::duration<double>(Clock::now() - begin).count();
    }

    void allReduce(torch::Tensor t, const char* what, const c10d::ReduceOp& op = c10d::ReduceOp::SUM) {
        std::vector<at::Tensor> tensors{std::move(t)};
        c10d::AllreduceOptions o;
        o.reduceOp = op;
        run(what, [&] { return group->allreduce(tensors, o); });
    }
};

namespace {

void connectStore(DataParallelGroup::Impl& impl, std::chrono::seconds joinTimeout) {
    const WorkerEnvironment& env = impl.env;
    const std::string where = env.masterAddr + ":" + std::to_string(env.masterPort);
    c10d::TCPStoreOptions o;
    o.port = static_cast<uint16_t>(env.masterPort);
    o.isServer = env.rank == 0 && !env.agentStore;
    o.numWorkers = env.worldSize;
    o.waitWorkers = false;  // the join below waits, naming who is missing
    o.timeout = joinTimeout;
    try {
        impl.store = c10::make_intrusive<c10d::TCPStore>(env.masterAddr, o);
    } catch (const std::exception& e) {
        const std::string who = "rank " + std::to_string(env.rank);
        throw DistributedError(
            o.isServer ? who + ": cannot host the store on port " + std::to_string(env.masterPort) +
                             " (is it in use?): " + textOf(e)
                       : who + ": could not reach " + (env.agentStore ? "torchrun's store" : "rank 0's store") +
                             " at " + where + " within " + std::to_string(joinTimeout.count()) +
                             " s (is it running, and that port open?): " + textOf(e));
    }
}

void waitForEveryRank(DataParallelGroup::Impl& impl, std::chrono::seconds joinTimeout) {
    const WorkerEnvironment& env = impl.env;
    const std::string host = hostName();
    impl.store->set(impl.key("joined", env.rank), std::vector<uint8_t>(host.begin(), host.end()));
    const auto deadline = Clock::now() + joinTimeout;
    std::vector<int> missing;  // as last seen whole
    for (int r = 0; r < env.worldSize; ++r)
        if (r != env.rank) missing.push_back(r);
    for (;;) {
        try {
            std::vector<int> now;
            for (int r = 0; r < env.worldSize; ++r)
                if (!impl.store->check({impl.key("joined", r)})) now.push_back(r);
            missing = now;
        } catch (const std::exception& e) {  // rank 0 gave up waiting (or stopped) and its store went
            throw DistributedError("rank " + std::to_string(env.rank) + ": " + rankList(missing) + " of " +
                                   std::to_string(env.worldSize) + " never joined: the store at " + env.masterAddr +
                                   ":" + std::to_string(env.masterPort) + " closed while waiting for " +
                                   (missing.size() == 1 ? "it" : "them") + " (" + textOf(e) + ")");
        }
        if (missing.empty()) return;
        if (Clock::now() >= deadline)
            throw DistributedError("rank " + std::to_string(env.rank) + ": " + rankList(missing) + " of " +
                                   std::to_string(env.worldSize) + " never joined within " +
                                   std::to_string(joinTimeout.count()) + " s (store at " + env.masterAddr + ":" +
                                   std::to_string(env.masterPort) + ")");
        std::this_thread::sleep_for(kJoinPoll);
    }
}

}  // namespace

std::unique_ptr<DataParallelGroup> DataParallelGroup::join(const WorkerEnvironment& env,
                                                           std::chrono::seconds joinTimeout) {
    // This machine's interface first: a wrong GLOO_SOCKET_IFNAME fails here, before the rendezvous,
    // so no rank leaves the others waiting on a store it is about to close.
    std::shared_ptr<gloo::transport::Device> device;
    try {
        device = glooDevice(env);
    } catch (const DistributedError&) {
        throw;
    } catch (const std::exception& e) {
        throw DistributedError("rank " + std::to_string(env.rank) + ": no network device for Gloo: " + textOf(e));
    }
    auto impl = std::make_unique<Impl>();
    impl->env = env;
    connectStore(*impl, joinTimeout);
    try {
        waitForEveryRank(*impl, joinTimeout);
        impl->store->setTimeout(kStoreTimeout);
        impl->heartbeat = std::thread([p = impl.get()] { p->beat(); });
        auto options = c10d::ProcessGroupGloo::Options::create(kCollectiveTimeout);
        options->devices.push_back(std::move(device));
        options->threads = 1;  // collectives run one at a time; compute keeps the cores
        impl->group = c10::make_intrusive<c10d::ProcessGroupGloo>(
            c10::make_intrusive<c10d::PrefixStore>(impl->prefix() + "gloo", impl->store), env.rank, env.worldSize, options);
    } catch (const DistributedError&) {
        throw;
    } catch (const std::exception& e) {
        throw DistributedError("rank " + std::to_string(env.rank) + ": joining the group failed: " + textOf(e) +
                               (env.rank == 0 ? "" : " (when another rank failed to join, its message says why)"));
    }
    return std::unique_ptr<DataParallelGroup>(new DataParallelGroup(std::move(impl)));
}

DataParallelGroup::DataParallelGroup(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
DataParallelGroup::~DataParallelGroup() = default;

int DataParallelGroup::rank() const { return m_impl->env.rank; }
int DataParallelGroup::worldSize() const { return m_impl->env.worldSize; }
double DataParallelGroup::collectiveSeconds() const { return m_impl->collectiveSeconds; }

void DataParallelGroup::allReduceSum(float* values, int64_t count, const char* what) {
    m_impl->allReduce(torch::from_blob(values, {count}, torch::kFloat), what);
}

void DataParallelGroup::allReduceSum(double* values, int64_t count, const char* what) {
    m_impl->allReduce(torch::from_blob(values, {count}, torch::kDouble), what);
}

void DataParallelGroup::broadcast(std::string& bytes, const char* what) {
    int64_t length = static_cast<int64_t>(bytes.size());
    std::vector<at::Tensor> size{torch::from_blob(&length, {1}, torch::kLong)};
    m_impl->run(what, [&] { return m_impl->group->broadcast(size); });
    bytes.resize(static_cast<size_t>(length));
    if (length == 0) return;
    std::vector<at::Tensor> data{torch::from_blob(bytes.data(), {length}, torch::kUInt8)};
    m_impl->run(what, [&] { return m_impl->group->broadcast(data); });
}

bool DataParallelGroup::sameOnAllRanks(uint64_t value, const char* what) {
    // MAX over (v, -v) gives the largest and the smallest at once; halves keep -v in range.
    const auto high = static_cast<int64_t>(value >> 32), low = static_cast<int64_t>(value & 0xffffffffu);
    int64_t v[4] = {high, low, -high, -low};
    m_impl->allReduce(torch::from_blob(v, {4}, torch::kLong), what, c10d::ReduceOp::MAX);
    return v[0] == -v[2] && v[1] == -v[3];
}

void DataParallelGroup::barrier(const char* what) {
    m_impl->run(what, [&] { return m_impl->group->barrier(); });
}

void DataParallelGroup::reportFailure(const std::string& message) {
    try {
        m_impl->store->set(m_impl->key("failed", m_impl->env.rank), std::vector<uint8_t>(message.begin(), message.end()));
    } catch (const std::exception&) {
        // Best effort: the store may be what failed.
    }
}

bool distributedTrainingAvailable(std::string& why) {
    why.clear();
    return true;
}

}  // namespace tpg::nn
