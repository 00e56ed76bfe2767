#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "PreparedGraph.h"
#include "graph/TpuGraph.h"

namespace tpg::nn {

// Auto: the kind's default (defaultLoss), resolved once the data's kind is known.
enum class LossKind { Auto, PairwiseHinge, ListMle, LogRuntimeMse, PairwiseLogistic };
const char* lossName(LossKind k);  // "auto" / "hinge" / "listmle" / "mse" / "logistic"
bool parseLoss(const std::string& s, LossKind& out);
const char* lossChoices();  // the names parseLoss takes, for messages

// Hyperparameters of the network.
struct ModelSettings {
    int hidden = 64;
    int layers = 3;
    int opcodeDim = 16;
    int attentionHeads = 4;
    // Layout: keep the configurable nodes and their k-hop neighbourhood; -1 = the full graph.
    int pruneHops = 1;
    bool violationFeature = false;  // layout: graph-level "violation ratio" input
    bool configAttention = false;   // configs of one batch attend to each other
    // The three measured best by tests/bench/quality.sh (README, model quality); off in model
    // files written before them.
    bool slotFeatures = true;      // layout: what each slot's layout means physically (LayoutSlotShapes)
    bool nodeCostReadout = true;   // layout: the score adds log(sum of predicted node costs)
    bool boundsFeatures = true;    // tile: what the bounds mean for the operands (TileBoundsFeatures)
    // Tile: whether the working set fits on-chip memory (tileSpillFeatures); off in model files
    // written before it.
    bool spillFeatures = true;
    // Tile: what the configuration fetches from HBM (tileTrafficFeatures); off in model files
    // written before it.
    bool trafficFeatures = true;
    bool flowFeatures = false;     // layout, with slot features: how far layouts flow (layoutFlowFeatures)
    // Layout, with flow features: the reshapes and transposes a configuration makes physical
    // relayouts, and the padded elements they move (RelayoutOp); off in model files written before it.
    bool relayoutFeatures = false;
    // Layout, with the node-cost readout: the score also takes an MLP over the pooled graph
    // embedding; off (measured better on nlp, README), it is the log of the summed node costs
    // alone. On in model files written before the option.
    bool pooledHead = false;

    bool operator==(const ModelSettings& o) const {
        return hidden == o.hidden && layers == o.layers && opcodeDim == o.opcodeDim &&
               attentionHeads == o.attentionHeads && pruneHops == o.pruneHops &&
               violationFeature == o.violationFeature && configAttention == o.configAttention &&
               slotFeatures == o.slotFeatures && nodeCostReadout == o.nodeCostReadout &&
               boundsFeatures == o.boundsFeatures && spillFeatures == o.spillFeatures &&
               trafficFeatures == o.trafficFeatures &&
               flowFeatures == o.flowFeatures && relayoutFeatures == o.relayoutFeatures &&
               pooledHead == o.pooledHead;
    }
    bool operator!=(const ModelSettings& o) const { return !(*this == o); }

