#pragma once

#include <functional>
#include <optional>
#include <string>

namespace tpg::nn {

// Where this process stands in a data-parallel run, as torchrun describes it in the environment:
// RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, and for its agent's
// store TORCHELASTIC_USE_AGENT_STORE and TORCHELASTIC_RESTART_COUNT.
struct WorkerEnvironment {
    int rank = 0;
    int worldSize = 1;
    int localRank = 0;
    int localWorldSize = 1;  // workers on this machine (they share its cores)
    std::string masterAddr = "127.0.0.1";
    int masterPort = 0;
    // torchrun's static rendezvous (its default) already hosts the store at MASTER_ADDR:PORT
    // (TORCHELASTIC_USE_AGENT_STORE=True): rank 0 then joins it instead of hosting one.
    bool agentStore = false;
    int attempt = 0;  // TORCHELASTIC_RESTART_COUNT: a restarted attempt's keys must not meet the last's
    std::string describe() const;  // "rank 1 of 2 (store at 127.0.0.1:29500)"
};

using EnvironmentLookup = std::function<const char*(const char*)>;

// nullopt when RANK is unset (not a worker). Throws FormatError naming the variable for a missing
// or malformed one (WORLD_SIZE, MASTER_PORT, ...) or a rank outside the world.
std::optional<WorkerEnvironment> workerEnvironment(const EnvironmentLookup& lookup);
std::optional<WorkerEnvironment> workerEnvironmentFromProcess();

// Intra-op threads for a worker: `requested` when given, else this machine's cores shared among
// the workers on it (at least one).
int workerThreads(int requested, const WorkerEnvironment& env);

}  // namespace tpg::nn
