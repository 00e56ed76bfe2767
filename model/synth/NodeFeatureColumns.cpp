#include "synth/NodeFeatureColumns.h"

#include <stdexcept>

#include "graph/Schema.h"

namespace tpg::synth {

int NodeColumns::find(const std::string& name) {
    const auto& names = schema::nodeFeatureNames();
    for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return static_cast<int>(i);
    throw std::logic_error("node_features.tsv has no column '" + name + "'");
}

const NodeColumns& NodeColumns::get() {
    static const NodeColumns c = [] {
        NodeColumns k{};
        k.isRoot = find("is_root");
        k.elementSizeInBits = find("element_size_in_bits");
        k.typePred = find("shape_element_type_is_pred");
        k.typeS32 = find("shape_element_type_is_s32");
        k.typeF32 = find("shape_element_type_is_f32");
        k.typeBf16 = find("shape_element_type_is_bf16");
        k.typeTuple = find("shape_element_type_is_tuple");
        k.typeS64 = find("shape_element_type_is_s64");
        k.typeF16 = find("shape_element_type_is_f16");
        k.typeU8 = find("shape_element_type_is_u8");
        k.typeS8 = find("shape_element_type_is_s8");
        k.shapeDims = find("shape_dimensions_0");
        k.shapeSum = find("shape_dimensions_sum");
        k.shapeProduct = find("shape_dimensions_product");
        k.tupleSize = find("shape_tuple_shapes_size");
        k.parameterNumber = find("parameter_number");
        k.dimensions = find("dimensions_0");
        k.windowSize = find("window_size_0");
        k.windowStride = find("window_stride_0");
        k.windowPadLow = find("window_padding_low_0");
        k.windowPadHigh = find("window_padding_high_0");
        k.windowDilation = find("window_window_dilation_0");
        k.baseDilation = find("window_base_dilation_0");
        k.reversal = find("window_window_reversal_0");
        k.reversalTrueCount = find("window_window_reversal_true_count");
        k.reversalFalseCount = find("window_window_reversal_false_count");
        k.convInputBatch = find("convolution_dim_numbers_input_batch_dim");
        k.convInputFeature = find("convolution_dim_numbers_input_feature_dim");
        k.convInputSpatial = find("convolution_dim_numbers_input_spatial_dims_0");
        k.convKernelInputFeature = find("convolution_dim_numbers_kernel_input_feature_dim");
        k.convKernelOutputFeature = find("convolution_dim_numbers_kernel_output_feature_dim");
        k.convKernelSpatial = find("convolution_dim_numbers_kernel_spatial_dims_0");
        k.convOutputBatch = find("convolution_dim_numbers_output_batch_dim");
        k.convOutputFeature = find("convolution_dim_numbers_output_feature_dim");
        k.featureGroupCount = find("feature_group_count");
        k.batchGroupCount = find("batch_group_count");
        k.layout = find("layout_minor_to_major_0");
        return k;
    }();
    return c;
}

}  // namespace tpg::synth
