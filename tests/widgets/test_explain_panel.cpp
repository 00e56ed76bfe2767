// The Explain dock as a user drives it (offscreen): a chosen configuration's breakdown, its top
// nodes and copies, the overlay handed to the graph, A/B comparison, a tile file.
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QHorizontalStackedBarSeries>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTreeWidget>
#include <QValueAxis>
#include <QtTest>
#include <cmath>
#include <numeric>

#include "DefaultModels.h"
#include "ExplainPanel.h"
#include "FilePredictions.h"
#include "JobRunner.h"
#include "MemoryLayoutView.h"
#include "MemoryTiling.h"
#include "PredictedFile.h"
#include "RuntimeText.h"
#include "ScreenFonts.h"
#include "TensorText.h"
#include "explain/CostExplanation.h"
#include "synth/SyntheticDataset.h"
#include "synth/TpuCostModel.h"
#include "whatif/ConfigEdit.h"

using namespace tpg;

namespace {

int64_t extreme(const TpuGraph& g, bool best) {
    const auto& r = g.runtimes();
    return (best ? std::min_element(r.begin(), r.end()) : std::max_element(r.begin(), r.end())) - r.begin();
}

}  // namespace

class TestExplainPanel : public QObject {
    Q_OBJECT
    TpuGraph m_layout, m_tile;

    // `g` opened as `name`, its predictions in (the model's figures join the explanations).
    static void openPredicted(ExplainPanel& panel, JobRunner& runner, const TpuGraph& g,
                              const QString& name) {
        panel.setGraph(g, name);
        panel.setPredictions(predictedFile(runner, name, g));
    }

    // The panel shown at `size`, the generated program's worst configuration explained.
    bool showWorstExplained(ExplainPanel& panel, JobRunner& runner, QSize size) const {
        QSignalSpy explained(&panel, &ExplainPanel::explained);
        panel.resize(size);
        panel.show();
        if (!QTest::qWaitForWindowExposed(&panel)) return false;
        openPredicted(panel, runner, m_layout, QStringLiteral("r.npz"));
        panel.setChosenConfig(extreme(m_layout, false));
        return explained.wait(30000);
    }

private slots:
    void initTestCase() {
        m_layout = synth::makeLayoutGraph(synth::Recipe::ResNet, 5, 400, 60, synth::LayoutSearch::Random, "r");
        // 400 configurations: about one in 110 tiles this kernel whole (one tile).
        m_tile = synth::makeTileGraph(synth::Recipe::ConvKernel, 4, 400, "k");
    }

