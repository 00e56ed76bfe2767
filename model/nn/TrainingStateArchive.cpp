#include "TrainingStateArchive.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "CostModelImpl.h"
#include "TensorArchive.h"
#include "io/Error.h"

namespace tpg::nn {

namespace {

using StoredTensors = std::map<std::string, NamedTensor>;

// The optimiser's parameters in order, over its groups: the i of "adam/<i>/...".
std::vector<torch::Tensor> optimiserParameters(const torch::optim::Adam& optimizer) {
    std::vector<torch::Tensor> params;
    for (const auto& group : optimizer.param_groups())
        params.insert(params.end(), group.params().begin(), group.params().end());
    return params;
}

// Adam keys its state by the parameter's TensorImpl address (torch/optim/serialize.h).
std::string adamKey(const torch::Tensor& parameter) {
    return c10::guts::to_string(parameter.unsafeGetTensorImpl());
}

std::string adamName(size_t i, const char* moment) {
    return "adam/" + std::to_string(i) + "/" + moment;
}

// Every tensor of a state, model, moments and average alike, holds finite values.
void requireFinite(const StoredTensors& stored, const std::string& label) {
    for (const auto& [name, t] : stored)
        if (!std::all_of(t.values.begin(), t.values.end(),
                         [](float v) { return std::isfinite(v); }))
            throwFormatError(label, "weights",
                             "tensor '" + name + "' holds NaN or infinite values");
}

// The tensor stored as `name`, which must have `shape`; moves it out of `stored`, so what is
// left at the end belongs to nothing.
torch::Tensor takeTensor(StoredTensors& stored, const std::string& name, c10::IntArrayRef shape,
                         const std::string& label) {
    const auto it = stored.find(name);
    if (it == stored.end()) throwFormatError(label, "weights", "tensor '" + name + "' is missing");
    if (it->second.shape != shape.vec())
        throwFormatError(label, "weights",
                         "tensor '" + name + "' has shape " +
                             c10::str(c10::IntArrayRef(it->second.shape)) + " (expected " +
                             c10::str(shape) + ")");
    torch::Tensor t =
        torch::from_blob(it->second.values.data(), it->second.shape, torch::kFloat).clone();
    stored.erase(it);
    return t;
}

// Adam's state per parameter, checked, before anything is replaced.
std::vector<std::unique_ptr<torch::optim::AdamParamState>> takeAdamState(
    StoredTensors& stored, const std::vector<int64_t>& steps,
    const std::vector<torch::Tensor>& params, const std::string& label) {
    if (steps.size() != params.size())
        throwFormatError(label, "adam_steps",
                         "holds " + std::to_string(steps.size()) +
                             " step counts for the network's " + std::to_string(params.size()) +
                             " parameters");
    std::vector<std::unique_ptr<torch::optim::AdamParamState>> states(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
        if (steps[i] < 0)
            throwFormatError(label, "adam_steps",
                             "count " + std::to_string(i) + " is " + std::to_string(steps[i]) +
                                 " (expected 0 or more)");
        if (steps[i] == 0) continue;  // never stepped: no moments (any stored are left over)
        auto s = std::make_unique<torch::optim::AdamParamState>();
        s->step(steps[i]);
        s->exp_avg(takeTensor(stored, adamName(i, "exp_avg"), params[i].sizes(), label));
        s->exp_avg_sq(takeTensor(stored, adamName(i, "exp_avg_sq"), params[i].sizes(), label));
        if (s->exp_avg_sq().min().item<float>() < 0)
            throwFormatError(label, "weights",
                             "tensor '" + adamName(i, "exp_avg_sq") +
                                 "' holds a negative value (a mean of squares cannot be negative)");
        states[i] = std::move(s);
    }
    return states;
}

// The weights' running average: none, or one tensor per parameter.
std::vector<torch::Tensor> takeAverage(StoredTensors& stored,
                                       const std::vector<torch::Tensor>& params,
                                       const std::string& label) {
    std::vector<torch::Tensor> average;
    if (stored.count("average/0") == 0) return average;
    for (size_t i = 0; i < params.size(); ++i)
        average.push_back(
            takeTensor(stored, "average/" + std::to_string(i), params[i].sizes(), label));
    return average;
}

}  // namespace

std::string encodeTrainingState(torch::nn::Module& module, const torch::optim::Adam& optimizer,
                                const std::vector<torch::Tensor>& average,
                                std::vector<int64_t>& adamSteps) {
    std::vector<NamedTensor> tensors = namedTensorsOf(module, "model/");
    const std::vector<torch::Tensor> params = optimiserParameters(optimizer);
    adamSteps.assign(params.size(), 0);
    for (size_t i = 0; i < params.size(); ++i) {
        const auto it = optimizer.state().find(adamKey(params[i]));
        if (it == optimizer.state().end()) continue;
        const auto& s = static_cast<const torch::optim::AdamParamState&>(*it->second);
        adamSteps[i] = s.step();
        tensors.push_back(namedTensorOf(adamName(i, "exp_avg"), s.exp_avg()));
        tensors.push_back(namedTensorOf(adamName(i, "exp_avg_sq"), s.exp_avg_sq()));
    }
    for (size_t i = 0; i < average.size(); ++i)
        tensors.push_back(namedTensorOf("average/" + std::to_string(i), average[i]));
    return encodeTensorArchive(tensors);
}

void loadTrainingState(const std::string& bytes, const std::vector<int64_t>& adamSteps,
                       const std::string& label, torch::nn::Module& module,
                       torch::optim::Adam& optimizer, std::vector<torch::Tensor>& average) {
    StoredTensors stored;
    for (NamedTensor& t : decodeTensorArchive(bytes, label, "weights"))
        stored.emplace(t.name, std::move(t));
    loadTrainingTensors(std::move(stored), adamSteps, label, module, optimizer, average);
}

void loadTrainingTensors(StoredTensors stored, const std::vector<int64_t>& adamSteps,
                         const std::string& label, torch::nn::Module& module,
                         torch::optim::Adam& optimizer, std::vector<torch::Tensor>& average) {
    requireFinite(stored, label);
    requireNamedTensors(module, stored, "model/", label);
    StoredTensors modelTensors;  // apart, so that what stays in `stored` belongs to nothing
    for (const auto& [name, unused] : namedState(module))
        modelTensors.insert(stored.extract("model/" + name));
    const std::vector<torch::Tensor> params = optimiserParameters(optimizer);
    auto adam = takeAdamState(stored, adamSteps, params, label);
    std::vector<torch::Tensor> newAverage = takeAverage(stored, params, label);
    if (!stored.empty())
        throwFormatError(
            label, "weights",
            "tensor '" + stored.begin()->first + "' belongs to no part of a training state");

    loadNamedTensors(module, modelTensors, "model/");
    optimizer.state().clear();
    for (size_t i = 0; i < params.size(); ++i)
        if (adam[i]) optimizer.state()[adamKey(params[i])] = std::move(adam[i]);
    average = std::move(newAverage);
}

}  // namespace tpg::nn
