// Built instead of DataParallelGroup.cpp when LibTorch lacks c10d/Gloo or Gloo's headers are
// missing: the rest of the program works, and asking for workers says what to install.
#include "DataParallelGroup.h"

namespace tpg::nn {

struct DataParallelGroup::Impl {};

namespace {
const char* const kWhy = "this build has no data-parallel training: " TPG_DISTRIBUTED_MISSING
                         " (install libgloo-dev with packaging/install-deps.sh and rebuild)";
}

std::unique_ptr<DataParallelGroup> DataParallelGroup::join(const WorkerEnvironment&, std::chrono::seconds) {
    throw DistributedError(kWhy);
}

DataParallelGroup::DataParallelGroup(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
DataParallelGroup::~DataParallelGroup() = default;
int DataParallelGroup::rank() const { return 0; }
int DataParallelGroup::worldSize() const { return 1; }
double DataParallelGroup::collectiveSeconds() const { return 0; }
void DataParallelGroup::allReduceSum(float*, int64_t, const char*) {}
void DataParallelGroup::allReduceSum(double*, int64_t, const char*) {}
void DataParallelGroup::broadcast(std::string&, const char*) {}
bool DataParallelGroup::sameOnAllRanks(uint64_t, const char*) { return true; }
void DataParallelGroup::barrier(const char*) {}
void DataParallelGroup::reportFailure(const std::string&) {}

bool distributedTrainingAvailable(std::string& why) {
    why = kWhy;
    return false;
}

}  // namespace tpg::nn
