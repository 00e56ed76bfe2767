#pragma once

#include <torch/torch.h>

#include "LayoutSlotFeatures.h"
#include "NeighbourMean.h"

namespace tpg::nn {

// Sparse directed edges of one graph, {consumer, producer} as in the files, with the inverse
// degrees the mean aggregation divides by. Never a dense n x n adjacency.
struct GraphEdges {
    torch::Tensor consumer;          // [E] long
    torch::Tensor producer;          // [E] long
    torch::Tensor invProducerCount;  // [N, 1]: 1 / (operands of the node), 0 for none
    torch::Tensor invConsumerCount;  // [N, 1]: 1 / (users of the node), 0 for none
    // The same means as sparse products, prepared with the graph (undefined: built per call).
    NeighbourMean fromProducers;  // each consumer's mean over its producers
    NeighbourMean fromConsumers;  // each producer's mean over its consumers
};

// One graph's tensors, prepared once and shared by every config batch of that graph.
// Layout graphs split their nodes for config-dependent work: D = nodes within `layers` hops of
// a configurable node (their embeddings differ per config), S = D plus its 1-hop halo (whose
// config-free embeddings are broadcast in). Tile graphs use only x, opcode and full.
struct GraphTensors {
    int64_t numNodes = 0;
    torch::Tensor x;             // [N, F] normalised node features
    torch::Tensor opcode;        // [N] long
    GraphEdges full;             // edges over all N nodes
    torch::Tensor subset;        // [S] node ids of S
    GraphEdges local;            // edges inside S, in S positions (degrees of D are complete)
    torch::Tensor haloPos;       // [S - D] positions in S of halo nodes
    torch::Tensor haloIds;       // [S - D] their node ids
    torch::Tensor dependentPos;  // [D] positions in S of D nodes
    torch::Tensor outsideIds;    // [N - D] node ids outside D (config-free at every layer)
    torch::Tensor configPos;     // [nc] positions in S of the configurable nodes
    LayoutSlotTensors slotTensors;     // layout models with slot features; else undefined
};

}  // namespace tpg::nn
