#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg::synth {

// The synthetic TPU's machine constants (see docs/synthetic-tpu.md). Rough TPU-v3-like orders
// of magnitude; what matters for ranking is their ratios, not their absolute values.
struct TpuParameters {
    double mxuFlopsPerNs = 60000;    // matrix unit peak (60 TFLOP/s)
    double vectorFlopsPerNs = 2000;  // vector unit, elementwise and reductions
    double hbmBytesPerNs = 700;      // HBM bandwidth (700 GB/s)
    double opOverheadNs = 400;    // fixed cost of every non-trivial HLO op (launch, pipeline fill)
    double copyOverheadNs = 600;  // fixed cost of a layout-changing copy the compiler inserts
    double transposeFactor =
        2.0;               // a copy that changes the most-minor dim runs through the transpose unit
    int tileLanes = 128;   // most-minor dim is padded to a multiple of this
    int tileSublanes = 8;  // second-most-minor dim is padded to a multiple of this
    double maxPaddingRatio = 8;  // beyond this the compiler switches to a smaller tile shape
    double convInputPreference =
        1.6;  // MXU slowdown: convolution input's feature dim not most minor
    double convKernelPreference = 1.3;   // kernel's output-feature dim not most minor
    double convOutputPreference = 1.4;   // output's feature dim not most minor
    double dotOperandPreference = 1.35;  // lhs contracting dim / rhs output dim not most minor
    double reduceMinorPenalty = 1.25;    // reducing the most-minor dim needs cross-lane work
    double noiseSigma = 0.0025;          // measurement noise: log-normal sigma per (graph, config)
    // Tile (kernel-level) model.
    double kernelLaunchNs = 2000;    // fixed per kernel
    double perTileOverheadNs = 150;  // per output tile: loop step, DMA setup, pipeline bubble
    double dmaOverheadNs = 60;       // per input/kernel tile fetched
    double vmemBytes = 16.0 * 1024 * 1024;  // on-chip vector memory; tiles are double-buffered
    double spillFactor = 3.0;  // the capacity cliff: work and traffic multiply beyond it
};

// One node's share of a runtime, and why.
struct NodeCost {
    int32_t node = 0;
    double computeNs = 0;  // the op's work at unpadded, preferred layouts (plus its overhead)
    double paddingNs = 0;  // extra from (8 x 128) tile padding of the layouts it reads and writes
    double layoutNs =
        0;  // extra from op-specific preferences (non-bitcast reshape, feature dim not minor, ...)
    std::vector<int> outputLayout;  // minor-to-major layout it produces under the configuration
    std::string reason;
    double totalNs() const { return computeNs + paddingNs + layoutNs; }
};

// A copy the compiler inserts on an edge because the producer's layout differs from the one
// its consumer wants.
struct EdgeCost {
    int64_t edge = 0;  // index into edge_index
    int32_t consumer = 0, producer = 0;
    double copyNs = 0;
    std::vector<int> fromLayout, toLayout;
    std::string reason;
};

// Kernel-level terms of a tile configuration (zero for layout graphs).
struct TileCost {
    int64_t numTiles = 0;
    double utilisation = 1;      // useful / computed elements (partial tiles, lane padding)
    double workingSetBytes = 0;  // double-buffered output + input + kernel tiles
    bool spills = false;         // working set above vmemBytes
    double launchNs = 0, tileOverheadNs = 0, trafficNs = 0, spillNs = 0, wasteNs = 0;
    std::array<int64_t, 6> outputTile{}, inputTile{}, kernelTile{};
};

// A runtime and its explanation: totalNs == sum of node totals + copies + tile terms + noiseNs.
struct CostBreakdown {
    double totalNs = 0;
    double nodesNs = 0;   // sum over nodes
    double copiesNs = 0;  // sum over edges
    double tileNs = 0;    // tile graphs: launch + tile overhead + traffic + spill + waste
    double noiseNs = 0;   // (noiseFactor - 1) x everything else
    double noiseFactor = 1;
    std::vector<NodeCost> nodes;   // every node, in id order
    std::vector<EdgeCost> copies;  // only edges that need a copy
    TileCost tile;
    std::vector<std::string> notes;  // configuration-level remarks (ignored slots, clamped bounds)
};

