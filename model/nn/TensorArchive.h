#pragma once

#include <cstdint>
#include <string>
#include <vector>

// A model file's weights in our own format: named float32 tensors and a CRC-32, read with every
// length checked against the bytes present. LibTorch's own archive is a TorchScript module that
// its script parser compiles on load: a damaged or edited one crashed it, and its code ties a file
// to LibTorch's version. Files from before (LibTorch archives) are still read, by our own reader
// (TorchArchiveReader.h).
namespace tpg::nn {

struct NamedTensor {
    std::string name;  // the module's parameter name, e.g. "layers.0.self.weight"
    std::vector<int64_t> shape;
    std::vector<float> values;  // row-major, the product of `shape` long
};

constexpr const char* kTensorArchiveMagic = "TPUGRAPHS-TENSORS 1\n";

bool isTensorArchive(const std::string& bytes);
std::string encodeTensorArchive(const std::vector<NamedTensor>& tensors);
// Throws FormatError(label, key, what is wrong) for a damaged, truncated or implausible archive.
std::vector<NamedTensor> decodeTensorArchive(const std::string& bytes, const std::string& label,
                                             const std::string& key);

}  // namespace tpg::nn