    void chosenConfigurationIsExplainedAndComparedWithTheWorst() {
        JobRunner runner(QStringLiteral("model"));
        ExplainPanel panel;
        QSignalSpy overlay(&panel, &ExplainPanel::overlayChanged);
        QSignalSpy compared(&panel, &ExplainPanel::comparedNodesChanged);
        QSignalSpy explained(&panel, &ExplainPanel::explained);
        panel.setGraph(m_layout, QStringLiteral("r.npz"));
        const int64_t best = extreme(m_layout, true), worst = extreme(m_layout, false);
        panel.setPredictions(predictedFile(runner, QStringLiteral("r.npz"), m_layout));
        panel.setChosenConfig(best);
        QVERIFY(panel.busy());
        QVERIFY(explained.wait(30000));
        const QString header = panel.headerText();
        QVERIFY2(header.contains(QStringLiteral("configuration %1").arg(best)) && header.contains(QStringLiteral("ground truth")),
                 qPrintable(header));
        QVERIFY(panel.nodeList()->topLevelItemCount() > 0);
        QVERIFY(!panel.nodeList()->topLevelItem(0)->text(4).isEmpty());  // a reason
        auto* series = qobject_cast<QHorizontalStackedBarSeries*>(panel.chart()->chart()->series().value(0));
        QVERIFY(series && series->count() >= 4);  // compute, padding, layout preference, copies, ...
        double sum = 0;
        for (QBarSet* set : series->barSets()) sum += set->at(0);
        const auto& e = *panel.explanation();
        // The bar is the total, in the unit the axis names.
        const RuntimeUnit unit = runtimeUnitFor(e.summaryA.totalNs);
        QVERIFY(std::abs(sum * unit.nanoseconds - e.summaryA.totalNs) <= 1e-3 * e.summaryA.totalNs);
        QCOMPARE(panel.chart()->chart()->axes(Qt::Horizontal).front()->titleText(),
                 unit.name + " on the synthetic TPU");
        // The axis spans the bar on round ticks; a sliver of negative noise does not pull it
        // below 0 (its first label read "-0.00", its ticks 0.59, 1.18, ...).
        auto* axis =
            qobject_cast<QValueAxis*>(panel.chart()->chart()->axes(Qt::Horizontal).front());
        double positive = 0, negative = 0;
        for (QBarSet* set : series->barSets()) {
            if (set->at(0) < 0)
                negative += set->at(0);
            else
                positive += set->at(0);
        }
        QVERIFY(axis->max() >= positive);
        if (-negative < 0.01 * positive)
            QCOMPARE(axis->min(), 0.0);
        else
            QVERIFY(axis->min() <= negative);
        const double step = (axis->max() - axis->min()) / (axis->tickCount() - 1);
        const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
        QVERIFY2(std::abs(mantissa - std::round(mantissa * 2) / 2) < 1e-9,
                 qPrintable(QString::number(step)));
        // Round ticks read round: Qt's default format wrote "200.0".
        QVERIFY2(step >= 1, qPrintable(QString::number(step)));
        const double roundTick = axis->min() + step * 2;
        QCOMPARE(QString::asprintf(qPrintable(axis->labelFormat()), roundTick),
                     QString::number(roundTick, 'f', 0));
        const auto lastOverlay = overlay.last().at(0).value<ConfigOverlay>();
        QCOMPARE(lastOverlay.copies.size(), static_cast<qsizetype>(e.breakdownA.copies.size()));

        auto* bBox = panel.findChild<QSpinBox*>();
        QCOMPARE(bBox->text(), QStringLiteral("—"));  // no B yet
        explained.clear();
        panel.compareWith(worst);
        QVERIFY(explained.wait(30000));
        QCOMPARE(bBox->text(), QString::number(worst));
        const QString text = panel.comparisonText();
        QVERIFY2(text.contains(QStringLiteral("B is")) && text.contains(QStringLiteral("slower")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("The cost model predicts B")) && text.contains(QStringLiteral("the synthetic TPU: +")),
                 qPrintable(text));
        auto* both = qobject_cast<QHorizontalStackedBarSeries*>(panel.chart()->chart()->series().value(0));
        QCOMPARE(both->barSets().first()->count(), 2);  // A and B
        const auto marks = compared.last().at(0).value<QHash<int32_t, QString> >();
        QCOMPARE(static_cast<size_t>(marks.size()), panel.explanation()->comparison->differingNodes.size());
        QVERIFY(!marks.isEmpty());

        // The short columns fit their text: in a 240-px pane (the node list on a 1366-px screen)
        // the costs show; at Qt's default 100 px a column the cost column had begun at 200.
        panel.nodeList()->resize(240, 300);
        const QHeaderView* columns = panel.nodeList()->header();
        QVERIFY2(
            columns->sectionPosition(2) + columns->sectionSize(2) <= 240,
            qPrintable(QString::number(columns->sectionPosition(2) + columns->sectionSize(2))));
        for (int column = 0; column < 3; ++column) {
            const QString widest = panel.nodeList()->topLevelItem(0)->text(column);
            QVERIFY(columns->sectionSize(column) >=
                    panel.nodeList()->fontMetrics().horizontalAdvance(widest));
        }
        // A click on a row shows its node's memory; the global selection waits for a double-click.
        panel.resize(1366, 340);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QTreeWidgetItem* second = panel.nodeList()->topLevelItem(1);
        QSignalSpy activated(&panel, &ExplainPanel::nodeActivated);
        const QRect rowRect = panel.nodeList()->visualItemRect(second);
        QTest::mouseClick(panel.nodeList()->viewport(), Qt::LeftButton, {},
                          QPoint(10, rowRect.center().y()));
        QVERIFY2(panel.memoryView()->summaryText().startsWith(
                     QStringLiteral("#%1 ").arg(second->data(0, Qt::UserRole).toInt())),
                 qPrintable(panel.memoryView()->summaryText()));
        QCOMPARE(activated.count(), 0);
        // ... and its reason whole above the picture (the Why column starts off the 235-px list),
        // a copy's its own; the reason is every column's tooltip.
        const int secondNode = second->data(0, Qt::UserRole).toInt();
        const std::string& reason =
            panel.explanation()->breakdownA.nodes[static_cast<size_t>(secondNode)].reason;
        QVERIFY(!reason.empty());
        QVERIFY2(panel.whyText().startsWith(
                     QStringLiteral("Why #%1 takes %2: ").arg(secondNode).arg(second->text(2))) &&
                     panel.whyText().endsWith(QString::fromStdString(reason)),
                 qPrintable(panel.whyText()));
        QCOMPARE(second->toolTip(0), QString::fromStdString(reason));
        QTreeWidgetItem* copy = panel.copyList()->topLevelItem(0);
        QVERIFY(copy != nullptr);
        const QRect copyRect = panel.copyList()->visualItemRect(copy);
        QTest::mouseClick(panel.copyList()->viewport(), Qt::LeftButton, {},
                          QPoint(10, copyRect.center().y()));
        QVERIFY2(
            panel.whyText().startsWith(
                QStringLiteral("Why the copy %1 takes %2: ").arg(copy->text(0), copy->text(1))) &&
                panel.whyText().endsWith(copy->text(3)),
            qPrintable(panel.whyText()));
        QCOMPARE(copy->toolTip(1), copy->text(3));
        QTreeWidgetItem* first = panel.nodeList()->topLevelItem(0);
        emit panel.nodeList()->itemDoubleClicked(first, 0);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().at(0).toInt(), first->data(0, Qt::UserRole).toInt());

