#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg::synth {
class TpuCostModel;
}

// Editing one configuration row of a file: which layout slots a configurable node can use, with
// the tensor each lays out, and edits checked against them. Text forms (the CLI's, the JSON's):
//   layout  NODE.output=3,0,2,1   NODE.input=default   NODE.kernel={1,0}
//   tile    kernel_bounds_0=4   output_bounds_1=128
namespace tpg::whatif {

enum class LayoutSlot { Output = 0, Input = 1, Kernel = 2 };
const char* slotName(LayoutSlot slot);  // "output", "input", "kernel"

// The tensor a layout slot of a configurable node lays out.
struct SlotTensor {
    bool usable = false;          // false: the compiler ignores this slot for this node
    std::string why;              // when not usable
    int32_t tensorNode = -1;      // the node whose output the slot lays out
    std::vector<int64_t> dims;    // its shape; the slot takes a permutation of 0..rank-1
    std::string shapeText() const;  // "[16,256,7,7]"
    int rank() const { return static_cast<int>(dims.size()); }
};
SlotTensor slotTensor(const TpuGraph& g, int32_t node, LayoutSlot slot);

// Empty when `g`'s layout configs can be edited by slot; else why not (trimmed widths).
std::string layoutEditingUnavailable(const TpuGraph& g);

struct LayoutEdit {
    int32_t node = -1;
    LayoutSlot slot = LayoutSlot::Output;
    std::vector<int> minorToMajor;  // empty: the compiler's default (all -1)
    std::string text() const;       // "44.output=3,0,2,1"
};
// Parses and checks "NODE.SLOT=PERM": a configurable node, a usable slot, a permutation of the
// tensor's rank. Throws FormatError naming the edit and what was expected.
LayoutEdit parseLayoutEdit(const TpuGraph& g, const std::string& text);
// What is wrong with an edit built in code (as parseLayoutEdit checks it), or "" when it fits.
std::string layoutEditProblem(const TpuGraph& g, const LayoutEdit& edit);
// Throws FormatError naming the edit and its layoutEditProblem.
void checkLayoutEdit(const TpuGraph& g, const LayoutEdit& edit);
// Throws FormatError naming the first two edits that set one node's slot: the later would win
// silently, so two of them are a slip (say, a node number mistyped).
void checkEachSlotOnce(const std::vector<LayoutEdit>& edits);
// Writes the edit into a layout row (numConfigurable x 18 values).
void applyLayoutEdit(const TpuGraph& g, std::vector<float>& row, const LayoutEdit& edit);
// Writes one layout into one slot of several nodes, of each it fits (no layoutEditProblem: the
// slot usable, its tensor of the layout's rank; default fits any usable slot).
// Returns the nodes it was written to.
std::vector<int32_t> applyLayoutToNodes(const TpuGraph& g, std::vector<float>& row,
                                        const std::vector<int32_t>& nodes, LayoutSlot slot,
                                        const std::vector<int>& minorToMajor);
// The configurable nodes like `node`, itself first: the same opcode and output shape, such as
// every convolution of one size, which an edit of one is often meant for too.
std::vector<int32_t> nodesAlike(const TpuGraph& g, int32_t node);
// The minor-to-major list a row holds for a node's slot (empty = default).
std::vector<int> layoutOf(const TpuGraph& g, const std::vector<float>& row, int32_t node, LayoutSlot slot);

struct TileEdit {
    int column = -1;  // a bounds column of the 24 (not a sum or product)
    float value = 0;
    std::string text() const;  // "kernel_bounds_0=4"
};
TileEdit parseTileEdit(const TpuGraph& g, const std::string& text);
// The same for tile edits: each bound once.
void checkEachBoundOnce(const std::vector<TileEdit>& edits);
// Throws FormatError when the edit's bound is larger than the dimension it tiles, or is set on a
// dimension its tensor lacks, as the synthetic TPU reads the kernel (`tpu`, built from the same
// graph): it would clamp such a bound, while the model would read it as given. The explorer
// offers the same sizes.
void checkTileEditFits(const synth::TpuCostModel& tpu, const TileEdit& edit);
// The edit with a bound of 0 (the whole dimension) on a dimension the kernel has written as
// that dimension's size: the tile the synthetic TPU reads either way, and the value the file's
// configurations hold, where a 0 made its group's product 0, a row the model was never shown.
TileEdit wholeAsDimension(const synth::TpuCostModel& tpu, TileEdit edit);
// Writes the bound and re-derives its group's sum and product.
void applyTileEdit(std::vector<float>& row, const TileEdit& edit);
// Whether a column of the 24-column tile schema is a bound a user sets (bounds 0-5 of each group
// of eight), not a derived sum or product.
bool isTileBoundPosition(int64_t column);
// The same for a column of `g`'s tile rows: every column of a file whose rows are not 24 wide
// counts, its columns' meaning being unknown.
bool isTileBoundColumn(const TpuGraph& g, int64_t column);
// The bounds two tile rows of `g` set differently (a changed bound counts once, not again for its
// group's derived sum and product).
int64_t differingTileBounds(const TpuGraph& g, const float* a, const float* b);

// A whole configuration row as edits, one per set slot or bound, space-separated ("44.output=3,0,2,1
// 45.input=1,0" or "kernel_bounds_0=4 output_bounds_1=128"): what the explorer copies, and what
// the what-if command line reads back. Layout slots at the compiler default are left out.
std::string rowAsEdits(const TpuGraph& g, const std::vector<float>& row);

// "{3,0,2,1}", or "default" for an empty list.
std::string layoutText(const std::vector<int>& minorToMajor);

}  // namespace tpg::whatif
