#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "CancelToken.h"
#include "ModelInfo.h"
#include "graph/TpuGraph.h"

namespace tpg::nn {

// Torch's intra-op thread count for this process (n > 0).
void setThreads(int n);

// A learned cost model (layout or tile) with its metadata. Torch stays behind this interface.
// Scores: one per config, LOWER = FASTER (a predicted log runtime up to a per-graph offset).
// Copies share the same network. Scoring is thread-safe (serialised internally; scoreAll holds
// the network a batch at a time, and a waiting scoreEdited or scoreRows goes next).
class CostModel {
public:
    using Progress = std::function<void(int64_t done, int64_t total)>;

    CostModel();
    ~CostModel();
    CostModel(const CostModel&);
    CostModel& operator=(const CostModel&);

    // A fresh network (weights from torch's current seed) for `info`'s kind, widths, settings.
    static CostModel create(const ModelInfo& info);
    // Loads a model file; one FormatError with a clear message for missing, corrupt or foreign
    // files and weight/shape mismatches.
    static CostModel load(const std::string& path);
    static CostModel fromBytes(const std::string& bytes, const std::string& label);

    bool isNull() const { return !d; }
    const ModelInfo& info() const;
    ModelInfo& info();
    Collection kind() const { return info().kind; }
    int64_t parameterCount() const;

    void save(const std::string& path) const;  // atomically (temp file + rename)
    std::string toBytes() const;

    // "" when this model can score `g`, else why not, e.g.
    // "model.pt: trained for tile:xla, cannot score layout files".
    std::string incompatibility(const TpuGraph& g) const;
    void requireCompatible(const TpuGraph& g) const;  // throws FormatError with that reason

    // Every config of `g`, streamed in batches (NLP files hold ~100k configs). Here and in
    // scoreConfigs, configs that compile to the same program share one score, their mean
    // (synth::shareScoresWithinPrograms), unless turned off. `programKeys`: every config's key
    // when the caller has them (synth::programKeys), so they are not computed twice.
    std::vector<double> scoreAll(const TpuGraph& g, const Progress& progress = {},
                                 const CancelToken* cancel = nullptr,
                                 const std::vector<uint64_t>* programKeys = nullptr) const;
    // Chosen configs of `g`, in the given order; `programKeys` as for scoreAll, one per config.
    std::vector<double> scoreConfigs(const TpuGraph& g, const std::vector<int64_t>& configs,
                                     const CancelToken* cancel = nullptr,
                                     const Progress& progress = {},
                                     const std::vector<uint64_t>* programKeys = nullptr) const;
    // Explicit config rows (e.g. an edited config in the GUI): `count` rows of
    // numConfigurable * configWidth (layout) or configWidth (tile) floats.
    std::vector<double> scoreRows(const TpuGraph& g, const float* rows, int64_t count) const;
    // One row, scored incrementally from the previous call's row when they differ in a few
    // configurable nodes (an edit): only the nodes within the network's reach of those are
    // recomputed. Equal to scoreRows within float tolerance. Tile models score the row whole.
    double scoreEdited(const TpuGraph& g, const float* row) const;

    // Off: scoreAll and scoreConfigs give every config the network's own score (to measure it).
    void setTieSamePrograms(bool on);
    bool tiesSamePrograms() const;
    // Whether scoring `g`'s file shares scores within programs (a layout graph, ties on), so its
    // program index (a synthetic TPU pass per configuration) comes first.
    bool indexesPrograms(const TpuGraph& g) const;

    // Where the model label in messages comes from (file path or "built-in layout model").
    const std::string& label() const;

    struct Impl;
    Impl& impl() const { return *d; }

private:
    // `scores` of `configs` (null: every config of `g`, in order), shared within programs by
    // `programKeys` when given, else by keys computed here.
    void tieSamePrograms(const TpuGraph& g, const std::vector<int64_t>* configs,
                         std::vector<double>& scores, const CancelToken* cancel,
                         const std::vector<uint64_t>* programKeys) const;
    static CostModel fromContents(const ModelFileContents& contents, const std::string& label);
    std::shared_ptr<Impl> d;
};

}  // namespace tpg::nn