// The analytic runtime model of the synthetic TPU. Everything is derived from what a TpuGraphs
// file holds (node_feat, node_opcode, edge_index, node_config_ids), never from generator state,
// so it evaluates real-looking files and ANY configuration, not only sampled ones.
//
// Layout config (per configurable node, 18 values): output_layout 0-5, input_layout 0-5 (its
// first operand), kernel_layout 0-5 (second operand of a convolution or dot); each a
// minor-to-major permutation padded with -1, all -1 meaning the compiler default. A slot that
// is neither is ignored (treated as default) and reported in CostBreakdown::notes.
// Tile config (24 values): kernel/output/input bounds 0-5 (+ sum, product, ignored); a bound of
// 0 or beyond the dimension means the whole dimension.
//
// Thread-safe after construction (evaluation is const and allocates per call).
class TpuCostModel {
public:
    // Throws FormatError when the graph's node_feat is not the schema's 140 columns.
    explicit TpuCostModel(const TpuGraph& graph, TpuParameters params = {});
    ~TpuCostModel();
    TpuCostModel(TpuCostModel&&) noexcept;
    TpuCostModel& operator=(TpuCostModel&&) noexcept;

    const TpuParameters& parameters() const { return m_params; }

    // Layout: `config` holds numConfigurable x 18 values (one row of node_config_feat). With
    // `programKey`, also the key of the program it compiles to (as programKey(c) for a file's row).
    double layoutRuntime(const float* config, uint64_t* programKey = nullptr) const;
    CostBreakdown explainLayout(const float* config) const;
    // Tile: `config` holds 24 values (one row of config_feat).
    double tileRuntime(const float* config) const;
    CostBreakdown explainTile(const float* config) const;
    // The compiler's default tile configuration for this kernel (the normaliser's config).
    std::vector<float> defaultTileConfig() const;

    // The tensors a tile configuration's bounds describe (empty dims when the kernel has none):
    // the root's output, and the input and kernel of its heaviest convolution or dot.
    struct TileTensors {
        std::vector<int64_t> output, input, kernel;
        std::vector<int> outputLayout, inputLayout, kernelLayout;  // their default layouts
        int32_t outputNode = -1, inputNode = -1, kernelNode = -1;  // the nodes (-1: none)
    };
    TileTensors tileTensors() const;
    // The size of the dimension tile config column `column` bounds, as tileRuntime reads it; -1
    // when that tensor has no such dimension (the bound does nothing), 0 when the column is not a
    // bound (a sum or a product) or the file is not a tile file.
    int64_t tileBoundDimension(int column) const;
    // The size bound `column` set to `value` tiles its dimension with, as tileRuntime reads it (0
    // and sizes beyond the dimension read as all of it); -1 where tileBoundDimension is not > 0.
    int64_t tileBoundSize(int column, float value) const;

    // Configuration `c` of the graph itself (layout or tile, by collection).
    double runtime(int64_t c) const;
    CostBreakdown explain(int64_t c) const;
    // A key of the program the compiler makes of configuration `c`: every node's layout and every
    // copy it inserts (layout), or the clamped tiles (tile). Configurations with one key are one
    // executable, so they measure the same (the measurement noise is keyed by it too).
    uint64_t programKey(int64_t c) const;

    // Rank of a node's output (from node_feat), and of the operand a layout slot describes
    // (slot 0 output, 1 input, 2 kernel); -1 when the slot does not apply to the node.
    int slotRank(int32_t node, int slot) const;
    // The node's default (compiler) output layout, from node_feat columns 134-139.
    std::vector<int> defaultLayout(int32_t node) const;

private:
    struct Impl;
    TpuGraph m_graph;
    TpuParameters m_params;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace tpg::synth
