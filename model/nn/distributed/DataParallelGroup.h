#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "WorkerEnvironment.h"

namespace tpg::nn {

// A collective failed or the group could not form; the message names the rank(s) at fault when
// they can be told (a worker that stopped, one that never joined, an unreachable rank 0).
struct DistributedError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The processes of a data-parallel training run, joined through PyTorch's c10d: a TCPStore hosted
// by rank 0 for rendezvous and a Gloo process group for the collectives. The header is torch-free;
// collectives work on plain buffers. Every call is collective: each rank makes the same calls in
// the same order. Failures throw DistributedError.
class DataParallelGroup {
public:
    // Joins the group `env` describes: every rank announces itself in rank 0's store and waits up
    // to `joinTimeout` for the rest, naming those that never came.
    static std::unique_ptr<DataParallelGroup> join(const WorkerEnvironment& env, std::chrono::seconds joinTimeout);
    ~DataParallelGroup();
    DataParallelGroup(const DataParallelGroup&) = delete;
    DataParallelGroup& operator=(const DataParallelGroup&) = delete;

    int rank() const;
    int worldSize() const;

    // In place: every rank ends with the element-wise sum (Gloo has no average: divide after).
    void allReduceSum(float* values, int64_t count, const char* what);
    void allReduceSum(double* values, int64_t count, const char* what);
    // Rank 0's bytes on every rank.
    void broadcast(std::string& bytes, const char* what);
    // Whether every rank passed the same value (e.g. a hash of the weights).
    bool sameOnAllRanks(uint64_t value, const char* what);
    // Waits for every rank (before rank 0, which hosts the store, may exit).
    void barrier(const char* what);
    // Best effort, before a failing rank exits: the others quote `message` in their error.
    void reportFailure(const std::string& message);
    // Seconds spent inside collectives so far (their share of a step is the price of scaling).
    double collectiveSeconds() const;

    struct Impl;

private:
    explicit DataParallelGroup(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

// False, with the reason, when this build has no c10d/Gloo (then join() throws it).
bool distributedTrainingAvailable(std::string& why);

}  // namespace tpg::nn
