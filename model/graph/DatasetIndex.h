#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg {

// One .npz found under a dataset folder, placed in the real dataset's tree:
// npz/tile/xla/{train,valid,test}/NAME.npz or npz/layout/{xla,nlp}/{default,random}/{split}/NAME.npz.
struct DatasetFile {
    std::string path;
    std::string name;        // file stem
    Collection kind = Collection::Layout;
    std::string source;      // "xla" / "nlp"; "" for a loose file
    std::string search;      // "random" / "default" for layout; "" otherwise
    std::string split;       // "train" / "valid" / "test"; "" for a loose file
    std::string collection;  // "tile:xla", "layout:nlp:random", or "tile" / "layout" when loose
    std::string error;       // set when a loose file's kind could not be read

    // The competition's ID: tile:xla:NAME or layout:SRC:SEARCH:NAME.
    std::string competitionId() const { return collection + ":" + name; }
};

// Places a file by the last components of its path when they follow the real tree (no I/O).
bool placeByPath(const std::filesystem::path& path, DatasetFile& file);

// One file, placed by its path in the real tree or else by its keys; `error` says when neither
// works.
DatasetFile describeFile(const std::string& path);

// Every .npz below `dir`, sorted by collection, split and name. Files in the real tree are placed
// by their path; loose ones by their keys (cheap: only the zip directory is read).
std::vector<DatasetFile> scanDataset(const std::string& dir);

// Keeps the files of `collection` ("layout:xla:random", "tile:xla", ...; "" keeps all) and
// `split` ("" keeps all).
std::vector<DatasetFile> selectFiles(const std::vector<DatasetFile>& files, const std::string& collection,
                                     const std::string& split);

// The collections the real dataset has, in the competition's order.
const std::vector<std::string>& knownCollections();

// Why `dir` gave no `split` files of `collection`: what it holds instead ("found: layout (2),
// tile:xla valid (1)") and, when it holds loose files or none, where a collection's files go.
std::string noFilesMessage(const std::string& dir, const std::string& collection,
                           const std::string& split, const std::vector<DatasetFile>& found);

// A split's place in the dataset's own order: train 0, valid 1, test 2, anything else 3.
int splitOrder(const std::string& split);

// A graph's size from its arrays' headers alone (no data read). Throws FormatError.
struct GraphCounts {
    int64_t nodes = 0;
    int64_t configs = 0;
};
GraphCounts readGraphCounts(const std::string& path);

}  // namespace tpg
