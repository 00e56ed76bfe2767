#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>

#include "ConfigPanel.h"
#include "ConfigTableModel.h"
#include "NodeInspector.h"
#include "SyntheticHloGraph.h"
#include "UndecodedFixture.h"
#include "graph/GraphFile.h"

using namespace tpg;

class TestInspection : public QObject {
    Q_OBJECT

    TpuGraph m_layout = testing::makeHloGraph({60, 2, 2, 50});
    TpuGraph m_tile = testing::makeHloGraph({20, 1, 3, 30, Collection::Tile});

    // A top-level group's child row by their texts, or null.
    static QTreeWidgetItem* groupRow(QTreeWidget& tree, const QString& group, const QString& row) {
        for (int i = 0; i < tree.topLevelItemCount(); ++i) {
            QTreeWidgetItem* top = tree.topLevelItem(i);
            if (top->text(0) != group) continue;
            for (int c = 0; c < top->childCount(); ++c)
                if (top->child(c)->text(0) == row) return top->child(c);
        }
        return nullptr;
    }

private slots:
    void inspectorGroupsFeaturesNonZeroFirst() {
        NodeInspector inspector;
        inspector.setGraph(m_layout);
        QVERIFY(inspector.plainText().contains(QStringLiteral("Select a node")));
        const int32_t conv = m_layout.configurableNodes().front();
        inspector.showNode(conv);
        const QString text = inspector.plainText();
        QVERIFY(text.contains(QStringLiteral("Node %1 · convolution").arg(conv)));
        QVERIFY(text.contains(QStringLiteral("f32[8,56,56,64]{")));
        QVERIFY(text.contains(QStringLiteral("shape / shape_dimensions_0: 8")));
        QVERIFY(text.contains(QStringLiteral("convolution / feature_group_count: 1")));
        // Zero values come after the non-zero ones of their group, under "zero (N)".
        const int nonZero = text.indexOf(QStringLiteral("window / window_size_0: 3"));
        const int zero = text.indexOf(QStringLiteral("window / zero"));
        QVERIFY(nonZero >= 0 && zero > nonZero);
        QVERIFY(text.contains(QStringLiteral("window / zero (44) / window_size_2: 0")));
        // Operands are listed and can be followed.
        QSignalSpy activated(&inspector, &NodeInspector::nodeActivated);
        QVERIFY(text.contains(QStringLiteral("operands (producers): 2")));
        inspector.setConfig(0);
        QVERIFY(inspector.plainText().contains(QStringLiteral("configuration 0 / output layout")));
        inspector.showNode(-1);
        QVERIFY(!inspector.plainText().contains(QStringLiteral("convolution")));
    }

