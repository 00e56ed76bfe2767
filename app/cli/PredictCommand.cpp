#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>

#include "Commands.h"
#include "CostModel.h"
#include "DefaultModels.h"
#include "Evaluation.h"
#include "FileScoring.h"
#include "LearnCommands.h"
#include "NnLimits.h"
#include "NumberText.h"
#include "ProgressBar.h"
#include "graph/DatasetIndex.h"
#include "graph/GraphFile.h"
#include "io/Error.h"
#include "io/ReplacingFile.h"
#include "metrics/Metrics.h"

namespace tpg::cli {

namespace fs = std::filesystem;

namespace {

struct PredictOptions {
    std::vector<std::string> models;
    std::string layoutModel, tileModel;
    std::string data;
    std::string out;
    std::string split = "test";
    std::string collection;
    std::string programTies = "on";
    int threads = 0;
};

// The files to predict: a folder's files of the split (loose files always), or one file.
std::vector<DatasetFile> inputFiles(const PredictOptions& o) {
    std::error_code ec;
    if (fs::is_regular_file(o.data, ec)) {
        const fs::path p = fs::absolute(o.data);
        for (const auto& f : scanDataset(p.parent_path().string()))
            if (fs::equivalent(f.path, p, ec)) return {f};
        throw FormatError(o.data + ": not a .npz file");
    }
    if (!fs::is_directory(o.data, ec)) throw FormatError(o.data + ": no such file or folder");
    std::vector<DatasetFile> out;
    for (const auto& f : scanDataset(o.data)) {
        if (!f.split.empty() && f.split != o.split) continue;
        if (!o.collection.empty() && nn::selectCollection({f}, o.collection, "").empty()) continue;
        out.push_back(f);
    }
    if (out.empty())
        throw FormatError(o.data + ": no .npz files" +
                          (o.collection.empty() ? "" : " of " + o.collection) + " in the " +
                          o.split + " split (or loose)");
    return out;
}

// The collection whose built-in model scores `f` (nn::builtInModelCollection). Only a loose file
// is opened for the collection it may record (a What-if export's): the tree places the others.
std::string builtInCollectionOf(const DatasetFile& f) {
    if (!f.error.empty()) return f.collection;
    return nn::builtInModelCollection(f.path, f.kind,
                                      f.split.empty() ? recordedCollection(f.path) : std::string());
}

// The given model for the graph's kind, else the built-in one of `collection`
// (builtInCollectionOf).
const nn::CostModel& modelFor(const std::map<Collection, nn::CostModel>& given,
                              const std::map<std::string, nn::CostModel>& builtIn,
                              const std::string& collection, const DatasetFile& f,
                              const TpuGraph& g) {
    const auto it = given.find(g.collection());
    if (it != given.end()) return it->second;
    const auto own = builtIn.find(collection);
    if (own == builtIn.end() || own->second.kind() != g.collection())
        throw FormatError(f.path + ": holds a " + collectionName(g.collection()) +
                          " graph, but its folder is " + f.collection + "'s and no " +
                          collectionName(g.collection()) + " model was given");
    return own->second;
}

void run(const PredictOptions& o) {
    const bool programTies = parseOnOff(o.programTies, "--program-ties");
    if (o.threads > 0) nn::setThreads(o.threads);
    std::map<Collection, nn::CostModel> models;
    auto put = [&](const std::string& path, std::optional<Collection> expected,
                   const char* option) {
        nn::CostModel m = nn::CostModel::load(path);
        if (expected && m.kind() != *expected)
            throw FormatError(path + ": " + option + " expects a " + collectionName(*expected) +
                              " model, this one is for " + m.info().collection);
        if (models.count(m.kind()))
            throw FormatError(path + ": a " + std::string(collectionName(m.kind())) +
                              " model was already given");
        models.emplace(m.kind(), m);
    };
    for (const auto& m : o.models) put(m, std::nullopt, "--model");
    if (!o.layoutModel.empty()) put(o.layoutModel, Collection::Layout, "--layout-model");
    if (!o.tileModel.empty()) put(o.tileModel, Collection::Tile, "--tile-model");

    const auto files = inputFiles(o);
    // A kind without a given model takes each file's collection's built-in one (the scan placed
    // each file: its collection in the tree, or its kind's name when loose).
    std::map<std::string, nn::CostModel> builtIn;
    std::vector<std::string> builtInCollections;  // per file
    for (const DatasetFile& f : files) {
        builtInCollections.push_back(builtInCollectionOf(f));
        const std::string& collection = builtInCollections.back();
        if (!f.error.empty() || models.count(f.kind) || builtIn.count(collection)) continue;
        nn::CostModel m = nn::defaultModel(f.kind, collection);
        std::fprintf(stderr, "note: no %s model given, using the %s\n", collectionName(f.kind),
                     m.label().c_str());
        builtIn.emplace(collection, std::move(m));
    }

    for (auto& [kind, model] : models) model.setTieSamePrograms(programTies);  // each loaded here, its own
    for (auto& [collection, model] : builtIn) model.setTieSamePrograms(programTies);

    // Rows stream to OUT.tmp as files are scored; a run that fails on a file leaves nothing beside
    // --out.
    ReplacingFile out(o.out);
    std::ofstream csv(out.tempPath(), std::ios::trunc);
    if (!csv) throw FormatError(o.out + ": cannot write");
    csv << "ID,TopConfigs\n";
    ProgressBar bar("predicting", static_cast<int64_t>(files.size()));
    LoadOptions lo;
    lo.backgroundConfigs = true;  // scoring streams rows as they are decoded
    int64_t rows = 0;
    for (size_t i = 0; i < files.size(); ++i) {
        const DatasetFile& f = files[i];
        if (!f.error.empty()) throw FormatError(f.error);
        const TpuGraph g = loadTpuGraph(f.path, lo);
        const nn::CostModel& model = modelFor(models, builtIn, builtInCollections[i], f, g);
        // Part of the file done moves the bar: one big file is most of a run.
        const auto scores = scoreFile(model, g, nullptr, [&](double part, const std::string& what) {
            bar.update(static_cast<double>(i) + part, f.name + " " + what);
        });
        auto ranked = metrics::rankByPrediction(scores);
        if (!g.isLayout() && ranked.size() > static_cast<size_t>(nn::limits::kTileTopK))
            ranked.resize(static_cast<size_t>(nn::limits::kTileTopK));
        csv << f.competitionId() << ',';
        for (size_t k = 0; k < ranked.size(); ++k) csv << (k ? ";" : "") << ranked[k];
        csv << '\n';
        ++rows;
        bar.update(static_cast<double>(i + 1), f.name);
    }
    csv.close();
    if (!csv) throw FormatError(o.out + ": write failed (disk full?)");
    out.commit();
    bar.finish(countOf(rows, "row", "rows") + " -> " + o.out);
}

}  // namespace

void addPredictCommand(CLI::App& app) {
    auto o = std::make_shared<PredictOptions>();
    auto* cmd = app.add_subcommand(
        "predict", std::string(learnCommandDescription("predict")) +
                       ".\nModels: a model file holds one kind (layout or tile). Give --model once "
                       "or twice (the kind is read from the file), or --layout-model / "
                       "--tile-model to be explicit. A kind present in the data without a model "
                       "uses the built-in default model.");
    cmd->add_option("--data", o->data, "Dataset folder or one .npz file")->required();
    cmd->add_option("--out", o->out, "CSV to write")
        ->required()
        ->check(CLI::Validator(outputFileProblem, "FILE"));
    cmd->add_option("--model", o->models,
                    "Model file (layout or tile; may be given twice, once per kind)");
    cmd->add_option("--layout-model", o->layoutModel, "Layout model file");
    cmd->add_option("--tile-model", o->tileModel, "Tile model file");
    cmd->add_option("--split", o->split,
                    "Split to predict in a dataset folder (loose files are always included)")
        ->capture_default_str();
    cmd->add_option("--collection", o->collection, "Only this collection (e.g. layout:nlp:random)")
        ->check(CLI::Validator(collectionProblem, "COLLECTION"));
    cmd->add_option("--threads", o->threads, "Torch threads (0 = all cores)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--program-ties", o->programTies,
                    "on: configs that compile to the same program (by the synthetic TPU's model of the "
                    "compiler) share one score, their mean, and so keep the order they have in the file; "
                    "off: each config's own score")
        ->capture_default_str();
    cmd->callback([o] { run(*o); });
}

}  // namespace tpg::cli