    // Width and depth 0: the kind's measured best, filled in by resolveModelShape once the data's
    // kind is known (what training starts from).
    static ModelSettings shapedByKind() {
        ModelSettings m;
        m.hidden = 0;
        m.layers = 0;
        return m;
    }
    // What a model file or training log written before the optional features held: each off, the
    // pooled head on. Readers start from it, so a key a file lacks means the run had no such option
    // (a resumed run then rebuilds the network its checkpoint holds).
    static ModelSettings beforeOptions() {
        ModelSettings m = shapedByKind();
        m.slotFeatures = m.nodeCostReadout = m.boundsFeatures = m.spillFeatures = m.trafficFeatures =
            m.flowFeatures = m.relayoutFeatures = false;
        m.pooledHead = true;
        return m;
    }
};

// The width and depth tests/bench/quality.sh measured best (README, model quality): a layout
// model 48 wide and 2 layers deep fits about 1.8x the epochs of 64 x 3 in a budget and ranks
// better; tile keeps 64 x 3 (it met its target with them).
struct ModelShape {
    int hidden;
    int layers;
};
ModelShape defaultModelShape(Collection kind);
// The pairwise hinge's margin on scores that sum to a log runtime.
constexpr double kDefaultMargin = 0.1;
// The pairwise logistic loss's temperature, in log runtime (nlp:default's pairs lie 0.01-0.02
// apart): the best measured of 0.003-0.1 (README, Model quality).
constexpr double kDefaultTemperature = 0.01;
// The kind's default loss (README, Model quality): layout the pairwise logistic, measured best
// there; tile the pairwise hinge, which ranked the fresh kernels better than the logistic.
LossKind defaultLoss(Collection kind);
// The loss a run trains with: `k`, or for Auto the kind's default, or the pairwise hinge when a
// ListMLE weight asks for the hinge and ListMLE together.
LossKind resolveLoss(LossKind k, Collection kind, double listMleWeight);
// Whether a layout model scores with the pooled head: asked for, or needed (without the
// node-cost readout there is no other score; config attention and the violation feature act on
// the pooled embedding).
bool takesPooledHead(const ModelSettings& m);
void resolveModelShape(ModelSettings& m, Collection kind);  // fills a width or depth of 0

// Validation figures of a model (means over graphs; NaN when not measured).
struct ValidationSummary {
    int graphs = 0;
    double score = 0;  // layout: Kendall; tile: competition tile score (2 - top-5 ratio)
    double kendall = 0, opa = 0;
    double slowdown1 = 0, slowdown5 = 0, slowdown10 = 0;
};

// Everything a model file records besides its weights (stored as JSON).
struct ModelInfo {
    // 2: weights in our TensorArchive; 1: in LibTorch's archive (still read).
    static constexpr int kFormatVersion = 2;
    Collection kind = Collection::Layout;
    std::string collection;  // e.g. "layout:xla:random", "tile:xla" (what it was trained on)
    ModelSettings settings;
    int64_t nodeFeatureWidth = 0;
    int64_t configWidth = 0;
    FeatureStats stats;
    // Training summary
    std::string loss = "hinge";
    // The loss's parameters as trained (`tune` fine-tunes with them); files written before they were
    // recorded read the defaults, which those runs used unless told otherwise.
    double margin = kDefaultMargin;
    double temperature = kDefaultTemperature;
    double listMleWeight = 0;
    int64_t trainGraphs = 0, trainConfigs = 0, validGraphs = 0;
    int epochs = 0;
    double trainSeconds = 0;
    uint64_t seed = 0;
    double heldOutConfigFraction = 0;  // configs of each training graph never trained on
    std::string dataDescription;
    ValidationSummary validation;
};

std::string modelInfoToJson(const ModelInfo& info);
// Throws FormatError("FILE: ...") naming the missing or ill-typed key.
ModelInfo modelInfoFromJson(const std::string& json, const std::string& file);

// Model file container: magic line, JSON metadata, torch weights. Written atomically.
struct ModelFileContents {
    std::string json;
    std::string weights;
};
std::string encodeModelFile(const std::string& magic, const ModelFileContents& contents);
void writeModelFile(const std::string& path, const std::string& magic,
                    const ModelFileContents& contents);
// One clear FormatError for a missing, truncated or foreign file.
ModelFileContents readModelFile(const std::string& path, const std::string& magic);
ModelFileContents parseModelBytes(const std::string& bytes, const std::string& label,
                                  const std::string& magic);

constexpr const char* kModelMagic = "TPUGRAPHS-COST-MODEL 1\n";
constexpr const char* kResumeMagic = "TPUGRAPHS-TRAIN-STATE 1\n";

// Reads only the metadata of a model file (no torch needed).
ModelInfo readModelInfo(const std::string& path);

}  // namespace tpg::nn
