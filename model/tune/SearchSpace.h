#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"
#include "synth/TpuCostModel.h"
#include "whatif/ConfigEdit.h"

namespace tpg::tune {

// One thing a search may change in a configuration row: a layout slot of a configurable node
// (6 values) or a tile bound (1 value; its group's sum and product follow), with the values it
// may take.
struct Coordinate {
    int32_t node = -1;  // layout: the configurable node; tile: -1
    whatif::LayoutSlot slot = whatif::LayoutSlot::Output;
    int column = -1;    // tile: the bounds column
    int64_t offset = 0, width = 0;          // where its values sit in a row
    std::vector<std::vector<float>> values;  // candidates, `width` floats each; [0] is the default
    double weight = 0;  // elements of the tensor it lays out or tiles: sweeps go heaviest first
    std::string name() const;  // "44.output" / "kernel_bounds_0"
};

// The configurations a search explores for one file. Layout: every usable slot of every
// configurable node, each the compiler default or a permutation of its tensor's dims (all of them
// up to rank 4; for rank 5 and 6 the default layout with each dim, then each pair of dims, moved
// most minor), plus the layouts the file's own rows use. Tile: every bound of the output, input
// and kernel tiles, each a valid tile size (lane dims in 128s, sublane dims in 8s, other dims in
// powers of two, or the whole dim), plus the file's own values.
class SearchSpace {
public:
    // Throws FormatError when nothing can be tuned: no configurable node, a trimmed copy whose
    // columns are unknown, or a tile kernel without tensors.
    SearchSpace(const TpuGraph& g, const synth::TpuCostModel& tpu);

    const std::vector<Coordinate>& coordinates() const { return m_coords; }
    int64_t rowWidth() const { return m_rowWidth; }
    bool isLayout() const { return m_layout; }
    double log10Size() const;  // log10 of the number of configurations it holds

    // Writes candidate `value` of coordinate `c` into `row`.
    void set(std::vector<float>& row, size_t c, size_t value) const;
    // Which candidate of coordinate `c` `row` holds; -1 when it holds another value.
    int valueOf(const std::vector<float>& row, size_t c) const;
    // What a change to coordinate `c` touches: its configurable node's index (layout; the model
    // re-scores per node) or its column (tile).
    int unitOf(size_t c) const { return m_unit[c]; }

private:
    void addLayoutCoordinates(const TpuGraph& g, const synth::TpuCostModel& tpu);
    void addTileCoordinates(const TpuGraph& g, const synth::TpuCostModel& tpu);
    void addValuesFromFile(const TpuGraph& g);

    bool m_layout = true;
    int64_t m_rowWidth = 0;
    std::vector<Coordinate> m_coords;
    std::vector<int> m_unit;
};

}  // namespace tpg::tune
