#pragma once

#include <string>

namespace tpg::synth {

// node_feat column indices, resolved by NAME from the schema table (node_features.tsv) once, so
// neither the generator nor the cost model hard-codes a column number. Each group is the first
// column of six consecutive per-dimension columns followed (where the schema has them) by their
// sum and product.
struct NodeColumns {
    int isRoot, elementSizeInBits;
    int typePred, typeS32, typeF32, typeBf16, typeTuple, typeS64, typeF16, typeU8, typeS8;
    int shapeDims, shapeSum, shapeProduct, tupleSize, parameterNumber, dimensions;
    int windowSize, windowStride, windowPadLow, windowPadHigh, windowDilation, baseDilation;
    int reversal, reversalTrueCount, reversalFalseCount;
    int convInputBatch, convInputFeature, convInputSpatial, convKernelInputFeature,
        convKernelOutputFeature, convKernelSpatial, convOutputBatch, convOutputFeature;
    int featureGroupCount, batchGroupCount;
    int layout;

    static const NodeColumns& get();
    // Index of the schema column `name`; throws std::logic_error if the schema lacks it.
    static int find(const std::string& name);
};

}  // namespace tpg::synth
