#include "DefaultModels.h"

#include <filesystem>

#include "EmbeddedModels.h"  // generated from model/nn/CMakeLists.txt's list of model files
#include "graph/DatasetIndex.h"
#include "io/Error.h"

namespace tpg::nn {

namespace {

struct EmbeddedModel {
    Collection kind;
    const char* collection;  // the kind's name for the general model
    const unsigned char* bytes;
    const unsigned long& size;  // a reference: the sizes are initialised in another unit
};

// The general model of each kind first, so a lookup falls back to it.
const EmbeddedModel k_models[] = {
    {Collection::Layout, "layout", embedded::k_layout_all, embedded::k_layout_all_size},
    {Collection::Layout, "layout:xla:random", embedded::k_layout_xla_random,
     embedded::k_layout_xla_random_size},
    {Collection::Layout, "layout:xla:default", embedded::k_layout_xla_default,
     embedded::k_layout_xla_default_size},
    {Collection::Layout, "layout:nlp:random", embedded::k_layout_nlp_random,
     embedded::k_layout_nlp_random_size},
    {Collection::Layout, "layout:nlp:default", embedded::k_layout_nlp_default,
     embedded::k_layout_nlp_default_size},
    {Collection::Tile, "tile", embedded::k_tile_xla, embedded::k_tile_xla_size},
    {Collection::Tile, "tile:xla", embedded::k_tile_xla, embedded::k_tile_xla_size},
};

// The embedded model for `collection`, else the kind's general one; null when neither is embedded.
const EmbeddedModel* find(Collection kind, const std::string& collection) {
    const EmbeddedModel* general = nullptr;
    for (const EmbeddedModel& m : k_models) {
        if (m.kind != kind || m.size == 0) continue;
        if (collection == m.collection) return &m;
        if (!general && std::string(m.collection) == collectionName(kind)) general = &m;
    }
    return general;
}

std::string labelOf(Collection kind, const EmbeddedModel* m) {
    return std::string("built-in ") + (m ? m->collection : collectionName(kind)) + " model";
}

}  // namespace

bool hasDefaultModel(Collection kind) {
    return find(kind, collectionName(kind)) != nullptr;
}

std::string defaultModelLabel(Collection kind, const std::string& collection) {
    return labelOf(kind, find(kind, collection));
}

CostModel defaultModel(Collection kind, const std::string& collection) {
    const EmbeddedModel* m = find(kind, collection);
    if (!m)
        throw FormatError(
            labelOf(kind, m) +
            ": not embedded in this build (run packaging/train-default-models.sh and rebuild)");
    return CostModel::fromBytes(std::string(reinterpret_cast<const char*>(m->bytes), m->size),
                                labelOf(kind, m));
}

std::string builtInModelCollection(const std::string& path, Collection kind,
                                   const std::string& recorded) {
    DatasetFile f;
    if (placeByPath(std::filesystem::path(path), f)) return f.collection;
    return recorded.empty() ? std::string(collectionName(kind)) : recorded;
}

CostModel defaultModelForFile(const std::string& path, Collection kind,
                              const std::string& recorded) {
    return defaultModel(kind, builtInModelCollection(path, kind, recorded));
}

}  // namespace tpg::nn
