#include "LocalLauncher.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace tpg::nn {

namespace {

using Clock = std::chrono::steady_clock;
// How often the launcher looks at its workers (and at a stop request).
constexpr auto kPollInterval = std::chrono::milliseconds(50);
// After SIGTERM, workers get this long to leave before SIGKILL.
constexpr auto kStopGrace = std::chrono::seconds(5);

volatile sig_atomic_t g_stopSignal = 0;

void onStopSignal(int signal) { g_stopSignal = signal; }

// Owns the strings behind an execve() argument or environment array.
struct CStrings {
    std::vector<std::string> strings;
    std::vector<char*> pointers;
    char** array() {
        pointers.clear();
        for (auto& s : strings) pointers.push_back(s.data());
        pointers.push_back(nullptr);
        return pointers.data();
    }
};

CStrings workerEnvironment(const LocalLaunch& launch, int rank, int port) {
    static const char* const kOurs[] = {"RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "LOCAL_WORLD_SIZE=", "MASTER_ADDR=",
                                        "MASTER_PORT="};
    CStrings env;
    for (char** e = environ; *e; ++e) {
        bool ours = false;
        for (const char* prefix : kOurs) ours = ours || std::strncmp(*e, prefix, std::strlen(prefix)) == 0;
        if (!ours) env.strings.emplace_back(*e);
    }
    const std::string n = std::to_string(launch.workers), r = std::to_string(rank);
    for (const std::string& s : {"RANK=" + r, "WORLD_SIZE=" + n, "LOCAL_RANK=" + r, "LOCAL_WORLD_SIZE=" + n,
                                 std::string("MASTER_ADDR=127.0.0.1"), "MASTER_PORT=" + std::to_string(port)})
        env.strings.push_back(s);
    return env;
}

pid_t startWorker(const LocalLaunch& launch, int rank, int port) {
    CStrings argv{launch.arguments, {}}, env = workerEnvironment(launch, rank, port);
    char** argvArray = argv.array();
    char** envArray = env.array();
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("cannot start a worker: ") + std::strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);  // a launcher killed outright takes its workers along
        if (getppid() != parent) _exit(1);
        execve(launch.executable.c_str(), argvArray, envArray);
        _exit(127);
    }
    return pid;
}

std::string describeExit(int status) {
    if (WIFSIGNALED(status))
        return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return "could not be started (exit status 127)";
    return "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// Workers still running, by rank (0 once reaped).
class WorkerSet {
public:
    explicit WorkerSet(std::vector<pid_t> pids) : m_pids(std::move(pids)) {}

    bool anyAlive() const {
        for (pid_t p : m_pids)
            if (p > 0) return true;
        return false;
    }
    void signalAll(int signal) const {
        for (pid_t p : m_pids)
            if (p > 0) kill(p, signal);
    }
    // Reaps one exited worker: its rank and status, or nullopt when none has exited.
    std::optional<std::pair<int, int>> reap() {
        int status = 0;
        const pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) return std::nullopt;
        for (size_t r = 0; r < m_pids.size(); ++r)
            if (m_pids[r] == pid) {
                m_pids[r] = 0;
                return std::make_pair(static_cast<int>(r), status);
            }
        return std::nullopt;
    }
    pid_t pid(int rank) const { return m_pids[static_cast<size_t>(rank)]; }

private:
    std::vector<pid_t> m_pids;
};

}  // namespace

std::vector<std::string> thisProcessArguments() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    for (size_t start = 0; start < all.size();) {
        const size_t end = all.find('\0', start);
        args.push_back(all.substr(start, end - start));
        start = end == std::string::npos ? all.size() : end + 1;
    }
    return args;
}

int freeLoopbackPort() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    if (fd >= 0) close(fd);
    if (port == 0) throw std::runtime_error(std::string("no free TCP port on 127.0.0.1: ") + std::strerror(errno));
    return port;
}

void runLocalWorkers(const LocalLaunch& launch) {
    g_stopSignal = 0;
    const int port = freeLoopbackPort();
    struct sigaction stop {};
    stop.sa_handler = onStopSignal;
    struct sigaction oldInt {}, oldTerm {};
    sigaction(SIGINT, &stop, &oldInt);
    sigaction(SIGTERM, &stop, &oldTerm);
    std::vector<pid_t> pids;
    std::string started;
    for (int r = 0; r < launch.workers; ++r) {
        pids.push_back(startWorker(launch, r, port));
        started += (r ? ", rank " : "rank ") + std::to_string(r) + " pid " + std::to_string(pids.back());
    }
    WorkerSet workers(std::move(pids));
    if (launch.say)
        launch.say("started " + std::to_string(launch.workers) + " workers on 127.0.0.1:" + std::to_string(port) +
                   ": " + started);
    std::string failure;
    std::optional<Clock::time_point> killAt;
    while (workers.anyAlive()) {
        if (auto exited = workers.reap()) {
            const auto [rank, status] = *exited;
            const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            if (!ok && failure.empty() && !killAt) {
                failure = "worker rank " + std::to_string(rank) + " " + describeExit(status);
                if (launch.say) launch.say(failure + "; stopping the other workers");
            }
            if (!ok && !killAt) {
                workers.signalAll(SIGTERM);
                killAt = Clock::now() + kStopGrace;
            }
            continue;
        }
        if (g_stopSignal && !killAt) {
            failure = std::string("stopped by ") + strsignal(g_stopSignal);
            workers.signalAll(SIGTERM);
            killAt = Clock::now() + kStopGrace;
        }
        if (killAt && Clock::now() >= *killAt) workers.signalAll(SIGKILL);
        std::this_thread::sleep_for(kPollInterval);
    }
    sigaction(SIGINT, &oldInt, nullptr);
    sigaction(SIGTERM, &oldTerm, nullptr);
    if (!failure.empty()) throw std::runtime_error(failure);
}

}  // namespace tpg::nn