        // The memory picture of the costliest node, laid out as configuration A has it.
        const int node = first->data(0, Qt::UserRole).toInt();
        panel.selectNode(node);
        const MemoryTiling& t = panel.memoryView()->tiling();
        QVERIFY(t.drawable);
        QVERIFY2(panel.memoryView()->summaryText().contains(QStringLiteral("under configuration %1").arg(best)),
                 qPrintable(panel.memoryView()->summaryText()));
        QCOMPARE(t.minorDim, panel.explanation()->breakdownA.nodes[static_cast<size_t>(node)].outputLayout[0]);
        QVERIFY(t.notation.contains(QStringLiteral(":T(")));
        QImage shot(panel.memoryView()->size().expandedTo(QSize(380, 260)), QImage::Format_ARGB32);
        panel.memoryView()->resize(shot.size());
        panel.memoryView()->render(&shot);  // paints without trouble at any size
        panel.selectNode(-1);
        QVERIFY(!panel.memoryView()->tiling().drawable);

        // An edited row (the what-if editor's) is explained instead, live: config `worst`'s row
        // as an "edit" explains exactly like config `worst`.
        explained.clear();
        const auto& table = *m_layout.layoutConfigs();
        std::vector<float> row(static_cast<size_t>(table.rowSize()));
        table.read(worst, 1, row.data());
        panel.explainRow(row, QStringLiteral("the what-if edit"));
        QVERIFY(explained.wait(30000));
        QVERIFY(panel.headerText().contains(QStringLiteral("the what-if edit")));
        QCOMPARE(panel.explanation()->summaryA.totalNs, panel.explanation()->summaryB.totalNs);
        QVERIFY(panel.comparisonText().contains(QStringLiteral("What-if tab")));
        explained.clear();
        panel.setChosenConfig(best);
        QVERIFY(explained.wait(30000));

