#pragma once

#include <string>
#include <vector>

// The TpuGraphs schema tables (resources/schema/*.tsv, embedded at build time).
namespace tpg::schema {

constexpr int kNodeFeatureWidth = 140;
constexpr int kLayoutConfigWidth = 18;
constexpr int kTileConfigWidth = 24;
// node_feat columns 134-139: the node's own minor-to-major layout, padded with 0 in the files.
constexpr int kNodeLayoutColumn = 134;
constexpr int kMaxRank = 6;  // layouts and shapes have 6 slots
// node_feat columns 21-26: shape dimensions 0-5; 28: their product.
constexpr int kShapeDimColumn = 21;
constexpr int kShapeProductColumn = 28;

// Rank of a node's output tensor: the last non-zero of the six shape dimensions starting at
// `shapeDimColumn` of a node_feat row (0 for a scalar or an unknown shape).
int shapeRank(const float* nodeFeatureRow, int shapeDimColumn = kShapeDimColumn);

// "convolution", or "unknown(123)" for an id the table does not list.
std::string opcodeName(int id);
int opcodeId(const std::string& name);  // -1 when unknown
bool opcodeKnown(int id);                // listed and not a removed opcode
int maxOpcodeId();                       // largest id in the table

const std::vector<std::string>& nodeFeatureNames();          // 140
const std::vector<std::string>& layoutConfigFeatureNames();  // 18
const std::vector<std::string>& tileConfigFeatureNames();    // 24
// The column of tile config feature `name` ("output_bounds_3"); -1 when there is none.
int tileConfigColumn(const std::string& name);

// Name of column `col` of a table whose width may be trimmed: the schema name when the width
// matches the schema, else "col_<i>" (a trimmed copy's columns cannot be mapped back).
std::string featureName(const std::vector<std::string>& names, int width, int col);

}  // namespace tpg::schema
