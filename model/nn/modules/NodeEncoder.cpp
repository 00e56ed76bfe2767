#include "NodeEncoder.h"

#include "NnLimits.h"

namespace tpg::nn {

NodeEncoderImpl::NodeEncoderImpl(int64_t featureWidth, int64_t opcodeDim, int64_t hidden)
    : opcodeEmbedding(register_module(
          "opcodeEmbedding",
          torch::nn::Embedding(torch::nn::EmbeddingOptions(limits::kOpcodeVocabulary, opcodeDim)))),
      project(register_module("project", Dense(featureWidth + opcodeDim, hidden))),
      norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden})))) {}

torch::Tensor NodeEncoderImpl::forward(const torch::Tensor& x, const torch::Tensor& opcode) {
    // [N, F] ++ [N, E] -> [N, F + E] -> [N, H]
    return torch::relu(norm(project(torch::cat({x, opcodeEmbedding(opcode)}, 1))));
}

}  // namespace tpg::nn
