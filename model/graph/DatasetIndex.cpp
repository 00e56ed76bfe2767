#include "graph/DatasetIndex.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <system_error>

#include "graph/GraphFile.h"
#include "io/Error.h"
#include "io/NpzArchive.h"

namespace fs = std::filesystem;

namespace tpg {

namespace {

bool isSplit(const std::string& s) { return s == "train" || s == "valid" || s == "test"; }

}  // namespace

bool placeByPath(const std::filesystem::path& p, DatasetFile& f) {
    std::vector<std::string> parts;
    for (const auto& c : p.parent_path()) parts.push_back(c.string());
    const size_t n = parts.size();
    if (n >= 3 && parts[n - 3] == "tile" && parts[n - 2] == "xla" && isSplit(parts[n - 1])) {
        f.kind = Collection::Tile;
        f.source = "xla";
        f.split = parts[n - 1];
        f.collection = "tile:xla";
        return true;
    }
    if (n >= 4 && parts[n - 4] == "layout" && (parts[n - 3] == "xla" || parts[n - 3] == "nlp") &&
        (parts[n - 2] == "random" || parts[n - 2] == "default") && isSplit(parts[n - 1])) {
        f.kind = Collection::Layout;
        f.source = parts[n - 3];
        f.search = parts[n - 2];
        f.split = parts[n - 1];
        f.collection = "layout:" + f.source + ":" + f.search;
        return true;
    }
    return false;
}

std::string noFilesMessage(const std::string& dir, const std::string& collection,
                           const std::string& split, const std::vector<DatasetFile>& found) {
    std::map<std::string, int> counts;
    bool loose = found.empty();
    for (const auto& f : found) {
        counts[f.collection + (f.split.empty() ? "" : " " + f.split)]++;
        loose = loose || f.split.empty();
    }
    std::string held;
    for (const auto& [k, n] : counts)
        held += (held.empty() ? "" : ", ") + k + " (" + std::to_string(n) + ")";
    std::string text = dir + ": no " + split + " files for collection '" + collection +
                       "' (found: " + (held.empty() ? "no .npz files" : held) + ")";
    if (loose) {
        std::string path = collection;
        std::replace(path.begin(), path.end(), ':', '/');
        text += "; a collection's files go in npz/" + path + "/" + split +
                "/NAME.npz, as tpugraphs synth writes them";
    }
    return text;
}

int splitOrder(const std::string& split) {
    static const std::array<std::string, 3> kOrder{"train", "valid", "test"};
    return static_cast<int>(std::find(kOrder.begin(), kOrder.end(), split) - kOrder.begin());
}

GraphCounts readGraphCounts(const std::string& path) {
    NpzArchive archive(path);
    const NpyHeader nodes = archive.header("node_feat");
    const NpyHeader runtimes = archive.header("config_runtime");
    return {nodes.shape.empty() ? 0 : nodes.shape[0],
            runtimes.shape.empty() ? 0 : runtimes.shape[0]};
}

const std::vector<std::string>& knownCollections() {
    static const std::vector<std::string> c = {"layout:nlp:default", "layout:nlp:random", "layout:xla:default",
                                               "layout:xla:random", "tile:xla"};
    return c;
}

DatasetFile describeFile(const std::string& path) {
    DatasetFile f;
    f.path = path;
    f.name = fs::path(path).stem().string();
    if (!placeByPath(fs::path(path), f)) {
        try {
            f.kind = detectCollection(f.path);
            f.collection = collectionName(f.kind);
        } catch (const FormatError& e) {
            f.error = e.what();
            f.collection = "unreadable";
        }
    }
    return f;
}

std::vector<DatasetFile> scanDataset(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throwFormatError(dir, "", "not a folder");
    std::vector<DatasetFile> out;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) throwFormatError(dir, "", "cannot read folder: " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec) break;
        if (!it->is_regular_file(ec) || it->path().extension() != ".npz") continue;
        out.push_back(describeFile(it->path().string()));
    }
    std::sort(out.begin(), out.end(), [](const DatasetFile& a, const DatasetFile& b) {
        return std::tie(a.collection, a.split, a.name) < std::tie(b.collection, b.split, b.name);
    });
    return out;
}

std::vector<DatasetFile> selectFiles(const std::vector<DatasetFile>& files, const std::string& collection,
                                     const std::string& split) {
    std::vector<DatasetFile> out;
    for (const auto& f : files)
        if ((collection.empty() || f.collection == collection) && (split.empty() || f.split == split)) out.push_back(f);
    return out;
}

}  // namespace tpg