    // Under a configuration's overlay the node and its neighbours read as the graph's labels draw
    // them, the file's layout named beside; without one, as the file has them.
    void inspectorFollowsTheExplainedLayouts() {
        NodeInspector inspector;
        inspector.setGraph(m_layout);
        const int32_t conv = m_layout.configurableNodes().front();
        const int32_t user = m_layout.consumers(conv).front();
        inspector.showNode(conv);
        const QString file = inspector.plainText().split(QLatin1Char('\n')).value(1);
        ConfigOverlay overlay;
        overlay.label = QStringLiteral("configuration 3");
        overlay.layouts.insert(conv, {QStringLiteral("f32[8,56,56,64]{0,1,2,3}"),
                                      QStringLiteral("set by the configuration")});
        overlay.layouts.insert(
            user, {QStringLiteral("f32[8,56,56,64]{0,1,2,3}"), QStringLiteral("propagated")});
        inspector.setConfigOverlay(overlay);
        QStringList lines = inspector.plainText().split(QLatin1Char('\n'));
        QCOMPARE(lines.value(1), QStringLiteral("f32[8,56,56,64]{0,1,2,3}"));
        QCOMPARE(lines.value(2),
                 QStringLiteral(
                     "as configuration 3 lays it out (set by the configuration); in the file: %1")
                     .arg(file));
        QVERIFY2(inspector.plainText().contains(
                     QStringLiteral("#%1 %2  f32[8,56,56,64]{0,1,2,3}")
                         .arg(user)
                         .arg(QString::fromStdString(m_layout.opcodeName(user)))),
                 qPrintable(inspector.plainText().left(600)));
        inspector.setConfigOverlay({});
        lines = inspector.plainText().split(QLatin1Char('\n'));
        QCOMPARE(lines.value(1), file);
        QVERIFY(lines.value(2).startsWith(QStringLiteral("computation ")));
        // An edited row's slots replace the chosen configuration's, under its label, and go
        // back when the row is cleared.
        inspector.setConfig(0);
        std::vector<float> row(
            static_cast<size_t>(m_layout.numConfigurable() * m_layout.configFeatureWidth()), -1.0f);
        const size_t at =
            static_cast<size_t>(m_layout.configurableIndex(conv) * m_layout.configFeatureWidth());
        for (int i = 0; i < 4; ++i)
            row[at + static_cast<size_t>(i)] = static_cast<float>(3 - i);  // output {3,2,1,0}
        ConfigOverlay edit;
        edit.label = QStringLiteral("the what-if edit");
        edit.row = row;
        inspector.setConfigOverlay(edit);
        QVERIFY2(inspector.plainText().contains(
                     QStringLiteral("the what-if edit / output layout: {3,2,1,0}")),
                 qPrintable(inspector.plainText()));
        QVERIFY(inspector.plainText().contains(
            QStringLiteral("the what-if edit / input layout: default")));
        QVERIFY(!inspector.plainText().contains(QStringLiteral("configuration 0 / output layout")));
        inspector.setConfigOverlay({});
        QVERIFY(inspector.plainText().contains(QStringLiteral("configuration 0 / output layout")));
    }

    // Counts are grouped as everywhere else: a large graph's header read "(index 1204 of 1311)".
    void aLargeGraphsCountsAreGrouped() {
        testing::HloGraphSpec spec{6000, 2, 1, 4};
        const TpuGraph large = testing::makeHloGraph(spec);
        QVERIFY(large.numConfigurable() >= 1000);
        NodeInspector inspector;
        inspector.setGraph(large);
        inspector.showNode(large.configurableNodes().back());
        const QString count = QLocale(QLocale::English).toString(large.numConfigurable());
        const QString last = QLocale(QLocale::English).toString(large.numConfigurable() - 1);
        QVERIFY2(
            inspector.plainText().contains(QStringLiteral("(index %1 of %2)").arg(last, count)),
            qPrintable(inspector.plainText().left(300)));
    }

    // A new configuration or edit of the node being read keeps the reader's place: the inspector
    // went back to the top and folded every group on each what-if edit.
    void theInspectorKeepsItsPlaceAcrossConfigurationsAndEdits() {
        NodeInspector inspector;
        inspector.resize(360, 300);
        inspector.show();
        QVERIFY(QTest::qWaitForWindowExposed(&inspector));
        inspector.setGraph(m_layout);
        const int32_t conv = m_layout.configurableNodes().front();
        inspector.showNode(conv);
        inspector.setConfig(0);
        auto* tree = inspector.findChild<QTreeWidget*>();
        QTreeWidgetItem* connections = tree->topLevelItem(0);
        QTreeWidgetItem* windowZeros =
            groupRow(*tree, QStringLiteral("window"), QStringLiteral("zero (44)"));
        QVERIFY(windowZeros && connections->isExpanded() && !windowZeros->isExpanded());
        connections->setExpanded(false);
        windowZeros->setExpanded(true);
        QScrollBar* scroll = tree->verticalScrollBar();
        QVERIFY(scroll->maximum() > 40);
        scroll->setValue(scroll->maximum() / 2);
        const int place = scroll->value();
        auto placeKept = [&] {
            QTreeWidgetItem* zeros =
                groupRow(*tree, QStringLiteral("window"), QStringLiteral("zero (44)"));
            return scroll->value() == place && zeros && zeros->isExpanded() &&
                   !tree->topLevelItem(0)->isExpanded();
        };
        inspector.setConfig(1);
        QVERIFY(inspector.plainText().contains(QStringLiteral("configuration 1 / output layout")));
        QVERIFY(placeKept());
        std::vector<float> row(
            static_cast<size_t>(m_layout.numConfigurable() * m_layout.configFeatureWidth()), -1.0f);
        ConfigOverlay edit;
        edit.label = QStringLiteral("the what-if edit");
        edit.row = row;
        inspector.setConfigOverlay(edit);
        QVERIFY(inspector.plainText().contains(
            QStringLiteral("the what-if edit / output layout: default")));
        QVERIFY(placeKept());
        // Rows that come or go (no configuration chosen) leave the groups as the reader set them.
        inspector.setConfigOverlay({});
        inspector.setConfig(-1);
        QVERIFY(!inspector.plainText().contains(QStringLiteral("configuration")));
        QTreeWidgetItem* zeros =
            groupRow(*tree, QStringLiteral("window"), QStringLiteral("zero (44)"));
        QVERIFY(zeros && zeros->isExpanded() && !tree->topLevelItem(0)->isExpanded());
        // Another node starts at the top, its groups as they open by default.
        inspector.showNode(m_layout.configurableNodes().back());
        QCOMPARE(scroll->value(), 0);
        QVERIFY(tree->topLevelItem(0)->isExpanded());
    }

