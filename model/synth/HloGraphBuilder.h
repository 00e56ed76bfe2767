#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg::synth {

// Element types the synthetic programs use (a subset of node_feat's one-hot columns 2-20).
enum class ElementType { Pred, S32, F32, BF16, Tuple };

// A dense array shape and its layout (minor-to-major, as in node_feat columns 134-139).
struct HloShape {
    ElementType type = ElementType::F32;
    std::vector<int64_t> dims;
    std::vector<int> layout;  // empty: XLA's default {rank-1, ..., 0}
    int tupleSize = 0;        // tuples only

    int rank() const { return static_cast<int>(dims.size()); }
    int64_t volume() const;
    std::vector<int> effectiveLayout() const;  // layout, or the default when empty
};

std::vector<int> defaultLayout(int rank);  // {rank-1, ..., 0}

// Window of a convolution or reduce-window, one entry per windowed dimension.
struct HloWindow {
    std::vector<int64_t> size, stride, padLow, padHigh;
    // Dilations and reversal are always 1 / false in the programs we generate; they are still
    // written (as 1s and a false count) as XLA's protos have them.
};

// Convolution dimension numbers (node_feat columns 93-106); output spatial dims are not in the
// schema, so they are the remaining output dimensions in order.
struct ConvDims {
    int inputBatch = 0, inputFeature = 3;
    std::vector<int> inputSpatial{1, 2};
    int kernelInputFeature = 2, kernelOutputFeature = 3;
    std::vector<int> kernelSpatial{0, 1};
    int outputBatch = 0, outputFeature = 3;
    std::vector<int> outputSpatial{1, 2};
};

// Builds an HLO-like graph node by node, in topological order (operands first), filling
// node_feat exactly as the schema (resources/schema/node_features.tsv) lays it out. Opcode ids
// come from the schema table by name. Edges are written as the dataset does: {consumer, producer}.
class HloGraphBuilder {
public:
    HloGraphBuilder();

    // Starts a new HLO computation; its first node id goes to node_splits.
    void beginComputation();

    int32_t parameter(const HloShape& shape, int number);
    int32_t constant(const HloShape& shape);
    int32_t iota(const HloShape& shape, int dimension);
    // Elementwise ops keep their first operand's shape and layout (as XLA's layout propagation).
    int32_t unary(const char* opcode, int32_t x);
    int32_t binary(const char* opcode, int32_t a, int32_t b);
    int32_t compare(int32_t a, int32_t b);  // pred result
    int32_t select(int32_t pred, int32_t a, int32_t b);
    int32_t convert(int32_t x, ElementType to);
    // `dims[i]` is the output dimension that operand dimension i maps to.
    int32_t broadcast(int32_t x, const std::vector<int64_t>& outDims, const std::vector<int>& dims);
    int32_t reshape(int32_t x, const std::vector<int64_t>& outDims);
    // Output dimension i is operand dimension perm[i].
    int32_t transpose(int32_t x, const std::vector<int>& perm);
    // Reduces `dims` of x with `init` (a scalar constant) and a reducer computation's opcode.
    int32_t reduce(int32_t x, int32_t init, const std::vector<int>& dims);
    int32_t reduceWindow(int32_t x, int32_t init, const HloWindow& window);
    // Output feature count `outFeatures`; SAME padding from the window's padLow/padHigh.
    int32_t convolution(int32_t input, int32_t kernel, const HloWindow& window, const ConvDims& dn,
                        int64_t outFeatures);
    // Canonical dot: `batchDims` leading batch dimensions shared by both operands; the lhs
    // contracts its last dimension, the rhs its first non-batch dimension.
    int32_t dot(int32_t lhs, int32_t rhs, int batchDims);
    int32_t concatenate(const std::vector<int32_t>& xs, int dimension);
    int32_t tuple(const std::vector<int32_t>& xs);
    int32_t getTupleElement(int32_t tuple, const HloShape& elementShape);
    // Any other op with an explicit output shape.
    int32_t op(const char* opcode, const HloShape& shape, const std::vector<int32_t>& operands);

    void setRoot(int32_t node);          // node_feat is_root
    void setConfigurable(int32_t node);  // listed in node_config_ids
    void setLayout(int32_t node, const std::vector<int>& minorToMajor);

    const HloShape& shape(int32_t node) const { return m_shapes[static_cast<size_t>(node)]; }
    int opcode(int32_t node) const { return m_opcodes[static_cast<size_t>(node)]; }
    int64_t size() const { return static_cast<int64_t>(m_opcodes.size()); }
    const std::vector<int32_t>& configurable() const { return m_configurable; }

    // The graph's structure as TpuGraphData (no configurations yet): node_feat (n, 140),
    // node_opcode, edge_index, node_splits and node_config_ids.
    TpuGraphData take(const std::string& name, Collection collection);

private:
    int32_t add(int opcode, const HloShape& shape, const std::vector<int32_t>& operands);
    int32_t elementwise(int opcode, HloShape shape, const std::vector<int32_t>& operands);
    std::vector<int> propagatedLayout(const std::vector<int32_t>& operands, int rank) const;
    float* row(int32_t node) { return m_features.data() + static_cast<size_t>(node) * kWidth; }
    void writeWindow(int32_t node, const HloWindow& w);
    static constexpr size_t kWidth = 140;

    std::vector<float> m_features;
    std::vector<int32_t> m_opcodes;
    std::vector<HloShape> m_shapes;
    std::vector<std::array<int32_t, 2>> m_edges;
    std::vector<int64_t> m_splits;
    std::vector<int32_t> m_configurable;
};

}  // namespace tpg::synth
