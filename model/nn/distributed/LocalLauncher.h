#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tpg::nn {

// What `tpugraphs train --world-size N` starts on this machine, as torchrun --standalone would.
struct LocalLaunch {
    int workers = 2;
    std::string executable = "/proc/self/exe";
    std::vector<std::string> arguments;           // each worker's argv, argv[0] included
    std::function<void(const std::string&)> say;  // one line per event (started, failed)
};

// Runs `workers` copies of the executable with torchrun's variables set (RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR=127.0.0.1, MASTER_PORT = a free port) and waits for
// them. When one fails, or this process is asked to stop, the others get SIGTERM, then SIGKILL
// after a grace period; workers also die with this process. Throws std::runtime_error naming the
// worker that failed first.
void runLocalWorkers(const LocalLaunch& launch);

// This process's argv as the kernel has it (/proc/self/cmdline).
std::vector<std::string> thisProcessArguments();

// A TCP port on 127.0.0.1 free right now (the kernel's pick).
int freeLoopbackPort();

}  // namespace tpg::nn
