#include <QTest>
#include <vector>

#include "graph/Schema.h"
#include "TensorText.h"

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
    void printsLikeXla() {
        auto f = row(13, {64, 128, 56, 56}, {1, 0, 3, 2});
        QCOMPARE(tensorString(f.data(), 140), QStringLiteral("f32[64,128,56,56]{1,0,3,2}"));
        auto b = row(15, {8, 128}, {1, 0});
        QCOMPARE(tensorString(b.data(), 140), QStringLiteral("bf16[8,128]{1,0}"));
        auto p = row(3, {7}, {0});
        QCOMPARE(tensorString(p.data(), 140), QStringLiteral("pred[7]{0}"));
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