    void trimmedFileShowsColumnNamesAndAWarning() {
        testing::HloGraphSpec spec{30, 1};
        spec.featureWidth = 120;
        const TpuGraph trimmed = testing::makeHloGraph(spec);
        NodeInspector inspector;
        inspector.setGraph(trimmed);
        inspector.showNode(3);
        const QString text = inspector.plainText();
        QVERIFY(text.contains(QStringLiteral("node_feat has 120 columns, not 140")));
        QVERIFY(text.contains(QStringLiteral("col_0")));
        QVERIFY(!text.contains(QStringLiteral("shape_dimensions_0")));
        QVERIFY(text.contains(QStringLiteral("Node 3 · ")));
        QVERIFY(
            text.contains(QStringLiteral("\n?")));  // no tensor can be written for a trimmed row
    }

    void configModelRanksSortsAndFilters() {
        ConfigTableModel model;
        model.setGraph(m_tile);
        QCOMPARE(model.rowCount(), 30);
        QVERIFY(model.isColumnShown(ConfigTableModel::NormalizedColumn));
        // Ranks follow the normalised runtime.
        for (int64_t a = 0; a < 30; ++a)
            for (int64_t b = 0; b < 30; ++b)
                if (m_tile.normalizedRuntime(a) < m_tile.normalizedRuntime(b))
                    QVERIFY(model.rank(a) < model.rank(b));
        QCOMPARE(model.rank(model.bestConfig()), int64_t{1});
        model.sort(ConfigTableModel::RankColumn, Qt::AscendingOrder);
        QCOMPARE(model.configAt(0), model.bestConfig());
        QCOMPARE(model.index(0, ConfigTableModel::RelativeColumn).data().toString(),
                 QStringLiteral("1.000x"));
        model.sort(ConfigTableModel::RuntimeColumn, Qt::DescendingOrder);
        QVERIFY(m_tile.runtimes()[static_cast<size_t>(model.configAt(0))] >=
                m_tile.runtimes()[static_cast<size_t>(model.configAt(1))]);
        QVERIFY(model.setFilter(QStringLiteral("top 5")));
        QCOMPARE(model.rowCount(), 5);
        QVERIFY(model.setFilter(QStringLiteral("#7")));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.configAt(0), int64_t{7});
        QVERIFY(model.setFilter(QStringLiteral("<0")));
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.setFilter(QStringLiteral("what?")));
        QCOMPARE(model.rowCount(), 30);
        QCOMPARE(model.configAt(model.rowOf(12)), int64_t{12});
    }

    void unknownRuntimesAreShownAsUnknown() {
        TpuGraphData d = m_layout.data();
        std::fill(d.runtimes.begin(), d.runtimes.end(), 0.0);
        const TpuGraph testSplit{d};
        ConfigTableModel model;
        model.setGraph(testSplit);
        QCOMPARE(model.index(0, ConfigTableModel::RuntimeColumn).data().toString(),
                 QStringLiteral("unknown"));
        QCOMPARE(model.rank(0), int64_t{-1});
        QVERIFY(!model.isColumnShown(ConfigTableModel::NormalizedColumn));
    }

    void panelShowsLayoutsAndMarksNodes() {
        ConfigPanel panel;
        QSignalSpy marks(&panel, &ConfigPanel::nodeMarksChanged);
        QSignalSpy chosen(&panel, &ConfigPanel::configChosen);
        panel.setGraph(m_layout);
        panel.chooseConfig(1);
        QCOMPARE(chosen.last().at(0).toLongLong(), qint64{1});
        const QString text = panel.detailText();
        QVERIFY(text.startsWith(QStringLiteral(
            "Config 1: node | Opcode | Output layout | Input layout | Kernel layout")));
        // Builder: node k keeps the default layout when (config + k) % 3 == 0.
        const QStringList lines = text.split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), static_cast<int>(m_layout.numConfigurable()) + 1);
        QVERIFY(lines[3].endsWith(QStringLiteral("| default | default | default")));  // k = 2
        QVERIFY(lines[1].contains(QStringLiteral("{")));                              // k = 0
        const auto marked = marks.last().at(0).value<QHash<int32_t, QString>>();
        QVERIFY(!marked.contains(m_layout.configurableNodes()[2]));
        QVERIFY(marked.contains(m_layout.configurableNodes()[0]));
        // The mark says what the details list says, in words (its "·" once showed as "Â·").
        const QStringList cells = lines[1].split(QStringLiteral(" | "));
        QCOMPARE(marked.value(m_layout.configurableNodes()[0]),
                 QStringLiteral("config 1: output %1 · input %2 · kernel %3")
                     .arg(cells[2], cells[3], cells[4]));
        // Choosing through the table selects the same way.
        panel.table()->selectRow(4);
        QCOMPARE(panel.chosenConfig(), panel.model()->configAt(4));
        panel.filterEdit()->setText(QStringLiteral("top 3"));
        QCOMPARE(panel.model()->rowCount(), 3);
    }

    // The details are formatted as the view asks for them and each column is sized on its
    // widest cell alone (measuring every row of a 2,594-node configuration took a third of a
    // choice's time): no cell in any row is wider than its column.
    void everyDetailCellFitsItsColumn() {
        ConfigPanel panel;
        panel.resize(1300, 340);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setGraph(m_layout);
        QTreeView* details = nullptr;
        for (QTreeView* tree : panel.findChildren<QTreeView*>()) details = tree;
        QVERIFY(details != nullptr);
        for (const int64_t config : {int64_t{0}, int64_t{1}, int64_t{2}}) {
            panel.chooseConfig(config);
            const QAbstractItemModel* m = details->model();
            QCOMPARE(m->rowCount(), static_cast<int>(m_layout.numConfigurable()));
            for (int c = 0; c < m->columnCount(); ++c)
                for (int r = 0; r < m->rowCount(); ++r)
                    QVERIFY2(details->sizeHintForIndex(m->index(r, c)).width() <=
                                 details->columnWidth(c),
                             qPrintable(QStringLiteral("config %1 row %2 column %3: %4")
                                            .arg(config)
                                            .arg(r)
                                            .arg(c)
                                            .arg(m->index(r, c).data().toString())));
        }
    }

    // A configuration the file cannot give (here a NaN in a stored config tensor, refused when
    // read) says why across the whole row: it was cut to "/tmp/..." in the node column.
    void anUnreadableConfigurationSaysWhyAcrossTheRow() {
        const TpuGraph g =
            loadTpuGraph(std::string(TPG_FIXTURE_DIR) + "/bad/layout_config_nan_stored.npz");
        ConfigPanel panel;
        panel.setGraph(g);
        panel.chooseConfig(2);
        const QString text = panel.detailText();
        QVERIFY2(text.contains(QStringLiteral("\nCannot read configuration 2: ")) &&
                     text.contains(QStringLiteral(
                         "configuration 2, configurable node 0, feature 3 holds nan")),
                 qPrintable(text));
        panel.chooseConfig(1);
        QVERIFY2(!panel.detailText().contains(QStringLiteral("Cannot read")),
                 qPrintable(panel.detailText()));
    }

    // A configuration still decompressing says so across the whole row (the node column alone had
    // cut it to "decoding con…"), then lists its layouts once it is read.
    void aConfigurationStillDecompressingSaysSoAcrossTheRow() {
        const TpuGraph g = undecodedFortranFixture();
        ConfigPanel panel;
        panel.setGraph(g);
        panel.chooseConfig(1);
        QVERIFY2(panel.detailText().contains(
                     QStringLiteral("\nDecompressing the file's configurations… 0%")),
                 qPrintable(panel.detailText()));
        const QTreeView* details = nullptr;
        for (const QTreeView* tree : panel.findChildren<QTreeView*>())
            if (tree->model()->rowCount() == 1 &&
                tree->model()->index(0, 0).data().toString().startsWith(
                    QStringLiteral("Decompressing")))
                details = tree;
        QVERIFY(details != nullptr);
        QVERIFY(details->isFirstColumnSpanned(0, {}));
        g.layoutConfigs()->wait();
        QTRY_VERIFY2(!panel.detailText().contains(QStringLiteral("Decompressing")),
                     qPrintable(panel.detailText()));
        QVERIFY2(panel.detailText().contains(QStringLiteral("\n#")),
                 qPrintable(panel.detailText()));
    }

    // The inspector of a configurable node waits for its configuration's layouts the same way
    // across the row (it read "layouts: decoding… (56%)", cut off by the Value column, and kept
    // that figure until another node was picked), then shows them once they are read.
    void theInspectorWaitsForADecompressingConfigurationThenShowsIt() {
        const TpuGraph g = undecodedFortranFixture();
        NodeInspector inspector;
        inspector.setGraph(g);
        inspector.setConfig(1);
        inspector.showNode(g.configurableNodes().front());
        QVERIFY2(inspector.plainText().contains(
                     QStringLiteral("configuration 1 / Decompressing the file's configurations… 0%")),
                 qPrintable(inspector.plainText()));
        const QList<QTreeWidgetItem*> waiting = inspector.findChild<QTreeWidget*>()->findItems(
            QStringLiteral("Decompressing"), Qt::MatchStartsWith | Qt::MatchRecursive);
        QCOMPARE(waiting.size(), 1);
        QVERIFY(waiting.front()->isFirstColumnSpanned());
        g.layoutConfigs()->wait();
        QTRY_VERIFY2(inspector.plainText().contains(
                         QStringLiteral("configuration 1 / output layout")),
                     qPrintable(inspector.plainText()));
        QVERIFY(!inspector.plainText().contains(QStringLiteral("Decompressing")));
    }

    void tilePanelNamesTheTileFeatures() {
        ConfigPanel panel;
        panel.setGraph(m_tile);
        panel.chooseConfig(2);
        const QString text = panel.detailText();
        QVERIFY(text.contains(QStringLiteral("kernel_bounds_0 | ")));
        QVERIFY(text.contains(QStringLiteral("input_bounds_product | ")));
        QCOMPARE(text.split(QLatin1Char('\n')).size(), 25);
        QVERIFY(text.startsWith(QStringLiteral("Tile config 2: feature | Value | Dimension\n")));
        // A trimmed copy, which the synthetic TPU cannot read: the bounds alone, no dimensions.
        testing::HloGraphSpec spec{20, 1, 3, 30, Collection::Tile};
        spec.featureWidth = 120;
        panel.setGraph(testing::makeHloGraph(spec));
        panel.chooseConfig(2);
        QVERIFY2(panel.detailText().startsWith(QStringLiteral("Tile config 2: feature | Value\n")),
                 qPrintable(panel.detailText()));
        QCOMPARE(panel.detailText().split(QLatin1Char('\n')).size(), 25);
    }
};

QTEST_MAIN(TestInspection)
#include "test_inspection.moc"
