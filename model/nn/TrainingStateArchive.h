#pragma once

// Internal to tpgnn (includes torch): the tensors of a training state (`.state` files and the
// start state rank 0 broadcasts), in our TensorArchive. States written before 2026-11-28 hold
// LibTorch's archive, whose reader a state edited with valid CRCs crashed (a segmentation fault
// in `train --resume`); TorchArchiveReader reads them, and loadTrainingTensors takes them.
#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "TensorArchive.h"

namespace tpg::nn {

// Tensors named "model/<parameter or buffer>", "adam/<i>/exp_avg" and "adam/<i>/exp_avg_sq" (i:
// the parameter's index in the optimiser, only for parameters Adam has stepped) and
// "average/<i>". Adam's step counts go to `adamSteps` (0: not stepped), for the state's JSON: a
// float holds counts exactly only up to 2^24.
std::string encodeTrainingState(torch::nn::Module& module, const torch::optim::Adam& optimizer,
                                const std::vector<torch::Tensor>& average,
                                std::vector<int64_t>& adamSteps);

// Checks the whole state first (every tensor present with its shape and finite, second moments
// not negative, a moment pair exactly for each stepped parameter, nothing left over), then
// replaces the module's weights, Adam's state and `average` (empty when the state has none).
// Throws FormatError(label, "weights" or "adam_steps", what is wrong) and then changes nothing.
void loadTrainingState(const std::string& bytes, const std::vector<int64_t>& adamSteps,
                       const std::string& label, torch::nn::Module& module,
                       torch::optim::Adam& optimizer, std::vector<torch::Tensor>& average);
// The same from tensors already read, by their names above.
void loadTrainingTensors(std::map<std::string, NamedTensor> stored,
                         const std::vector<int64_t>& adamSteps, const std::string& label,
                         torch::nn::Module& module, torch::optim::Adam& optimizer,
                         std::vector<torch::Tensor>& average);

}  // namespace tpg::nn
