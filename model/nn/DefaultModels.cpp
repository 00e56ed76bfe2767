#include "DefaultModels.h"

#include "io/Error.h"

namespace tpg::nn {

namespace embedded {
extern const unsigned char k_layout[];
extern const unsigned long k_layout_size;
extern const unsigned char k_tile[];
extern const unsigned long k_tile_size;
}  // namespace embedded

namespace {
std::string bytesOf(Collection kind) {
    const unsigned char* p = kind == Collection::Layout ? embedded::k_layout : embedded::k_tile;
    const unsigned long n =
        kind == Collection::Layout ? embedded::k_layout_size : embedded::k_tile_size;
    return std::string(reinterpret_cast<const char*>(p), n);
}
}  // namespace

bool hasDefaultModel(Collection kind) {
    return (kind == Collection::Layout ? embedded::k_layout_size : embedded::k_tile_size) > 0;
}

CostModel defaultModel(Collection kind) {
    const std::string label = std::string("built-in ") + collectionName(kind) + " model";
    if (!hasDefaultModel(kind))
        throw FormatError(
            label +
            ": not embedded in this build (run packaging/train-default-models.sh and rebuild)");
    return CostModel::fromBytes(bytesOf(kind), label);
}

}  // namespace tpg::nn
