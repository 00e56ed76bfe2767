#pragma once

#include <string>

#include "CostModel.h"

namespace tpg::nn {

// The models shipped inside the binary (resources/models/, trained on the quality benchmark's
// training data by packaging/train-default-models.sh), so prediction works on first launch: one
// per collection, and per kind one trained on all its collections for a file outside the dataset
// tree, whose collection is unknown.
bool hasDefaultModel(Collection kind);
// The built-in model for files of `collection` ("layout:nlp:default", "tile:xla"; a kind's name,
// "layout", or "" for a file whose collection is unknown): that collection's own model when this
// build embeds one, else the kind's general one. Throws FormatError when the kind has none (a
// build made before the models existed).
CostModel defaultModel(Collection kind, const std::string& collection = {});
// The built-in model for the file at `path`, chosen by builtInModelCollection.
CostModel defaultModelForFile(const std::string& path, Collection kind,
                              const std::string& recorded = {});
// What defaultModel(kind, collection) would be called, without loading it.
std::string defaultModelLabel(Collection kind, const std::string& collection = {});
// The collection a file of `kind` at `path` counts as for choosing a built-in model: its place in
// the dataset tree, else the collection it records (`recorded`: TpuGraph::searchCollection, as a
// What-if export has it), else (a loose file) the kind's name.
std::string builtInModelCollection(const std::string& path, Collection kind,
                                   const std::string& recorded = {});

}  // namespace tpg::nn
