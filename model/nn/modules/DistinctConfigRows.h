#pragma once

#include <torch/torch.h>

#include <vector>

#include "GraphTensors.h"

namespace tpg::nn {

// Configurations a few configurable nodes apart (a `default` search: a median of 2 nodes apart
// from its best configuration) give most (node, config) rows of the per-config pass the same
// value, since a node's embedding after layer l depends only on the configuration within l hops.
// These maps name each layer's distinct rows, so the pass computes every distinct row once and
// gathers the [S, C, H] result at the end: the same ops on the same inputs as the dense pass.
//
// Row numbering per layer. Layer 0: rows [0, S) are the config-free node encodings of S, rows
// S + p the configurable nodes' encodings plus the fused config pair p. Layer l >= 1: rows
// [0, S - D) the config-free halo values (in haloPos order), then the computed rows.
struct DistinctConfigRows {
    struct Layer {  // one SageConv layer's computed rows
        // Per computed row: its S position and, one layer down, its own row.
        torch::Tensor position, self;  // [R] long
        // Its messages one layer down: row of the computed row, row of the neighbour, per edge.
        torch::Tensor producerTarget, producerSource, consumerTarget, consumerSource;
    };
    // Layer 0's distinct (config, configurable node) pairs as flat indices c * nc + k ([P]
    // long), their node k ([P] long), and the pair of every (c, k), c-major ([C * nc] long).
    torch::Tensor pairs, pairNode, pairOfEntry;
    std::vector<Layer> layers;  // layers 1..L
    torch::Tensor rowOf;        // [S * C] long: the last layer's row of (position s, config c), s-major
};

// Fills `out` for config [C, nc, F] (CPU floats) over `layers` SageConv layers. Returns false,
// leaving `out` unusable, as soon as a layer's distinct rows exceed `maxShare` of its dense rows:
// then gathering would cost about what it saves. `sources` ([nc, m] long, or undefined) names,
// per configurable node, other configurable nodes its encoding also reads (flow features: the
// node whose output layout arrives at each slot; -1 none): their values join its layer-0 key.
bool findDistinctConfigRows(const torch::Tensor& config, const GraphTensors& graph, int64_t layers,
                            double maxShare, const torch::Tensor& sources, DistinctConfigRows& out);

}  // namespace tpg::nn
