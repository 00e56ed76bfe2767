#pragma once

#include <cstdint>
#include <string>

#include "synth/SyntheticRandom.h"
#include "graph/TpuGraph.h"

namespace tpg::synth {

// Program shapes the synthetic TPU generates, after the models the real dataset was timed on.
enum class Recipe {
    ResNet,       // convolution stacks: convolution, batch-norm pieces (rsqrt, multiply, add), ReLU
                  // (maximum), pooling (reduce-window), residual adds
    Transformer,  // attention blocks: dot, reshape, transpose, softmax (reduce, exponential,
                  // divide), layer norm, MLP
    Mlp,          // dense layers: dot, bias add, tanh / maximum
    ConvKernel,   // tile kernels: one fused convolution with its epilogue
    DotKernel,    // tile kernels: one fused dot with bias and activation
    SoftmaxKernel,  // tile kernels: a fused reduction (softmax / normalisation)
};
const char* recipeName(Recipe r);

// A whole program (layout collection) of about `targetNodes` nodes (never fewer than the
// recipe's smallest program, ~60-150 nodes): several HLO computations (reducers first, the entry
// last) recorded in node_splits; convolutions, dots and rank >= 2 reshapes configurable. The
// result has no configurations yet.
TpuGraphData buildProgram(Recipe recipe, Rng& rng, int64_t targetNodes, const std::string& name);

// One fused kernel (tile collection), about 10-60 nodes, one computation, no configurable nodes.
TpuGraphData buildKernel(Recipe recipe, Rng& rng, const std::string& name);

}  // namespace tpg::synth
