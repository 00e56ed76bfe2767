#pragma once

#include <QString>

#include "synth/TpuCostModel.h"

namespace tpg {

// Help › Reading Layouts: the minor-to-major notation, (8 x 128) tiles, copies, edge direction.
QString readingLayoutsText();
// Help › Reading Tiles: what a tile file's configuration sets, and what makes a tile fast or slow
// on the synthetic TPU, its figures read from `p` so the text says what the explorer computes.
QString readingTilesText(const synth::TpuParameters& p = {});

}  // namespace tpg
