#include <QTest>
#include <vector>

#include "CountText.h"
#include "MemoryTiling.h"
#include "TensorText.h"
#include "graph/Schema.h"

using namespace tpg;

class TestTensorText : public QObject {
    Q_OBJECT

    static std::vector<float> row(int typeColumn, std::vector<float> dims,
                                  std::vector<float> layout) {
        std::vector<float> f(schema::kNodeFeatureWidth, 0.0f);
        f[static_cast<size_t>(typeColumn)] = 1;
        for (size_t i = 0; i < dims.size(); ++i) f[schema::kShapeDimColumn + i] = dims[i];
        for (size_t i = 0; i < layout.size(); ++i) f[schema::kNodeLayoutColumn + i] = layout[i];
        return f;
    }

private slots:
    // Counts read as English whatever the number: the explorer had shown "1 tiles", "1 configurable
    // nodes lay out differently" and, through tr's untranslated %n, "node(s)".
    void countsReadAsEnglish() {
        const QString node = QStringLiteral("node"), nodes = QStringLiteral("nodes");
        QCOMPARE(countOf(0, node, nodes), QStringLiteral("0 nodes"));
        QCOMPARE(countOf(1, node, nodes), QStringLiteral("1 node"));
        QCOMPARE(countOf(2, node, nodes), QStringLiteral("2 nodes"));
        QCOMPARE(countOf(44941, node, nodes), QStringLiteral("44,941 nodes"));
    }

    void printsLikeXla() {
        auto f = row(13, {64, 128, 56, 56}, {1, 0, 3, 2});
        QCOMPARE(tensorString(f.data(), 140), QStringLiteral("f32[64,128,56,56]{1,0,3,2}"));
        auto b = row(15, {8, 128}, {1, 0});
        QCOMPARE(tensorString(b.data(), 140), QStringLiteral("bf16[8,128]{1,0}"));
        auto p = row(3, {7}, {0});
        QCOMPARE(tensorString(p.data(), 140), QStringLiteral("pred[7]{0}"));
    }

    // The memory picture's arithmetic: (8 x 128) tiles of the two most-minor dimensions, the rest
    // as planes, padding as the synthetic TPU charges it.
    void memoryTilingFollowsTheLayout() {
        auto b = row(15, {16, 256, 7, 7}, {1, 3, 2, 0});
        const TensorShape shape = tensorShape(b.data(), 140);
        const MemoryTiling good = memoryTiling(shape, {});
        QVERIFY(good.drawable);
        QCOMPARE(good.notation, QStringLiteral("bf16[16,256,7,7]{1,3,2,0:T(8,128)(2,1)}"));
        QCOMPARE(good.minor, int64_t{256});
        QCOMPARE(good.second, int64_t{7});
        QCOMPARE(good.tilesAcross, int64_t{2});
        QCOMPARE(good.tilesDown, int64_t{1});
        QCOMPARE(good.planes, int64_t{7} * 16);
        QCOMPARE(good.paddedRatio, 8.0 / 7.0);
        QVERIFY(!good.smallerTile);
        QCOMPARE(good.usedBytes, 16.0 * 256 * 7 * 7 * 2);

        // The feature dimension no longer minor: 7 of 128 lanes used, beyond the cap.
        const MemoryTiling bad = memoryTiling(shape, {3, 1, 0, 2});
        QCOMPARE(bad.notation, QStringLiteral("bf16[16,256,7,7]{3,1,0,2:T(8,128)(2,1)}"));
        QCOMPARE(bad.paddedRatio, 128.0 / 7.0);
        QCOMPARE(bad.chargedRatio, 8.0);
        QVERIFY(bad.smallerTile);

        auto f = row(13, {64, 3}, {0, 1});
        const MemoryTiling small = memoryTiling(tensorShape(f.data(), 140), {});
        QCOMPARE(small.notation, QStringLiteral("f32[64,3]{0,1:T(8,128)}"));
        QCOMPARE(small.paddedRatio, (128.0 * 8.0) / (64.0 * 3.0));
        QVERIFY(!memoryTiling(tensorShape(row(6, {}, {}).data(), 140), {}).drawable);
    }