        // B a suggestion's row: the box no longer shows the number of the last B.
        explained.clear();
        panel.compareWithRow(row, QStringLiteral("suggestion 2"));
        QVERIFY(explained.wait(30000));
        QVERIFY2(panel.comparisonText().startsWith(QStringLiteral("B = suggestion 2")),
                 qPrintable(panel.comparisonText()));
        QCOMPARE(bBox->text(), QStringLiteral("—"));
        // B one node's layout away from A reads in the singular ("1 configurable nodes lay out
        // differently" had read so): an edit of a node whose layout the compiler passes on to no
        // other configurable node.
        const synth::TpuCostModel tpu(m_layout);
        std::vector<float> bestRow(static_cast<size_t>(table.rowSize()));
        table.read(best, 1, bestRow.data());
        const synth::CostBreakdown bestCost = tpu.explainLayout(bestRow.data());
        std::vector<float> oneAway;
        for (int32_t n : m_layout.configurableNodes()) {
            const int rank = whatif::slotTensor(m_layout, n, whatif::LayoutSlot::Output).rank();
            if (rank < 2) continue;
            std::vector<int> perm(static_cast<size_t>(rank));
            std::iota(perm.begin(), perm.end(), 0);
            if (whatif::layoutOf(m_layout, bestRow, n, whatif::LayoutSlot::Output) == perm)
                std::swap(perm[0], perm[1]);
            std::vector<float> edited = bestRow;
            whatif::applyLayoutEdit(m_layout, edited, {n, whatif::LayoutSlot::Output, perm});
            if (explain::compare(m_layout, bestCost, tpu.explainLayout(edited.data()), 1)
                    .differingNodes.size() == 1) {
                oneAway = edited;
                break;
            }
        }
        QVERIFY(!oneAway.empty());
        explained.clear();
        panel.compareWithRow(oneAway, QStringLiteral("one node changed"));
        QVERIFY(explained.wait(30000));
        QVERIFY2(panel.comparisonText().contains(
                     QStringLiteral(" 1 configurable node lays out differently. ")),
                 qPrintable(panel.comparisonText()));
        explained.clear();
        panel.compareWith(-1);
        QVERIFY(explained.wait(30000));
        QVERIFY(panel.comparisonText().isEmpty());
        QCOMPARE(bBox->text(), QStringLiteral("—"));
        using Marks = QHash<int32_t, QString>;
        QVERIFY(compared.last().at(0).value<Marks>().isEmpty());
    }

    // At a 1366-px screen's width the node list shows its short columns whole (a node's layout),
    // and the copy list too unless the memory picture beside them would go below its minimum:
    // Qt's split by size hints had cut both at 235 px, beside a picture of 350 px with nothing
    // in it until a click.
    void theListsShowTheirLayoutsWhole() {
        JobRunner runner(QStringLiteral("model"));
        ExplainPanel panel;
        QVERIFY(showWorstExplained(panel, runner, {1362, 330}));
        const MemoryLayoutView* memory = panel.findChild<MemoryLayoutView*>();
        QVERIFY(memory);
        QTreeWidget* lists[] = {panel.nodeList(), panel.copyList()};
        for (QTreeWidget* list : lists) {
            QVERIFY(list->topLevelItemCount() > 0);
            // The copies give way first where the memory picture would go below its minimum.
            const bool mayBeCut =
                list == panel.copyList() && memory->width() == memory->minimumWidth();
            int shortColumns = 0;
            for (int c = 0; c + 1 < list->columnCount(); ++c) {
                // Every short cell's text fits its column.
                for (int row = 0; row < list->topLevelItemCount(); ++row) {
                    const QTreeWidgetItem* item = list->topLevelItem(row);
                    QVERIFY2(
                        list->fontMetrics().horizontalAdvance(item->text(c)) < list->columnWidth(c),
                        qPrintable(item->text(c)));
                }
                shortColumns += list->columnWidth(c);
            }
            QVERIFY2(list->viewport()->width() >= shortColumns || mayBeCut,
                     qPrintable(QStringLiteral("%1 px of columns in a %2-px list")
                                    .arg(shortColumns)
                                    .arg(list->viewport()->width())));
        }
        QVERIFY(memory->width() >= memory->minimumWidth());
    }

    // At a 1024-px projector's width the node list shows each node's cost (the reason to look):
    // the compare row, "Compare A with B =" and five controls, had held the left pane so wide
    // that the list showed Node and Opcode only.
    void theNodeCostsShowAtAProjectorsWidth() {
        JobRunner runner(QStringLiteral("model"));
        ExplainPanel panel;
        QVERIFY(showWorstExplained(panel, runner, {1016, 340}));
        const QTreeWidget* list = panel.nodeList();
        QCOMPARE(list->headerItem()->text(2), QStringLiteral("Cost"));
        const int throughCost = list->columnWidth(0) + list->columnWidth(1) + list->columnWidth(2);
        QVERIFY2(list->viewport()->width() >= throughCost,
                 qPrintable(QStringLiteral("Node, Opcode and Cost take %1 px of a %2-px list")
                                .arg(throughCost)
                                .arg(list->viewport()->width())));
    }

    // At its narrowest the memory picture's key under the tiles ("1 × 4 tiles a plane · blue: the
    // tensor · grey: padding") wraps onto a second line: it was cut at "grey:" in a 282-px view.
    void theMemoryPictureWrapsItsKey() {
        const ScreenFonts screenFonts;
        MemoryLayoutView view;
        TensorShape shape;
        shape.known = true;
        shape.elementType = QStringLiteral("bf16");
        shape.dims = {16, 512, 4, 4};
        shape.minorToMajor = {1, 3, 2, 0};
        view.setTensor(QStringLiteral("#629 convolution under configuration 834"),
                       memoryTiling(shape, {}));
        view.resize(view.minimumWidth(), 260);
        const QImage image = view.grab().toImage();
        // The key is the text below the tiles: count its lines as bands of rows with ink, below
        // the tiles' bottom outline (the last row mostly dark).
        const auto inked = [&image](int y) {
            int dark = 0;
            for (int x = 0; x < image.width(); ++x) dark += qGray(image.pixel(x, y)) < 100 ? 1 : 0;
            return dark;
        };
        int tilesBottom = -1;
        for (int y = 0; y < image.height(); ++y)
            if (inked(y) > image.width() * 6 / 10) tilesBottom = y;
        QVERIFY(tilesBottom > 0);
        int lines = 0;
        bool inLine = false;
        for (int y = tilesBottom + 1; y < image.height(); ++y) {
            const bool ink = inked(y) > 0;
            if (ink && !inLine) ++lines;
            inLine = ink;
        }
        QVERIFY2(
            lines >= 2,
            qPrintable(
                QStringLiteral("%1 line(s) of key in a %2-px view").arg(lines).arg(image.width())));
    }

    // The chart at its smallest (the dock's height on a 1024 x 600 screen) keeps its axis: with the
    // legend below the bars, Qt Charts had cut every tick label and the axis title to "...". At the
    // right the legend takes width, of which the chart has more to spare.
    void theChartKeepsItsAxisWhenShort() {
        ExplainPanel panel;
        QSignalSpy explained(&panel, &ExplainPanel::explained);
        panel.resize(1016, 270);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setGraph(m_layout, QStringLiteral("r.npz"));
        panel.setChosenConfig(extreme(m_layout, true));
        QVERIFY(explained.wait(30000));
        QTRY_VERIFY(panel.chart()->height() <= 160);
        QTest::qWait(50);  // the chart lays out its axes on the next paint
        QStringList texts;
        for (QGraphicsItem* item : panel.chart()->scene()->items())
            if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible())
                texts << text->toPlainText();
        QVERIFY2(texts.contains(QStringLiteral("ms on the synthetic TPU")),
                 qPrintable(texts.join(QStringLiteral(" | "))));
        for (const QString& text : texts)  // Qt Charts elides with three dots
            QVERIFY2(!text.contains(QChar(0x2026)) && !text.endsWith(QStringLiteral("...")),
                     qPrintable(texts.join(QStringLiteral(" | "))));
    }

    // A chosen configuration is explained at once, without waiting for the file's predictions
    // (a 45,000-node file's take minutes, while the dock said "Choose a configuration" although
    // one was chosen); the model's figures join the comparison when the predictions come.
    void explainsBeforeThePredictions() {
        ExplainPanel panel;
        QSignalSpy explained(&panel, &ExplainPanel::explained);
        QSignalSpy overlay(&panel, &ExplainPanel::overlayChanged);
        panel.setGraph(m_layout, QStringLiteral("r.npz"));
        const int64_t best = extreme(m_layout, true), worst = extreme(m_layout, false);
        panel.setChosenConfig(best);
        panel.compareWith(worst);
        QVERIFY(explained.wait(30000));
        QVERIFY2(panel.headerText().contains(QStringLiteral("configuration %1").arg(best)) &&
                     panel.headerText().contains(QStringLiteral("ground truth")),
                 qPrintable(panel.headerText()));
        QVERIFY(panel.nodeList()->topLevelItemCount() > 0);
        QVERIFY(!overlay.isEmpty());
        QVERIFY2(panel.comparisonText().contains(QStringLiteral("B is")) &&
                     panel.comparisonText().contains(QStringLiteral(
                         "The cost model's view comes when this file's predictions finish")),
                 qPrintable(panel.comparisonText()));
        const QString selected = panel.nodeList()->topLevelItem(1)->text(0);
        panel.nodeList()->setCurrentItem(panel.nodeList()->topLevelItem(1));
        JobRunner runner(QStringLiteral("model"));
        explained.clear();
        panel.setPredictions(predictedFile(runner, QStringLiteral("r.npz"), m_layout));
        QVERIFY2(panel.comparisonText().contains(QStringLiteral("The cost model predicts B")),
                 qPrintable(panel.comparisonText()));
        // The explanation stands: nothing recomputed, the list and its selection kept.
        QCOMPARE(explained.count(), 0);
        QVERIFY(!panel.busy());
        QCOMPARE(panel.nodeList()->currentItem()->text(0), selected);
    }

    // A real file's header says the synthetic TPU is an estimate, and its Kendall against the
    // file's measurements once the predictions bring it.
    void aRealFileIsAnEstimateUntilItsKendallComes() {
        TpuGraphData d = m_layout.data();
        for (size_t i = 0; i < d.runtimes.size();
             ++i)  // "measured": not the synthetic TPU's figures
            d.runtimes[i] *= 1.0 + 0.01 * static_cast<double>(i % 7);
        const TpuGraph real(std::move(d));
        ExplainPanel panel;
        QSignalSpy explained(&panel, &ExplainPanel::explained);
        panel.setGraph(real, QStringLiteral("real.npz"));
        panel.setChosenConfig(0);
        QVERIFY(explained.wait(30000));
        QVERIFY2(panel.headerText().contains(QStringLiteral(
                     "its Kendall against this file's measurements comes with the predictions")),
                 qPrintable(panel.headerText()));
        JobRunner runner(QStringLiteral("model"));
        panel.setPredictions(predictedFile(runner, QStringLiteral("real.npz"), real));
        QVERIFY2(panel.headerText().contains(
                     QStringLiteral("an estimate of the synthetic TPU: Kendall ")),
                 qPrintable(panel.headerText()));
    }

    // Another file opened while an explanation is on its way: the stale result is dropped.
    // Behind another tab (the app's Configurations tab, say) an explanation fills the panel (its
    // texts, chart and lists) only once the panel is shown, as they were a fifth of the GUI
    // thread's work for each configuration chosen on a 45,000-node file; the graph's overlay comes
    // at once.
    void aHiddenPanelFillsItsChartAndListsWhenShown() {
        JobRunner runner(QStringLiteral("model"));
        QTabWidget tabs;
        auto* table = new QWidget;
        auto* panel = new ExplainPanel;
        tabs.addTab(table, QStringLiteral("Configurations"));
        tabs.addTab(panel, QStringLiteral("Explain"));
        tabs.resize(1000, 400);
        tabs.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tabs));
        QVERIFY(!panel->isVisible());
        QSignalSpy overlay(panel, &ExplainPanel::overlayChanged);
        QSignalSpy explained(panel, &ExplainPanel::explained);
        openPredicted(*panel, runner, m_layout, QStringLiteral("r.npz"));
        const int64_t worst = extreme(m_layout, false);
        panel->setChosenConfig(worst);
        QVERIFY(explained.wait(30000));
        QVERIFY(!overlay.isEmpty());
        QVERIFY(!panel->headerText().contains(QStringLiteral("configuration %1").arg(worst)));
        QCOMPARE(panel->nodeList()->topLevelItemCount(), 0);

        tabs.setCurrentWidget(panel);
        QVERIFY(panel->isVisible());
        QVERIFY2(panel->headerText().contains(QStringLiteral("configuration %1").arg(worst)),
                 qPrintable(panel->headerText()));
        QVERIFY(panel->detailsText().contains(QStringLiteral("violation ratio")));
        QVERIFY(panel->nodeList()->topLevelItemCount() > 0);
        const auto top = explain::costliestNodes(panel->explanation()->breakdownA, 1);
        QCOMPARE(panel->nodeList()->topLevelItem(0)->data(0, Qt::UserRole).toInt(),
                 top.front()->node);
        auto* series =
            qobject_cast<QHorizontalStackedBarSeries*>(panel->chart()->chart()->series().value(0));
        QVERIFY(series && series->count() >= 4);

        // Shown, the next explanation fills them at once.
        const int64_t best = extreme(m_layout, true);
        panel->setChosenConfig(best);
        QVERIFY(explained.wait(30000));
        QCOMPARE(panel->nodeList()->topLevelItem(0)->data(0, Qt::UserRole).toInt(),
                 explain::costliestNodes(panel->explanation()->breakdownA, 1).front()->node);
    }

    void staleExplanationIsDropped() {
        JobRunner runner(QStringLiteral("model"));
        ExplainPanel panel;
        QSignalSpy explained(&panel, &ExplainPanel::explained);
        openPredicted(panel, runner, m_layout, QStringLiteral("r.npz"));
        panel.setChosenConfig(0);
        QVERIFY(panel.busy());
        panel.setGraph(m_tile, QStringLiteral("k.npz"));
        QVERIFY(!panel.busy());
        QTest::qWait(500);
        QCOMPARE(explained.count(), 0);
        QVERIFY(!panel.explanation());
    }

    void tileFileShowsItsTileTerms() {
        JobRunner runner(QStringLiteral("model"));
        ExplainPanel panel;
        QSignalSpy explained(&panel, &ExplainPanel::explained);
        openPredicted(panel, runner, m_tile, QStringLiteral("k.npz"));
        panel.setChosenConfig(2);
        QVERIFY(explained.wait(30000));
        QVERIFY(panel.explanation()->summaryA.categoryNs("tile launch") > 0);
        // Microseconds in microseconds (they were 0.0xx ms).
        QVERIFY(panel.explanation()->summaryA.totalNs < 1e6);
        QCOMPARE(
            panel.chart()->chart()->axes(Qt::Horizontal).front()->titleText(),
            runtimeUnitFor(panel.explanation()->summaryA.totalNs).name + " on the synthetic TPU");
        QVERIFY(!panel.chart()
                     ->chart()
                     ->axes(Qt::Horizontal)
                     .front()
                     ->titleText()
                     .startsWith(QStringLiteral("ms")));
        // The graph's cost colours get the kernel's nodes (the overlay had been empty on tile
        // files, so every *Colour:* measure read "0 → 0 ns"); this kernel's layouts agree: no
        // copies.
        const ConfigOverlay& overlay = panel.explanation()->overlay;
        QVERIFY(overlay.copies.isEmpty());
        QCOMPARE(static_cast<int64_t>(overlay.totalNs.size()), m_tile.numNodes());
        const double padding =
            std::accumulate(overlay.paddingNs.begin(), overlay.paddingNs.end(), 0.0);
        QVERIFY(std::abs(padding - panel.explanation()->summaryA.categoryNs("padding")) <=
                1e-6 * (1 + padding));
        QVERIFY(*std::max_element(overlay.totalNs.begin(), overlay.totalNs.end()) > 0);
        // Its line counts tiles in English ("· 1 tiles ·" had read so), after its copies.
        const int64_t tiles = panel.explanation()->breakdownA.tile.numTiles;
        const QString tileText =
            tiles == 1
                ? QStringLiteral(" · 1 tile · ")
                : QStringLiteral(" · %1 tiles · ").arg(QLocale(QLocale::English).toString(tiles));
        QVERIFY2(panel.detailsText().contains(tileText), qPrintable(panel.detailsText()));
        QVERIFY2(panel.detailsText().startsWith(
                     QStringLiteral("%1 cop").arg(panel.explanation()->summaryA.copies)),
                 qPrintable(panel.detailsText()));
        // A configuration of one tile (the whole kernel at once) says so in the singular.
        const synth::TpuCostModel tpu(m_tile);
        int64_t oneTile = -1;
        for (int64_t c = 0; c < m_tile.numConfigs() && oneTile < 0; ++c)
            if (tpu.explainTile(m_tile.tileConfig(c)).tile.numTiles == 1) oneTile = c;
        QVERIFY(oneTile >= 0);
        explained.clear();
        panel.setChosenConfig(oneTile);
        QVERIFY(explained.wait(30000));
        QVERIFY2(panel.detailsText().contains(QStringLiteral(" · 1 tile · ")),
                 qPrintable(panel.detailsText()));
        QVERIFY(panel.copyList()->isHidden());         // no copies here
        QVERIFY(panel.nodeList()->isColumnHidden(3));  // Layout
        // B against A on a tile file counts the bounds that differ ("0 configurable nodes lay out
        // differently" had been said of every tile comparison).
        const int64_t other = oneTile == 0 ? 1 : 0;
        int bounds = 0;
        for (int64_t i = 0; i < m_tile.configFeatureWidth(); ++i)
            bounds += m_tile.tileConfig(oneTile)[i] != m_tile.tileConfig(other)[i] &&
                      whatif::isTileBoundColumn(m_tile, i);
        QVERIFY(bounds > 0);
        explained.clear();
        panel.compareWith(other);
        QVERIFY(explained.wait(30000));
        const QString says = bounds == 1 ? QStringLiteral(". 1 tile bound differs")
                                         : QStringLiteral(". %1 tile bounds differ").arg(bounds);
        QVERIFY2(panel.comparisonText().contains(says) &&
                     !panel.comparisonText().contains(QStringLiteral("configurable")),
                 qPrintable(panel.comparisonText()));
        // ...and which tiles: the one tile of the whole output against B's, and the counts.
        const synth::TileCost& tileA = panel.explanation()->breakdownA.tile;
        const synth::TileCost& tileB = panel.explanation()->breakdownB.tile;
        const auto tileSizes = [this](const std::array<int64_t, 6>& tile) {
            QStringList sizes;
            for (size_t i = 0; i < synth::TpuCostModel(m_tile).tileTensors().output.size(); ++i)
                sizes << QString::number(tile[i]);
            return QStringLiteral("[%1]").arg(sizes.join(QLatin1Char(',')));
        };
        QVERIFY(tileA.numTiles == 1 && tileB.numTiles > 1);
        const QString changed = QStringLiteral("output %1 → %2")
                                    .arg(tileSizes(tileA.outputTile), tileSizes(tileB.outputTile));
        const QString counts = QStringLiteral("; 1 → %1 tiles")
                                   .arg(QLocale(QLocale::English).toString(tileB.numTiles));
        QVERIFY2(
            panel.comparisonText().contains(changed) && panel.comparisonText().contains(counts),
            qPrintable(panel.comparisonText()));
        // A kernel whose fixed layouts disagree has a copy, listed as a layout file's are (the
        // list had been hidden on every tile file, and its details had counted no copies).
        TpuGraph withCopy;
        for (uint64_t seed = 1; seed <= 40 && withCopy.isNull(); ++seed) {
            const TpuGraph k = synth::makeTileGraph(synth::Recipe::ConvKernel, seed, 4, "c");
            if (!synth::TpuCostModel(k).explainTile(k.tileConfig(0)).copies.empty()) withCopy = k;
        }
        QVERIFY(!withCopy.isNull());
        panel.setGraph(withCopy, QStringLiteral("c.npz"));
        explained.clear();
        panel.setChosenConfig(0);
        QVERIFY(explained.wait(30000));
        const int copies = panel.explanation()->summaryA.copies;
        QVERIFY(copies > 0);
        QVERIFY2(
            panel.detailsText().startsWith(copies == 1 ? QStringLiteral("1 copy (")
                                                       : QStringLiteral("%1 copies (").arg(copies)),
            qPrintable(panel.detailsText()));
        QVERIFY(!panel.copyList()->isHidden());
        QCOMPARE(panel.copyList()->topLevelItemCount(), copies);
        panel.setGraph(m_layout, QStringLiteral("r.npz"));
        QVERIFY(!panel.copyList()->isHidden());
        QVERIFY(!panel.nodeList()->isColumnHidden(3));
    }

    // A tile configuration is drawn as what it sets: the tiles its bounds cut the kernel's output
    // into (the memory picture had asked for a node, then drawn the (8 x 128) registers, which no
    // tile bound changes), its input's and kernel's when those are selected, a what-if edit's as
    // the edit goes.
    void aTileConfigurationDrawsItsTiles() {
        JobRunner runner(QStringLiteral("model"));
        ExplainPanel panel;
        QSignalSpy explained(&panel, &ExplainPanel::explained);
        openPredicted(panel, runner, m_tile, QStringLiteral("k.npz"));
        const synth::TpuCostModel tpu(m_tile);
        const synth::TpuCostModel::TileTensors tensors = tpu.tileTensors();
        QVERIFY(tensors.outputNode >= 0 && tensors.inputNode >= 0 && tensors.kernelNode >= 0);
        const auto tilesDrawn = [&panel] {
            const MemoryTiling& t = panel.memoryView()->tiling();
            return t.grid == MemoryTiling::Grid::KernelTile ? t.tilesAcross * t.tilesDown * t.planes
                                                            : -1;
        };
        // Two configurations of different tile counts: the picture follows the chosen one.
        std::vector<int64_t> configs;
        for (int64_t c = 0; c < m_tile.numConfigs() && configs.size() < 2; ++c)
            if (configs.empty() ||
                tpu.explainTile(m_tile.tileConfig(c)).tile.numTiles !=
                    tpu.explainTile(m_tile.tileConfig(configs.front())).tile.numTiles)
                configs.push_back(c);
        QCOMPARE(configs.size(), size_t{2});
        for (int64_t c : configs) {
            explained.clear();
            panel.setChosenConfig(c);
            QVERIFY(explained.wait(30000));
            QCOMPARE(tilesDrawn(), panel.explanation()->breakdownA.tile.numTiles);
            QVERIFY2(panel.memoryView()->summaryText().startsWith(
                         QStringLiteral("#%1 %2, the kernel's output, in configuration %3's tiles")
                             .arg(tensors.outputNode)
                             .arg(QString::fromStdString(m_tile.opcodeName(tensors.outputNode)))
                             .arg(c)),
                     qPrintable(panel.memoryView()->summaryText()));
        }
        // The input and the kernel in their own tiles; another node as a tensor in memory.
        panel.selectNode(tensors.kernelNode);
        QVERIFY(panel.memoryView()->summaryText().contains(QStringLiteral("the kernel's kernel")));
        const std::array<int64_t, 6>& kernelTile = panel.explanation()->breakdownA.tile.kernelTile;
        QCOMPARE(panel.memoryView()->tiling().tileCols,
                 static_cast<int>(kernelTile[static_cast<size_t>(tensors.kernelLayout.front())]));
        panel.selectNode(tensors.inputNode);
        QVERIFY(panel.memoryView()->summaryText().contains(QStringLiteral("the kernel's input")));
        int other = 0;
        while (other == tensors.outputNode || other == tensors.inputNode ||
               other == tensors.kernelNode)
            ++other;
        panel.selectNode(other);
        QVERIFY(panel.memoryView()->tiling().grid == MemoryTiling::Grid::Registers);
        panel.selectNode(-1);
        // A what-if edit: its output tile made one lane wide.
        std::vector<float> row(m_tile.tileConfig(configs.front()),
                               m_tile.tileConfig(configs.front()) + m_tile.configFeatureWidth());
        const int lane = tensors.outputLayout.front();
        whatif::applyTileEdit(
            row, whatif::parseTileEdit(m_tile, "output_bounds_" + std::to_string(lane) + "=1"));
        explained.clear();
        panel.explainRow(row, QStringLiteral("the what-if edit"));
        QVERIFY(explained.wait(30000));
        QCOMPARE(panel.memoryView()->tiling().tileCols, 1);
        QCOMPARE(tilesDrawn(), panel.explanation()->breakdownA.tile.numTiles);
        QVERIFY2(panel.memoryView()->summaryText().contains(
                     QStringLiteral("a tile 1 wide fills 1 of a register's 128 lanes (the "
                                    "synthetic TPU charges ×8 at most")),
                 qPrintable(panel.memoryView()->summaryText()));
    }

    // Best, Worst and Compare with no configuration A chosen said nothing at all; now the header
    // says what B is and what to do.
    void comparingWithoutAConfigurationSaysWhy() {
        JobRunner runner(QStringLiteral("model"));
        ExplainPanel panel;
        openPredicted(panel, runner, m_layout, QStringLiteral("r.npz"));
        const int64_t best = extreme(m_layout, true);
        panel.compareWith(best);
        QVERIFY2(panel.headerText().contains(QStringLiteral("B = configuration %1").arg(best)) &&
                     panel.headerText().contains(QStringLiteral("Choose configuration A")),
                 qPrintable(panel.headerText()));
        QVERIFY(!panel.busy());
        panel.compareWith(-1);  // Clear
        QVERIFY2(panel.headerText().startsWith(QStringLiteral("Choose a configuration")),
                 qPrintable(panel.headerText()));
        QSignalSpy explained(&panel, &ExplainPanel::explained);
        panel.setChosenConfig(3);  // then A arrives: the two are compared
        panel.compareWith(best);
        QVERIFY(explained.wait(30000));
        QVERIFY2(panel.headerText().contains(QStringLiteral("A = configuration 3")),
                 qPrintable(panel.headerText()));
    }
};

QTEST_MAIN(TestExplainPanel)
#include "test_explain_panel.moc"
