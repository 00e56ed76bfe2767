#pragma once

#include <cstdint>

namespace tpg::nn {

// Shape of a cost network; the input widths come from the data and are saved in model files.
struct CostNetOptions {
    int64_t nodeFeatureWidth = 140;
    int64_t configWidth = 18;  // 18 (layout, per node) or 24 (tile, per graph) unless trimmed
    int64_t hidden = 64;
    int64_t layers = 3;
    int64_t opcodeDim = 16;
    int64_t attentionHeads = 4;
    bool violationFeature = false;  // layout only
    bool configAttention = false;
    bool slotFeatures = false;  // layout: LayoutSlotFeatures beside the raw config values
    bool flowFeatures = false;  // layout, with slot features: plus layoutFlowFeatures
    bool relayoutFeatures = false;  // layout, with flow features: their relayout columns too
    bool nodeCostReadout = false;  // layout: plus log of a sum of per-node costs (runtime is a sum)
    bool pooledHead = true;        // layout, with the node-cost readout: also an MLP on pooled embeddings
    bool boundsFeatures = false;   // tile: config rows carry kTileBoundsFeatureCount extra columns
    bool spillFeatures = false;    // tile: and then kTileSpillFeatureCount more
    bool trafficFeatures = false;  // tile: and then kTileTrafficFeatureCount more
};

}  // namespace tpg::nn
