// The tile lesson's scenario, read off generated kernels: the narrow step changes only the output's
// lane bound and leaves lanes idle, the whole step makes one tile, and the figures are the
// synthetic TPU's.
#include <QtTest>

#include "graph/Schema.h"
#include "lesson/TileLesson.h"
#include "synth/SyntheticDataset.h"

using namespace tpg;
using namespace tpg::lesson;

class TestTileLesson : public QObject {
    Q_OBJECT

private slots:
    void everyKindOfKernelTeachesIt() {
        using synth::Recipe;
        for (Recipe recipe : {Recipe::ConvKernel, Recipe::DotKernel, Recipe::SoftmaxKernel})
            for (uint64_t seed = 1; seed <= 4; ++seed) {
                const TpuGraph g = synth::makeTileGraph(recipe, seed, 60, "k");
                const synth::TpuCostModel tpu(g);
                const auto s = findTileLesson(g, tpu);
                QVERIFY2(s.has_value(), qPrintable(QStringLiteral("recipe %1 seed %2")
                                                       .arg(static_cast<int>(recipe))
                                                       .arg(seed)));
                const synth::TpuCostModel::TileTensors t = tpu.tileTensors();
                QCOMPARE(s->output, t.outputNode);
                QCOMPARE(s->laneDim, t.outputLayout.front());
                QCOMPARE(s->laneColumn, outputBoundColumn(s->laneDim));
                QCOMPARE(schema::tileConfigFeatureNames()[static_cast<size_t>(s->laneColumn)],
                         "output_bounds_" + std::to_string(s->laneDim));
                // The start cuts the output into several tiles, its lane tile wider than one.
                QVERIFY(s->startCost.tile.numTiles > 1);
                QVERIFY(outputTileSize(tpu, s->startRow, s->laneDim) > 1);
                // Narrow: the lane bound alone (and its group's sum and product) change; one lane
                // wide, fewer useful elements, slower.
                QCOMPARE(outputTileSize(tpu, s->narrowRow, s->laneDim), int64_t{1});
                for (int c = 0; c < schema::kTileConfigWidth; ++c)
                    if (c / 8 != s->laneColumn / 8)
                        QCOMPARE(s->narrowRow[static_cast<size_t>(c)],
                                 s->startRow[static_cast<size_t>(c)]);
                QVERIFY(s->narrowCost.tile.utilisation < s->startCost.tile.utilisation);
                QVERIFY(s->narrowCost.totalNs > s->startCost.totalNs);
                // Whole: one tile, every output bound its dimension's size, the rest as at the
                // start.
                QCOMPARE(s->wholeCost.tile.numTiles, int64_t{1});
                QCOMPARE(s->outputColumns.size(), s->dims.size());
                for (size_t d = 0; d < s->dims.size(); ++d)
                    QCOMPARE(s->wholeRow[static_cast<size_t>(s->outputColumns[d])],
                             static_cast<float>(s->dims[d]));
                QCOMPARE(std::vector<float>(s->wholeRow.begin(), s->wholeRow.begin() + 8),
                         std::vector<float>(s->startRow.begin(),
                                            s->startRow.begin() + 8));  // kernel bounds
                // The figures are the synthetic TPU's own.
                QCOMPARE(s->startCost.totalNs, tpu.explainTile(s->startRow.data()).totalNs);
                QCOMPARE(s->narrowCost.totalNs, tpu.tileRuntime(s->narrowRow.data()));
            }
    }

    void aLayoutFileHasNone() {
        const TpuGraph g = synth::makeLayoutGraph(synth::Recipe::ResNet, 1, 200, 8,
                                                  synth::LayoutSearch::Random, "r");
        QVERIFY(!findTileLesson(g, synth::TpuCostModel(g)).has_value());
    }
};

QTEST_GUILESS_MAIN(TestTileLesson)
#include "test_tile_lesson.moc"
