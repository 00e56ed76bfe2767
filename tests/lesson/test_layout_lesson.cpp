// The lesson's scenario, found in generated programs: the edit adds exactly the copy it says,
// the consumer's edit removes it, and the figures are the synthetic TPU's.
#include <QtTest>

#include "lesson/LayoutLesson.h"
#include "synth/SyntheticDataset.h"

using namespace tpg;
using namespace tpg::lesson;

namespace {

std::vector<float> rowOf(const TpuGraph& g, int64_t c) {
    const auto& t = *g.layoutConfigs();
    std::vector<float> row(static_cast<size_t>(t.rowSize()));
    t.read(c, 1, row.data());
    return row;
}

std::vector<float> defaultRow(const TpuGraph& g) {
    return std::vector<float>(static_cast<size_t>(g.layoutConfigs()->rowSize()), -1.0f);
}

// Configurable nodes whose layout slots differ between two rows.
std::vector<int32_t> differingNodes(const TpuGraph& g, const std::vector<float>& a, const std::vector<float>& b) {
    std::vector<int32_t> nodes;
    const size_t width = a.size() / g.configurableNodes().size();
    for (size_t k = 0; k < g.configurableNodes().size(); ++k)
        if (!std::equal(a.begin() + k * width, a.begin() + (k + 1) * width, b.begin() + k * width))
            nodes.push_back(g.configurableNodes()[k]);
    return nodes;
}

}  // namespace

class TestLayoutLesson : public QObject {
    Q_OBJECT
    TpuGraph m_resnet, m_transformer;

private slots:
    void initTestCase() {
        m_resnet = synth::makeLayoutGraph(synth::Recipe::ResNet, 3, 400, 40, synth::LayoutSearch::Random, "r");
        m_transformer =
            synth::makeLayoutGraph(synth::Recipe::Transformer, 5, 400, 40, synth::LayoutSearch::Random, "t");
    }

    void editAddsTheCopyAndTheConsumersEditRemovesIt() {
        const synth::TpuCostModel tpu(m_resnet);
        const auto l = findLayoutLesson(m_resnet, tpu, defaultRow(m_resnet));
        QVERIFY(l.has_value());
        QCOMPARE(QString::fromStdString(m_resnet.opcodeName(l->producer)), QStringLiteral("convolution"));
        QCOMPARE(l->startRow, withOperandLayoutsWritten(m_resnet, tpu, defaultRow(m_resnet)));
        QCOMPARE(differingNodes(m_resnet, l->startRow, l->badRow), std::vector<int32_t>{l->producer});
        QCOMPARE(differingNodes(m_resnet, l->badRow, l->fixedRow), std::vector<int32_t>{l->consumer()});
        QCOMPARE(whatif::layoutOf(m_resnet, l->badRow, l->producer, whatif::LayoutSlot::Output), l->badLayout);
        QCOMPARE(whatif::layoutOf(m_resnet, l->fixedRow, l->consumer(), l->consumerSlot), l->fixLayout());
        QVERIFY(l->badLayout != l->startLayout);
        const int32_t p = l->copy.producer, c = l->consumer();
        QVERIFY(!copyBetween(l->start, p, c));
        QVERIFY(copyBetween(l->bad, p, c));
        QVERIFY(!copyBetween(l->fixed, p, c));
        QVERIFY(l->copy.copyNs > 0);
        // The copied tensor is the edited node's, or one its new layout propagated to.
        QVERIFY(p == l->producer || std::count(l->propagatedTo.begin(), l->propagatedTo.end(), p) == 1);
        for (int32_t n : l->propagatedTo)
            QVERIFY(l->bad.nodes[static_cast<size_t>(n)].outputLayout != l->start.nodes[static_cast<size_t>(n)].outputLayout);
        QVERIFY(l->bad.totalNs > l->start.totalNs);
        QVERIFY(l->fixed.totalNs < l->bad.totalNs);
        // The breakdowns are the synthetic TPU's for those rows.
        QCOMPARE(l->bad.totalNs, tpu.explainLayout(l->badRow.data()).totalNs);
        QCOMPARE(l->fixed.totalNs, tpu.layoutRuntime(l->fixedRow.data()));
    }

