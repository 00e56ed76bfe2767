#include "WorkerEnvironment.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "io/Error.h"

namespace tpg::nn {

namespace {

int integerVariable(const EnvironmentLookup& lookup, const char* name, int fallback, int min, int max) {
    const char* text = lookup(name);
    if (!text || !*text) {
        if (fallback >= min) return fallback;
        throw FormatError(std::string("environment: RANK is set, so ") + name +
                          " must be too (torchrun sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT together)");
    }
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (*end != '\0' || v < min || v > max)
        throw FormatError(std::string("environment: ") + name + "='" + text + "': expected an integer in [" +
                          std::to_string(min) + ", " + std::to_string(max) + "]");
    return static_cast<int>(v);
}

}  // namespace

std::string WorkerEnvironment::describe() const {
    return "rank " + std::to_string(rank) + " of " + std::to_string(worldSize) + " (store at " + masterAddr + ":" +
           std::to_string(masterPort) + ")";
}

std::optional<WorkerEnvironment> workerEnvironment(const EnvironmentLookup& lookup) {
    const char* rank = lookup("RANK");
    if (!rank || !*rank) return std::nullopt;
    constexpr int kMaxWorkers = 1 << 16;  // far beyond any real run; catches garbage
    WorkerEnvironment e;
    e.worldSize = integerVariable(lookup, "WORLD_SIZE", -1, 1, kMaxWorkers);
    e.rank = integerVariable(lookup, "RANK", -1, 0, e.worldSize - 1);
    e.localRank = integerVariable(lookup, "LOCAL_RANK", 0, 0, kMaxWorkers);
    e.localWorldSize = integerVariable(lookup, "LOCAL_WORLD_SIZE", 1, 1, kMaxWorkers);
    e.masterPort = integerVariable(lookup, "MASTER_PORT", -1, 1, 65535);
    const char* addr = lookup("MASTER_ADDR");
    if (!addr || !*addr)
        throw FormatError("environment: RANK is set, so MASTER_ADDR must be too (the host of rank 0)");
    e.masterAddr = addr;
    const char* agent = lookup("TORCHELASTIC_USE_AGENT_STORE");
    e.agentStore = agent && std::string(agent) == "True";  // torch.distributed's own test
    e.attempt = integerVariable(lookup, "TORCHELASTIC_RESTART_COUNT", 0, 0, kMaxWorkers);
    return e;
}

std::optional<WorkerEnvironment> workerEnvironmentFromProcess() {
    return workerEnvironment([](const char* name) { return std::getenv(name); });
}

int workerThreads(int requested, const WorkerEnvironment& env) {
    if (requested > 0) return requested;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return std::max(1, cores / std::max(1, env.localWorldSize));
}

}  // namespace tpg::nn
