#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "TensorArchive.h"

namespace tpg::nn {

// What a LibTorch archive (torch::serialize::OutputArchive: a zip holding a TorchScript module)
// of this project's older files held: model files of format 1 and training states written before
// TrainingStateArchive. Read without LibTorch, whose reader checks no CRC, compiles the archive's
// script and trusts its tensor sizes: a damaged file loaded wrong weights, and one edited with
// valid CRCs crashed it (a storage shorter than its tensor: a segmentation fault).
struct TorchArchiveContents {
    // By attribute path from the top module, dot-joined as Module::named_parameters names them:
    // "layers.0.update.weight", in a state "model.layers.0.update.weight",
    // "optimizer.state.0x55d0c1f2a8b0.exp_avg", "average.3". Values converted to float.
    std::map<std::string, NamedTensor> tensors;
    std::map<std::string, int64_t> integers;  // e.g. Adam's "optimizer.state.<id>.step"
    std::map<std::string, std::string>
        strings;  // e.g. "optimizer.param_groups.param_groups/0.params/0"
};

// The entries a module's archive is read from: data.pkl and the tensors' storages (data/<key>).
struct TorchArchiveEntries {
    std::string folder;  // the archive's one top folder, for messages
    std::string pickle;
    std::map<std::string, std::string> storages;  // by key
};

// Checks every entry's CRC-32, the archive's consistency, its layout (one top folder holding
// data.pkl) and unpacked size (limits::kMaxWeightsArchiveBytes), then reads data.pkl with a pickle
// reader that knows only what LibTorch writes for modules (any other opcode or callable is
// refused), each tensor's storage checked to be exactly as long as the pickle says and to hold
// every element of the tensor's sizes and strides. Throws FormatError(label, key, what is wrong),
// naming the entry or tensor.
TorchArchiveContents readTorchArchive(const std::string& bytes, const std::string& label,
                                      const std::string& key);

// readTorchArchive's second half, the entries already unpacked: data.pkl at most
// limits::kMaxTorchPickleBytes, then read as above (the fuzz harness feeds pickles here, unzipped).
TorchArchiveContents readTorchPickle(const TorchArchiveEntries& entries, const std::string& label,
                                     const std::string& key);

}  // namespace tpg::nn