    void writingOperandLayoutsOutKeepsTheProgram() {
        const synth::TpuCostModel tpu(m_resnet);
        for (const std::vector<float>& row : {rowOf(m_resnet, 1), defaultRow(m_resnet)}) {
            const std::vector<float> pinned = withOperandLayoutsWritten(m_resnet, tpu, row);
            QCOMPARE(tpu.layoutRuntime(pinned.data()), tpu.layoutRuntime(row.data()));
            int unset = 0;
            for (int32_t v : m_resnet.configurableNodes())
                if (whatif::slotTensor(m_resnet, v, whatif::LayoutSlot::Input).usable)
                    unset += whatif::layoutOf(m_resnet, pinned, v, whatif::LayoutSlot::Input).empty();
            QCOMPARE(unset, 0);
        }
    }

    void fromAMeasuredConfiguration() {
        const synth::TpuCostModel tpu(m_transformer);
        const auto l = findLayoutLesson(m_transformer, tpu, rowOf(m_transformer, 0));
        QVERIFY(l.has_value());
        QVERIFY(copyBetween(l->bad, l->copy.producer, l->consumer()));
    }

    void sameScenarioEveryTime() {
        const synth::TpuCostModel tpu(m_resnet);
        const auto a = findLayoutLesson(m_resnet, tpu, defaultRow(m_resnet));
        const auto b = findLayoutLesson(m_resnet, tpu, defaultRow(m_resnet));
        QVERIFY(a && b);
        QCOMPARE(a->producer, b->producer);
        QCOMPARE(a->consumer(), b->consumer());
        QCOMPARE(a->badLayout, b->badLayout);
    }

    void aProgramWithoutConvolutionsTeachesWithADot() {
        const synth::TpuCostModel tpu(m_transformer);
        const auto l = findLayoutLesson(m_transformer, tpu, defaultRow(m_transformer));
        QVERIFY(l.has_value());
        QCOMPARE(QString::fromStdString(m_transformer.opcodeName(l->producer)), QStringLiteral("dot"));
        QVERIFY(copyBetween(l->bad, l->copy.producer, l->consumer()));
    }

    // The lesson looks at the compiler's default first, then at the fastest measured configuration;
    // a file without runtimes has none (a test split's zeros had made configuration 0 "the fastest
    // measured").
    void startsAreTheDefaultThenTheFastestMeasured() {
        const auto starts = layoutLessonStarts(m_resnet);
        QCOMPARE(starts.size(), size_t{2});
        QCOMPARE(starts[0].row, defaultRow(m_resnet));
        const auto& runtimes = m_resnet.runtimes();
        const int64_t best = std::min_element(runtimes.begin(), runtimes.end()) - runtimes.begin();
        QVERIFY(best != 0);
        QCOMPARE(starts[1].row, rowOf(m_resnet, best));
        QCOMPARE(starts[1].what,
                 "configuration " + std::to_string(best) + ", the fastest measured");

        TpuGraphData unmeasured = m_resnet.data();
        std::fill(unmeasured.runtimes.begin(), unmeasured.runtimes.end(), 0.0);
        const auto only = layoutLessonStarts(TpuGraph(std::move(unmeasured)));
        QCOMPARE(only.size(), size_t{1});
        QCOMPARE(only[0].row, defaultRow(m_resnet));
        QVERIFY(layoutLessonStarts(synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 10, "k"))
                    .empty());
    }

    void cancelledOrTileFindsNothing() {
        const synth::TpuCostModel tpu(m_resnet);
        QVERIFY(!findLayoutLesson(m_resnet, tpu, defaultRow(m_resnet), [](double) { return false; }));
        const TpuGraph tile = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 10, "k");
        const synth::TpuCostModel tileTpu(tile);
        QVERIFY(!findLayoutLesson(tile, tileTpu, tileTpu.defaultTileConfig()));
    }
};

QTEST_GUILESS_MAIN(TestLayoutLesson)
#include "test_layout_lesson.moc"