    // A tile configuration's tiles over a tensor: the two most-minor dimensions of its layout
    // cut into the tile's bounds (dimension order), the others counted as planes of tiles, the
    // last tile along a dimension the bound does not divide partial.
    void kernelTilingCutsTheTensorIntoTheConfiguredTiles() {
        auto o = row(15, {128, 3072}, {1, 0});
        const TensorShape out = tensorShape(o.data(), 140);
        const MemoryTiling narrow = kernelTiling(out, {1, 0}, {16, 2});
        QVERIFY(narrow.drawable);
        QVERIFY(narrow.grid == MemoryTiling::Grid::KernelTile);
        QCOMPARE(narrow.notation, QStringLiteral("bf16[128,3072]{1,0} in [16,2] tiles"));
        QCOMPARE(narrow.tileCols, 2);
        QCOMPARE(narrow.tileRows, 16);
        QCOMPARE(narrow.tilesAcross, int64_t{1536});
        QCOMPARE(narrow.tilesDown, int64_t{8});
        QCOMPARE(narrow.planes, int64_t{1});
        QCOMPARE(narrow.paddedRatio, 1.0);

        // 0 and a bound beyond its dimension tile all of it; 100 leaves a partial tile.
        const MemoryTiling partial = kernelTiling(out, {1, 0}, {100, 0});
        QCOMPARE(partial.notation, QStringLiteral("bf16[128,3072]{1,0} in [100,3072] tiles"));
        QCOMPARE(partial.tilesAcross, int64_t{1});
        QCOMPARE(partial.tilesDown, int64_t{2});
        QCOMPARE(partial.paddedRatio, 200.0 / 128.0);
        QCOMPARE(kernelTiling(out, {1, 0}, {5000, 9000}).tilesDown, int64_t{1});

        // Minor dim 1, second dim 3, planes along dims 2 and 0: ceil(7/3) x ceil(16/4).
        auto c = row(15, {16, 256, 7, 7}, {1, 3, 2, 0});
        const MemoryTiling conv =
            kernelTiling(tensorShape(c.data(), 140), {1, 3, 2, 0}, {4, 128, 3, 7});
        QCOMPARE(conv.tileCols, 128);
        QCOMPARE(conv.tileRows, 7);
        QCOMPARE(conv.tilesAcross, int64_t{2});
        QCOMPARE(conv.tilesDown, int64_t{1});
        QCOMPARE(conv.planes, int64_t{3} * 4);
        QCOMPARE(conv.paddedRatio, 9.0 / 7.0);
        QVERIFY(!kernelTiling(tensorShape(row(6, {}, {}).data(), 140), {}, {}).drawable);
    }

    void scalarHasNoDimensions() {
        auto f = row(6, {}, {});
        QCOMPARE(tensorString(f.data(), 140), QStringLiteral("s32[]"));
    }

    void layoutRevealsAZeroSizedDimension() {
        // dims (5, 0): the 0 pads like a missing dimension, but the layout names axis 1.
        auto f = row(13, {5, 0}, {0, 1});
        QCOMPARE(tensorString(f.data(), 140), QStringLiteral("f32[5,0]{0,1}"));
    }

    void invalidLayoutIsLeftOut() {
        auto f = row(13, {4, 4, 4}, {0, 0, 0});  // not a permutation: no layout recorded
        QCOMPARE(tensorString(f.data(), 140), QStringLiteral("f32[4,4,4]"));
    }

    void tuple() {
        auto f = row(18, {}, {});
        f[29] = 3;
        QCOMPARE(tensorString(f.data(), 140), QStringLiteral("(tuple, 3 elements)"));
    }

    void trimmedRowIsUnknown() {
        std::vector<float> f(100, 1.0f);
        QCOMPARE(tensorString(f.data(), 100), QStringLiteral("?"));
        QVERIFY(!tensorShape(f.data(), 100).known);
    }

    void configLayouts() {
        const float def[6] = {-1, -1, -1, -1, -1, -1};
        QCOMPARE(layoutString(def, 6), QStringLiteral("default"));
        QVERIFY(isDefaultLayout(def, 6));
        const float l[6] = {1, 0, 2, -1, -1, -1};
        QCOMPARE(layoutString(l, 6), QStringLiteral("{1,0,2}"));
        QVERIFY(!isDefaultLayout(l, 6));
    }
};

QTEST_MAIN(TestTensorText)
#include "test_tensor_text.moc"
