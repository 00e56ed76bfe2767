#include "ReadingText.h"

#include <QObject>

namespace tpg {

QString readingLayoutsText() {
    return QObject::tr(
        "<p>A layout is a <b>minor-to-major</b> list of tensor dimensions: <tt>{1,0,2}</tt> on a "
        "3-D tensor means dimension 1 is the most minor (its elements are adjacent in memory) and "
        "dimension 2 the most major. <b>default</b> means the compiler chooses.</p>"
        "<p>A TPU stores the two most-minor dimensions in 8 x 128 tiles, so a small dimension "
        "placed most-minor wastes memory as padding. When a producer's layout differs from what "
        "its consumer wants, the compiler inserts a copy (transpose) between them.</p>"
        "<p>Edges are drawn from producer to consumer (the file's [u, v] means u consumes v).</p>");
}

QString readingTilesText(const synth::TpuParameters& p) {
    const QString mib = QString::number(p.vmemBytes / (1024.0 * 1024.0), 'g', 4);
    return QObject::tr(
               "<p>A tile file times one <b>kernel</b> (a fused computation) under many tile "
               "configurations. Its loop computes the output one <b>tile</b> at a time: "
               "<tt>output_bounds_i</tt> is the tile's size along dimension i of the kernel's "
               "output, <tt>input_bounds_i</tt> and <tt>kernel_bounds_i</tt> the sizes of the "
               "operand tiles its convolution or dot reads (0: the whole dimension). The sums and "
               "products are derived from them.</p>"
               "<p>By the synthetic TPU a tile costs:</p><ul>"
               "<li>a step of the loop, %1 ns per tile: many small tiles add up;</li>"
               "<li>idle lanes: a vector register holds %2 sublanes x %3 lanes, so a tile narrower "
               "than %3 along the most-minor dimension of the output's layout (or shorter than %2 "
               "along the next) computes the rest for nothing (charged x%4 at most);</li>"
               "<li>partial tiles: a size that does not divide its dimension computes past the "
               "tensor's edge;</li>"
               "<li>memory: the double-buffered tiles must fit the %5 MiB of on-chip memory, or "
               "the kernel spills: its work and exposed traffic take x%6 as long;</li>"
               "<li>traffic: each tile's operands are fetched (%7 ns of DMA set-up each) while the "
               "previous tile computes; a single tile has nothing to overlap them with.</li></ul>"
               "<p><b>Explain</b> draws the chosen configuration's tiles over the kernel's output "
               "(select the input or kernel for theirs); <b>What-if</b> edits a bound and its "
               "<b>Sweep</b> times every size of it; <b>Help › Learn: How Tile Sizes Affect "
               "Runtime</b> walks through a narrow tile and a single one.</p>")
        .arg(p.perTileOverheadNs)
        .arg(p.tileSublanes)
        .arg(p.tileLanes)
        .arg(p.maxPaddingRatio)
        .arg(mib)
        .arg(p.spillFactor)
        .arg(p.dmaOverheadNs);
}

}  // namespace tpg
