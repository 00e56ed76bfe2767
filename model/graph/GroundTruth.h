#pragma once

// The ground-truth runtimes of a test-split file, where a dataset ships them beside its files
// (the synthetic generator writes OUT/ground_truth/<collection path>/test/NAME.config_runtime.npy,
// and NAME.config_runtime_normalizers.npy for tile files): a test file then shows measured
// runtimes instead of "unknown".
#include <string>

#include "graph/GraphFile.h"
#include "graph/TpuGraph.h"

namespace tpg {

// Where the ground truth of `npzPath` would be: ".../ground_truth/<rel>/NAME.config_runtime.npy"
// for ".../npz/<rel>/NAME.npz"; "" when the path is not in a dataset tree.
std::string groundTruthPath(const std::string& npzPath);

// `graph` with the ground-truth runtimes attached (and its path as their runtimeSource) when its
// runtimes are unknown and the ground truth exists and fits (one float per configuration); `graph`
// itself otherwise. A ground truth that exists but does not fit adds a warning saying why. Throws
// nothing.
TpuGraph withGroundTruth(const TpuGraph& graph, const std::string& npzPath);

// loadTpuGraph, then withGroundTruth: how the explorer and the commands load a file they are given.
TpuGraph loadWithGroundTruth(const std::string& path, const LoadOptions& options = {});

}  // namespace tpg
