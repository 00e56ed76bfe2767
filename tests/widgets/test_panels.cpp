#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>
#include <memory>

#include "DatasetBrowser.h"
#include "ElidedLabel.h"
#include "ElidingStatusBar.h"
#include "GraphPanel.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "JobRunner.h"
#include "ModelNameText.h"
#include "RemainingTime.h"
#include "SyntheticHloGraph.h"
#include "VizLimits.h"
#include "WidgetLimits.h"
#include "graph/GraphFile.h"

using namespace tpg;

// `panel` on the screen at `size` with `g` laid out; `ready` watches its layoutReady.
static bool showLaidOut(GraphPanel& panel, QSize size, const TpuGraph& g, const QString& name,
                        QSignalSpy& ready) {
    panel.resize(size);
    panel.show();
    if (!QTest::qWaitForWindowExposed(&panel)) return false;
    panel.setGraph(g, name);
    return ready.wait(30000);
}

class TestPanels : public QObject {
    Q_OBJECT
    // A small tile kernel at `relative` under `dir`.
    static void writeKernel(const QTemporaryDir& dir, const QString& relative) {
        const QString path = dir.filePath(relative);
        QDir().mkpath(QFileInfo(path).absolutePath());
        saveTpuGraph(testing::makeHloGraph({12, 1, 3, 5, Collection::Tile}), path.toStdString(),
                     false);
    }

    static bool scanned(DatasetBrowser& browser, const QTemporaryDir& dir) {
        QSignalSpy spy(&browser, &DatasetBrowser::scanned);
        browser.openFolder(dir.path());
        return spy.wait(20000);
    }

    // A small program as npz/layout/nlp/default/train/NAME.npz under `dir`.
    static void writeNlpProgram(const QTemporaryDir& dir, const QString& name) {
        const QString path =
            dir.filePath(QStringLiteral("npz/layout/nlp/default/train/%1.npz").arg(name));
        QDir().mkpath(QFileInfo(path).absolutePath());
        saveTpuGraph(testing::makeHloGraph({1386, 1, 3, 1000}), path.toStdString(), false);
    }

    // `browser` on `dir`, its counts read.
    static bool openCounted(DatasetBrowser& browser, const QString& dir) {
        QSignalSpy loaded(&browser, &DatasetBrowser::countsLoaded);
        browser.openFolder(dir);
        return loaded.wait(20000);
    }

private slots:
    // A job's time left, from the share done and the time taken since its progress began: none
    // from its first moments, 0 once it is done, and written as the Training tab writes times.
    void theTimeLeftIsEstimatedOnceTheJobHasRunAWhile() {
        QCOMPARE(RemainingTime::secondsLeft(0.0, 0.25, 10.0), 30.0);
        QCOMPARE(RemainingTime::secondsLeft(0.0, 0.005, 10.0), -1.0);  // too little done
        QCOMPARE(RemainingTime::secondsLeft(0.0, 0.5, 1.0), -1.0);     // too soon
        QCOMPARE(RemainingTime::secondsLeft(0.0, 1.0, 10.0), 0.0);
        // A quarter done in 10 s of progress that began at a tenth: 0.15 in 10 s, 0.75 to go.
        QCOMPARE(RemainingTime::secondsLeft(0.1, 0.25, 10.0), 50.0);
        // Time before any progress (a file's configurations decompressing) is not counted: 13 s at
        // 0, then 2% at 13.5 s and 10% at 21.5 s is 8% in 8 s, 90 s to go (counted from the
        // start, 21.5 s for 10%, it read 193.5 s).
        RemainingTime scoring;
        scoring.restart();
        QCOMPARE(scoring.secondsLeftAt(0.0, 13.0), -1.0);
        QCOMPARE(scoring.secondsLeftAt(0.02, 13.5), -1.0);
        QCOMPARE(scoring.secondsLeftAt(0.10, 21.5), 90.0);
        scoring.restart();  // a new job starts its own count
        QCOMPARE(scoring.secondsLeftAt(0.5, 30.0), -1.0);
        RemainingTime idle;
        QVERIFY(!idle.isRunning());
        QCOMPARE(idle.secondsLeft(0.5), -1.0);
        QCOMPARE(clockText(65), QStringLiteral("1:05"));
        QCOMPARE(clockText(3725.9), QStringLiteral("62:05"));
        QCOMPARE(clockText(-3), QStringLiteral("0:00"));
    }

    // A model file is named by its folder and file (a run's folder tells runs apart); other labels
    // stay as they are; a long name keeps both ends.
    void modelNamesAreShortAndKeepTheirEnds() {
        QCOMPARE(shortModelName(QStringLiteral("built-in layout:xla:default model")),
                 QStringLiteral("built-in layout:xla:default model"));
        QCOMPARE(shortModelName(QStringLiteral(
                     "/home/ada/runs/2026-11-29_005648_layout-xla-default/model.tpgm")),
                 QStringLiteral("2026-11-29_005648_layout-xla-default/model.tpgm"));
        QCOMPARE(shortModelName(QStringLiteral("/model.tpgm")), QStringLiteral("model.tpgm"));
        QCOMPARE(shortModelName(QStringLiteral("./nlp.tpgm")), QStringLiteral("nlp.tpgm"));
        const QString longName =
            shortModelName(QStringLiteral("/data/a folder whose name goes on and on past any "
                                          "status bar/final model of the week.tpgm"));
        QCOMPARE(longName.size(), widgetlimits::kModelNameMaxChars);
        QVERIFY2(longName.startsWith(QStringLiteral("a folder whose")) &&
                     longName.endsWith(QStringLiteral("week.tpgm")) &&
                     longName.contains(QChar(0x2026)),
                 qPrintable(longName));
    }

    // However narrow its dock, the tree keeps room for a name beside the counts (the window
    // squeezed the name column to nothing, leaving rows of bare numbers). Its one graph is
    // counted in the singular ("1 graphs in" was written).
    void browserKeepsRoomForNamesWhenNarrowAndCountsOneGraph() {
        QTemporaryDir dir;
        writeNlpProgram(dir, QStringLiteral("transformer_003"));
        JobRunner runner(QStringLiteral("io"));
        DatasetBrowser browser(&runner);
        QVERIFY(openCounted(browser, dir.path()));
        QStringList texts;
        for (const QLabel* label : browser.findChildren<QLabel*>()) texts << label->text();
        QVERIFY2(texts.contains(QStringLiteral("1 graph in %1").arg(dir.path())),
                 qPrintable(texts.join(QLatin1Char('|'))));
        browser.resize(browser.minimumSizeHint().width(), 400);
        browser.show();
        QVERIFY(QTest::qWaitForWindowExposed(&browser));
        const int needed =
            browser.view()->fontMetrics().horizontalAdvance(QStringLiteral("transformer_"));
        QTRY_VERIFY2(
            browser.view()->columnWidth(0) >= needed + 3 * browser.view()->indentation(),
            qPrintable(QStringLiteral("%1 < %2").arg(browser.view()->columnWidth(0)).arg(needed)));
    }

    // A cut name keeps its end, the number that tells a collection's programs apart: at 1024 x 768
    // the dataset dock read "transformer..." four times.
    void browserCutsNamesInTheMiddle() {
        QTemporaryDir dir;
        const QString stem = QStringLiteral("transformer_program_of_the_benchmark_");
        for (const char* n : {"000", "003"}) writeNlpProgram(dir, stem + QLatin1String(n));
        JobRunner runner(QStringLiteral("io"));
        DatasetBrowser browser(&runner);
        QVERIFY(openCounted(browser, dir.path()));
        browser.resize(250, 400);  // the dock's width at 1024 x 768
        browser.show();
        QVERIFY(QTest::qWaitForWindowExposed(&browser));
        QTreeView* view = browser.view();
        QVERIFY(dynamic_cast<NameElisionDelegate*>(view->itemDelegate()) != nullptr);
        const QAbstractItemModel* model = view->model();
        const int room = view->columnWidth(0) - 3 * view->indentation();
        auto shownAs = [&](const QModelIndex& index) {
            const QString name = index.data().toString();
            return view->fontMetrics().elidedText(name, NameElisionDelegate::elideModeOf(index),
                                                  room);
        };
        const QModelIndex group = model->index(0, 0);  // layout:nlp:default (2)
        QVERIFY2(shownAs(group).startsWith(QStringLiteral("layout:nlp:")),
                 qPrintable(shownAs(group)));
        const QModelIndex split = model->index(0, 0, group);
        QCOMPARE(model->rowCount(split), 2);
        for (int row = 0; row < 2; ++row) {
            const QModelIndex file = model->index(row, 0, split);
            const QString name = file.data().toString(), shown = shownAs(file);
            QVERIFY2(shown != name, qPrintable(shown));  // the narrow list does cut it
            QVERIFY2(shown.right(3) == name.right(3) && name.endsWith(row == 0 ? "000" : "003"),
                     qPrintable(shown));
        }
    }

    void browserListsTheTreeWithCounts() {
        QTemporaryDir dir;
        auto write = [&](const QString& rel, const testing::HloGraphSpec& spec) {
            QString path = dir.filePath(rel);
            QDir().mkpath(QFileInfo(path).absolutePath());
            saveTpuGraph(testing::makeHloGraph(spec), path.toStdString(), false);
            return path;
        };
        const QString a =
            write(QStringLiteral("npz/layout/xla/random/train/alpha.npz"), {50, 1, 3, 7});
        const QString b =
            write(QStringLiteral("npz/layout/xla/random/test/beta.npz"), {70, 1, 3, 9});
        const QString t =
            write(QStringLiteral("npz/tile/xla/valid/gamma.npz"), {12, 1, 3, 5, Collection::Tile});
        const QString loose = dir.filePath(QStringLiteral("loose/broken.npz"));
        QDir().mkpath(QFileInfo(loose).absolutePath());
        QFile f(loose);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("garbage");
        f.close();

        JobRunner runner(QStringLiteral("io"));
        DatasetBrowser browser(&runner);
        QSignalSpy scanned(&browser, &DatasetBrowser::scanned);
        QSignalSpy loaded(&browser, &DatasetBrowser::countsLoaded);
        browser.openFolder(dir.path());
        QVERIFY(loaded.wait(20000));
        QCOMPARE(scanned.at(0).at(0).toInt(), 4);
        QCOMPARE(browser.rowText(a), QStringLiteral("alpha | 50 | 7"));
        QCOMPARE(browser.rowText(b), QStringLiteral("beta | 70 | 9"));
        QCOMPARE(browser.rowText(t), QStringLiteral("gamma | 12 | 5"));
        QCOMPARE(browser.rowText(loose), QStringLiteral("broken | ! | "));
        // Collections, then splits, with the number of graphs they hold.
        QStringList top;
        for (int r = 0; r < browser.model()->rowCount(); ++r)
            top << browser.model()->item(r)->text();
        QVERIFY(top.contains(QStringLiteral("layout:xla:random  (2)")));
        QVERIFY(top.contains(QStringLiteral("tile:xla  (1)")));
        // Filtering keeps matching graphs and their parents; the counts follow it.
        browser.filterEdit()->setText(QStringLiteral("gam"));
        QCOMPARE(browser.view()->model()->rowCount(), 1);
        browser.filterEdit()->setText(QStringLiteral("alp"));
        top.clear();
        for (int r = 0; r < browser.model()->rowCount(); ++r) top << browser.model()->item(r)->text();
        QVERIFY2(top.contains(QStringLiteral("layout:xla:random  (1 of 2)")), qPrintable(top.join(QLatin1Char('|'))));
        QVERIFY(top.contains(QStringLiteral("tile:xla  (0 of 1)")));
        // A graph row's menu: open, reveal in the file manager, copy the path.
        std::unique_ptr<QMenu> menu(browser.fileMenu(a));
        QVERIFY(menu);
        QStringList actions;
        for (QAction* action : menu->actions()) actions << action->text();
        QCOMPARE(actions, (QStringList{QStringLiteral("Open"), QStringLiteral("Reveal in File Manager"), QStringLiteral("Copy Path")}));
        QSignalSpy opened(&browser, &DatasetBrowser::fileActivated);
        menu->actions().at(0)->trigger();
        QCOMPARE(opened.count(), 1);
        QCOMPARE(opened.at(0).at(0).toString(), a);
        // The offscreen platform opens no URL, as a desktop without xdg-open: the user is told.
        QSignalSpy told(&browser, &DatasetBrowser::statusMessage);
        menu->actions().at(1)->trigger();
        QCOMPARE(told.count(), 1);
        const QString folder = QFileInfo(a).absolutePath();
        QVERIFY2(told.at(0).at(0).toString().startsWith(
                     QStringLiteral("No file manager could be started for ") + folder),
                 qPrintable(told.at(0).at(0).toString()));
        QCOMPARE(QGuiApplication::clipboard()->text(), folder);
        QVERIFY(!browser.fileMenu(QString()));
        // Activating a graph asks for it to be opened.
        QSignalSpy activated(&browser, &DatasetBrowser::fileActivated);
        browser.filterEdit()->clear();
        browser.selectFile(t);
        emit browser.view()->activated(browser.view()->currentIndex());
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.at(0).at(0).toString(), t);
    }

    // Filtering keeps the open file highlighted while it matches; when it does not, no other file
    // looks open (Qt had moved the highlight to a neighbour) and the first matches are in view
    // (the list had kept its scroll position, showing matches from the middle). Arrow keys move
    // the highlight and the open file together.
    void browserKeepsTheOpenFileHighlighted() {
        QTemporaryDir dir;
        QString open;
        for (int i = 0; i < 60; ++i) {
            const QString path = dir.filePath(
                QStringLiteral("npz/tile/xla/train/k_%1.npz").arg(i, 3, 10, QLatin1Char('0')));
            QDir().mkpath(QFileInfo(path).absolutePath());
            saveTpuGraph(testing::makeHloGraph({12, 1, 3, 5, Collection::Tile}), path.toStdString(),
                         false);
            if (i == 55) open = path;
        }
        JobRunner runner(QStringLiteral("io"));
        DatasetBrowser browser(&runner);
        browser.resize(300, 260);
        browser.show();
        QVERIFY(QTest::qWaitForWindowExposed(&browser));
        QSignalSpy loaded(&browser, &DatasetBrowser::countsLoaded);
        browser.openFolder(dir.path());
        QVERIFY(loaded.wait(20000));
        browser.selectFile(open);
        QTreeView* view = browser.view();
        QTRY_VERIFY(view->verticalScrollBar()->value() > 0);
        const auto selectedPaths = [view] {
            QStringList paths;
            for (const QModelIndex& i : view->selectionModel()->selectedRows())
                paths << i.data(Qt::UserRole + 1).toString();
            return paths;
        };
        QCOMPARE(selectedPaths().size(), 1);
        browser.filterEdit()->setText(QStringLiteral("k_01"));  // the open k_055 does not match
        QVERIFY2(view->selectionModel()->selectedRows().isEmpty(),
                 qPrintable(selectedPaths().join(QLatin1Char(','))));
        QCOMPARE(view->verticalScrollBar()->value(), 0);
        browser.filterEdit()->setText(QStringLiteral("k_05"));  // it matches again
        QCOMPARE(view->selectionModel()->selectedRows().size(), qsizetype{1});
        QCOMPARE(view->currentIndex().data().toString(), QFileInfo(open).completeBaseName());
        browser.filterEdit()->clear();
        QCOMPARE(view->currentIndex().data().toString(), QFileInfo(open).completeBaseName());
        QVERIFY(view->viewport()->rect().contains(view->visualRect(view->currentIndex())));

        // Arrow keys step through the graphs, opening the one they rest on (they had moved the
        // highlight off the open file and opened nothing): three quick presses open one file.
        QSignalSpy opened(&browser, &DatasetBrowser::fileActivated);
        view->setFocus();
        for (int i = 0; i < 3; ++i) QTest::keyClick(view, Qt::Key_Down);
        QCOMPARE(view->currentIndex().data().toString(), QStringLiteral("k_058"));
        QCOMPARE(opened.count(), 0);
        QVERIFY(opened.wait(5000));
        QTest::qWait(2 * widgetlimits::kBrowseOpenDelayMs);
        QCOMPARE(opened.count(), 1);
        QCOMPARE(QFileInfo(opened.at(0).at(0).toString()).completeBaseName(),
                 QStringLiteral("k_058"));
    }

    // Names with numbers list as a file manager lists them: "k_2" before "k_10" (they had been
    // listed as text, "dot_fusion_123" between "dot_fusion_1229" and "dot_fusion_1233").
    void browserListsNumbersInOrder() {
        QTemporaryDir dir;
        for (const char* name : {"k_10", "k_2", "k_123", "k_1203", "k_1"})
            writeKernel(dir, QStringLiteral("npz/tile/xla/train/%1.npz").arg(QLatin1String(name)));
        JobRunner runner(QStringLiteral("io"));
        DatasetBrowser browser(&runner);
        QVERIFY(scanned(browser, dir));
        const QStandardItem* train = browser.model()->item(0)->child(0);
        QStringList names;
        for (int r = 0; r < train->rowCount(); ++r) names << train->child(r)->text();
        QCOMPARE(names,
                 (QStringList{QStringLiteral("k_1"), QStringLiteral("k_2"), QStringLiteral("k_10"),
                              QStringLiteral("k_123"), QStringLiteral("k_1203")}));
    }

    // Splits list in the dataset's order, train, valid, test; alphabetically valid came last.
    void browserListsSplitsInTheDatasetsOrder() {
        QTemporaryDir dir;
        for (const char* split : {"valid", "test", "train"})
            writeKernel(dir, QStringLiteral("npz/tile/xla/%1/k.npz").arg(QLatin1String(split)));
        JobRunner runner(QStringLiteral("io"));
        DatasetBrowser browser(&runner);
        QVERIFY(scanned(browser, dir));
        const QStandardItem* tile = browser.model()->item(0);
        QStringList splits;
        for (int r = 0; r < tile->rowCount(); ++r)
            splits << tile->child(r)->text().section(QLatin1Char(' '), 0, 0);
        QCOMPARE(splits, (QStringList{QStringLiteral("train"), QStringLiteral("valid"),
                                      QStringLiteral("test")}));
    }

    // A file selected from elsewhere comes to the middle of the list, among its neighbours: it had
    // been scrolled just into view, onto the bottom edge, the files after it hidden.
    void browserCentresAFileSelectedFromElsewhere() {
        QTemporaryDir dir;
        for (int i = 0; i < 60; ++i)
            writeKernel(dir, QStringLiteral("npz/tile/xla/train/k_%1.npz").arg(i));
        JobRunner runner(QStringLiteral("io"));
        DatasetBrowser browser(&runner);
        browser.resize(300, 400);
        browser.show();
        QVERIFY(QTest::qWaitForWindowExposed(&browser));
        QVERIFY(scanned(browser, dir));
        browser.selectFile(dir.filePath(QStringLiteral("npz/tile/xla/train/k_40.npz")));
        QTreeView* view = browser.view();
        const QRect row = view->visualRect(view->currentIndex());
        const int middle = view->viewport()->height() / 2;
        QVERIFY2(std::abs(row.center().y() - middle) <= row.height(),
                 qPrintable(QStringLiteral("row at y %1 in a %2-px list")
                                .arg(row.y())
                                .arg(view->viewport()->height())));
        // One already in view stays where it is (a click must not move the list).
        const QModelIndex below = view->indexBelow(view->currentIndex());
        const int y = view->visualRect(below).y();
        browser.selectFile(dir.filePath(QStringLiteral("npz/tile/xla/train/k_41.npz")));
        QCOMPARE(view->visualRect(view->currentIndex()).y(), y);
    }

    void browserReportsAMissingFolder() {
        JobRunner runner(QStringLiteral("io"));
        DatasetBrowser browser(&runner);
        QSignalSpy failed(&browser, &DatasetBrowser::scanFailed);
        browser.openFolder(QStringLiteral("/nonexistent/tpugraphs"));
        QVERIFY(failed.wait(10000));
        QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("/nonexistent/tpugraphs")));
    }

    void panelLaysOutCachesAndNavigates() {
        JobRunner runner(QStringLiteral("graphviz"));
        GraphPanel panel(&runner);
        panel.resize(1000, 700);
        const TpuGraph g = testing::makeHloGraph({3000, 6});
        QSignalSpy ready(&panel, &GraphPanel::layoutReady);
        panel.setGraph(g, QStringLiteral("memory:big"));
        // Too big to show whole: its computations, the largest opened (six boxes say little).
        QCOMPARE(panel.currentSpec().mode, ViewMode::Groups);
        QCOMPARE(panel.currentSpec().open.size(), size_t{1});
        QVERIFY(ready.wait(30000));
        int64_t covered = 0;
        for (const ViewItem& it : panel.scene()->layout()->view.items) covered += it.kind == ViewItem::Kind::Group ? it.count : 1;
        QCOMPARE(covered, g.numNodes());
        QVERIFY(panel.scene()->nodeItems().size() > size_t{6});
        // Newest request wins: of three quick requests only the last one is shown.
        ViewSpec skeleton{ViewMode::Skeleton};
        ViewSpec comp{ViewMode::Computation};
        comp.computation = 2;
        panel.requestView(ViewSpec{ViewMode::Whole});
        panel.requestView(skeleton);
        panel.requestView(comp);
        QVERIFY(ready.wait(30000));
        QTest::qWait(200);  // a superseded result would arrive now
        QCOMPARE(ready.count(), 2);
        QCOMPARE(panel.scene()->layout()->view.spec.key(), comp.key());
        // Back to a laid-out view: from the cache, at once.
        panel.requestView(defaultViewSpec(g));
        QVERIFY(!panel.isLayoutPending());
        QCOMPARE(panel.scene()->layout()->view.spec.mode, ViewMode::Groups);
        // A node not drawn opens its groups in the program view, selected.
        panel.showNode(1234);
        QVERIFY(panel.isLayoutPending());
        QVERIFY(ready.wait(30000));
        QCOMPARE(panel.currentSpec().mode, ViewMode::Groups);
        QCOMPARE(panel.scene()->selectedNode(), 1234);
        // Elsewhere, in its neighbourhood.
        panel.requestView(ViewSpec{ViewMode::Skeleton});
        QVERIFY(ready.wait(30000));
        panel.showNode(1235);
        QVERIFY(ready.wait(30000));
        QCOMPARE(panel.currentSpec().mode, ViewMode::Neighbourhood);
        QCOMPARE(panel.scene()->selectedNode(), 1235);
        // Search by opcode among the drawn nodes.
        QVERIFY(panel.search(QStringLiteral("convolution")) > 0);
        QCOMPARE(QString::fromStdString(g.opcodeName(panel.scene()->selectedNode())),
                 QStringLiteral("convolution"));
        QCOMPARE(panel.search(QStringLiteral("999999")), 0);
    }

    // A long message is elided before the permanent labels, whole in the tooltip, and re-elided as
    // the window or a label changes; QStatusBar had drawn it on under them, cut mid-word.
    void statusMessageIsElidedBeforeThePermanentLabels() {
        QMainWindow window;
        auto* bar = new ElidingStatusBar;
        window.setStatusBar(bar);
        auto* label = new QLabel(
            QStringLiteral("resnet_001 · layout · 788 nodes · 807 edges · 1,000 configs"));
        bar->addPermanentWidget(label);
        window.resize(700, 200);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString whole = QStringLiteral(
            "Program (2 groups open): 17 groups and 56 nodes drawn, every node of 788 drawn or "
            "inside a "
            "group");
        bar->setMessage(whole);
        const auto fits = [&] {
            return bar->fontMetrics().horizontalAdvance(bar->currentMessage()) <= label->x() - 8;
        };
        QCOMPARE(bar->message(), whole);
        QVERIFY(bar->currentMessage().endsWith(QChar(0x2026)));
        QVERIFY2(fits(), qPrintable(bar->currentMessage()));
        QCOMPARE(bar->toolTip(), whole);
        window.resize(1600, 200);
        QTRY_COMPARE(bar->currentMessage(), whole);
        QVERIFY(bar->toolTip().isEmpty());
        window.resize(900, 200);
        label->setText(label->text() + QStringLiteral(" · 45 configurable · and more"));
        QTRY_VERIFY2(fits() && bar->currentMessage().endsWith(QChar(0x2026)),
                     qPrintable(bar->currentMessage()));
        bar->setMessage(QString());
        QVERIFY(bar->currentMessage().isEmpty());
    }

    // The permanent labels share their part of the bar fairly: the model's short name is read
    // whole beside a file's long summary (in proportion to their texts it had been cut to
    // "Model: bui…ault model"), and neither can widen the window.
    void permanentLabelsShareTheBarFairly() {
        QCOMPARE(fairShares({100, 500}, 400), (std::vector<int>{100, 300}));
        QCOMPARE(fairShares({300, 500}, 400), (std::vector<int>{200, 200}));
        QCOMPARE(fairShares({50, 60}, 400), (std::vector<int>{50, 60}));
        QCOMPARE(fairShares({50, 60, 900}, 0), (std::vector<int>{0, 0, 0}));
        QMainWindow window;
        auto* bar = new ElidingStatusBar;
        window.setStatusBar(bar);
        auto* file = new ElidedLabel;
        file->setText(
            QStringLiteral("small_bert_bert_en_uncased_L-10_H-128_A-2_batch_size_32_train"
                           " · layout · 4,895 nodes · 100,000 configs · 45 configurable"));
        auto* model = new ElidedLabel;
        model->setText(QStringLiteral("Model: built-in layout:nlp:default model"));
        bar->addPermanentWidget(file);
        bar->addPermanentWidget(model);
        window.resize(1024, 200);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_COMPARE(model->shownText(), model->text());
        QTRY_VERIFY2(file->shownText().contains(QChar(0x2026)), qPrintable(file->shownText()));
        QVERIFY2(window.minimumSizeHint().width() < 1024,
                 qPrintable(QString::number(window.minimumSizeHint().width())));
        QVERIFY(file->width() + model->width() <= 1024 * widgetlimits::kStatusLabelsMaxShare);
    }

    // A small graph that fits only a little below the label scale opens with its labels: on a
    // laptop's screen a 20-node tile kernel had opened as blank boxes at Fit.
    void aSmallGraphOpensWithItsLabels() {
        JobRunner runner(QStringLiteral("graphviz"));
        GraphPanel panel(&runner);
        const TpuGraph g = testing::makeHloGraph({20, 2});
        QSignalSpy ready(&panel, &GraphPanel::layoutReady);
        QVERIFY(showLaidOut(panel, QSize(900, 600), g, QStringLiteral("memory:small"), ready));
        // A panel whose drawing area holds the drawing at 0.85 of the label scale.
        const QSize chrome = panel.size() - panel.view()->viewport()->size();
        const QSizeF drawing = panel.scene()->sceneRect().size();
        panel.resize((drawing * vizlimits::kLabelMinScale * 0.85).toSize() + chrome);
        panel.setGraph(g, QStringLiteral("memory:small-again"));
        QVERIFY(ready.wait(30000));
        QVERIFY2(panel.view()->zoom() >= vizlimits::kLabelMinScale,
                 qPrintable(QString::number(panel.view()->zoom())));
    }

    // A group opened by the user comes into view at a zoom whose labels read: Fit on the grown
    // program had shrunk its nodes to specks in a short view.
    void openingAGroupShowsItsNodesLegibly() {
        JobRunner runner(QStringLiteral("graphviz"));
        GraphPanel panel(&runner);
        const TpuGraph g = testing::makeHloGraph({3000, 6});
        QSignalSpy ready(&panel, &GraphPanel::layoutReady);
        QVERIFY(showLaidOut(panel, QSize(900, 380), g, QStringLiteral("memory:open"), ready));
        int group = -1;
        for (const ViewItem& it : panel.scene()->layout()->view.items)
            if (it.kind == ViewItem::Kind::Group && group < 0) group = it.group;
        QVERIFY(group > 0);
        panel.openGroup(group);
        QVERIFY(ready.wait(30000));
        QVERIFY2(panel.view()->zoom() >= vizlimits::kLabelMinScale,
                 qPrintable(QString::number(panel.view()->zoom())));
        const NodeGroup& opened = panel.hierarchy()->group(group);
        const QRectF visible =
            panel.view()->mapToScene(panel.view()->viewport()->rect()).boundingRect();
        int shown = 0;
        const auto& items = panel.scene()->layout()->view.items;
        for (size_t i = 0; i < items.size(); ++i)
            if (items[i].kind == ViewItem::Kind::Node && items[i].node >= opened.first &&
                items[i].node < opened.end &&
                visible.intersects(panel.scene()->nodeItems()[i]->sceneBoundingRect()))
                ++shown;
        QVERIFY2(shown >= 3, qPrintable(QString::number(shown)));
    }

    // A cut view says so and offers the program view, which leaves no node out.
    void aCutViewOffersTheProgramView() {
        JobRunner runner(QStringLiteral("graphviz"));
        GraphPanel panel(&runner);
        const TpuGraph g = testing::makeHloGraph({3000, 6});
        QSignalSpy ready(&panel, &GraphPanel::layoutReady);
        panel.setGraph(g, QStringLiteral("memory:cut"));
        QVERIFY(ready.wait(30000));
        panel.requestView(ViewSpec{ViewMode::Whole});
        QVERIFY(ready.wait(30000));
        QLabel* note = nullptr;
        for (QLabel* label : panel.findChildren<QLabel*>())
            if (label->text().contains(QStringLiteral("Show the program view"))) note = label;
        QVERIFY(note && note->text().contains(QStringLiteral("Showing 1,200 of 3,000")));
        emit note->linkActivated(QStringLiteral("program"));
        QTRY_COMPARE_WITH_TIMEOUT(panel.currentSpec().mode, ViewMode::Groups, 30000);
    }

    // Back after a jump to a node outside the view returns to that view and stays there; the
    // status counts what is drawn.
    // A program of one computation is counted in the singular ("1 computations" was written).
    void theComputationsViewCountsInEnglish() {
        JobRunner runner(QStringLiteral("graphviz"));
        GraphPanel panel(&runner);
        panel.resize(1000, 700);
        QSignalSpy ready(&panel, &GraphPanel::layoutReady);
        QSignalSpy status(&panel, &GraphPanel::statusMessage);
        panel.setGraph(testing::makeHloGraph({60, 1}), QStringLiteral("memory:one"));
        QVERIFY(ready.wait(30000));
        panel.requestView(ViewSpec{ViewMode::Computations});
        QVERIFY(ready.wait(30000));
        const QString said = status.last().at(0).toString();
        QVERIFY2(said.contains(QStringLiteral(": 1 computation · ")), qPrintable(said));
    }

    void backReturnsToThePreviousView() {
        JobRunner runner(QStringLiteral("graphviz"));
        GraphPanel panel(&runner);
        panel.resize(1000, 700);
        const TpuGraph g = testing::makeHloGraph({3000, 6});
        QSignalSpy ready(&panel, &GraphPanel::layoutReady);
        QSignalSpy status(&panel, &GraphPanel::statusMessage);
        panel.setGraph(g, QStringLiteral("memory:back"));
        QVERIFY(ready.wait(30000));
        ViewSpec comp{ViewMode::Computation};
        comp.computation = 1;
        panel.requestView(comp);
        QVERIFY(ready.wait(30000));
        int32_t outside = -1;  // a node of another computation
        for (int64_t n = 0; n < g.numNodes() && outside < 0; ++n)
            if (g.computationOf(n) == 4) outside = static_cast<int32_t>(n);
        panel.showNode(outside);
        QVERIFY(ready.wait(30000));
        QCOMPARE(panel.currentSpec().mode, ViewMode::Neighbourhood);
        QCOMPARE(panel.scene()->selectedNode(), outside);
        QTest::mouseClick(panel.backButton(), Qt::LeftButton);
        QTest::qWait(300);  // a jump away again would be under way now
        QVERIFY(!panel.isLayoutPending());
        QCOMPARE(panel.currentSpec().key(), comp.key());
        QCOMPARE(panel.scene()->layout()->view.spec.key(), comp.key());
        const ViewGraph& v = panel.scene()->layout()->view;
        QVERIFY2(status.last().at(0).toString().startsWith(
                     QStringLiteral("%1: %2 nodes").arg(comp.describe()).arg(v.nodeCount())),
                 qPrintable(status.last().at(0).toString()));
    }

    // Search reaches every node, drawn or not: by id, opcode, shape text or /regex/, with a results
    // list whose entries reveal their node (in its neighbourhood when it is not drawn).
    // In a narrow panel (the graph beside the lesson on a 1366-px screen: 650 px) the search box
    // keeps room for "Find node: id" while the view and colour boxes give way; it had been
    // squeezed to "Fi…" (25 px) though the lesson's first step asks for a search there.
    void searchBoxKeepsItsRoomWhenNarrow() {
        JobRunner runner(QStringLiteral("graphviz"));
        GraphPanel panel(&runner);
        const TpuGraph g = testing::makeHloGraph({200, 2});
        QSignalSpy ready(&panel, &GraphPanel::layoutReady);
        QVERIFY(showLaidOut(panel, QSize(650, 400), g, QStringLiteral("memory:narrow"), ready));
        QLineEdit* search = panel.searchEdit();
        const int needed = search->fontMetrics().horizontalAdvance(QStringLiteral("Find node: id"));
        QTRY_VERIFY2(search->width() >= needed,
                     qPrintable(QStringLiteral("%1 px for %2").arg(search->width()).arg(needed)));
        for (QComboBox* box : panel.findChildren<QComboBox*>())
            QVERIFY2(
                box->width() >= box->fontMetrics().horizontalAdvance(QStringLiteral("op category")),
                qPrintable(QString::number(box->width())));
        QVERIFY(panel.width() <= 650);
        // With room, every box is as wide as it asks.
        panel.resize(1200, 400);
        for (QComboBox* box : panel.findChildren<QComboBox*>())
            QTRY_COMPARE(box->width(), box->sizeHint().width());
    }

    // A cut view's note is laid out before the drawing is fitted: the view shrank under it after,
    // cropping the top row of a drawing that opens from its start (transformer_003's whole graph).
    void aCutViewOpensWithItsFirstRowWhole() {
        JobRunner runner(QStringLiteral("graphviz"));
        GraphPanel panel(&runner);
        const TpuGraph g = testing::makeHloGraph({3000, 6});
        QSignalSpy ready(&panel, &GraphPanel::layoutReady);
        QVERIFY(showLaidOut(panel, QSize(680, 330), g, QStringLiteral("memory:cut"), ready));
        panel.requestView(ViewSpec{ViewMode::Whole});
        QVERIFY(ready.wait(30000));
        QVERIFY(panel.scene()->layout()->view.truncated);  // the note is shown
        const QRectF drawing = panel.scene()->sceneRect();
        const QRectF visible =
            panel.view()->mapToScene(panel.view()->viewport()->rect()).boundingRect();
        QVERIFY2(panel.view()->zoom() >= vizlimits::kLabelMinScale,
                 qPrintable(QString::number(panel.view()->zoom())));
        QVERIFY2(visible.top() <= drawing.top() + 1,
                 qPrintable(QStringLiteral("view from %1, drawing from %2")
                                .arg(visible.top())
                                .arg(drawing.top())));
    }

    // The results' caption ("19 matches for … click one to show it") was one unbreakable line
    // that set the panel's minimum width: in the window both docks gave way to it, for good.
    void searchResultsKeepThePanelNarrow() {
        JobRunner runner(QStringLiteral("graphviz"));
        GraphPanel panel(&runner);
        QSignalSpy ready(&panel, &GraphPanel::layoutReady);
        QVERIFY(showLaidOut(panel, QSize(560, 500), testing::makeHloGraph({3000, 6}),
                            QStringLiteral("memory:narrow"), ready));
        const int before = panel.minimumSizeHint().width();
        panel.showHint(QStringLiteral("Configuration 7, the fastest measured, is chosen."));
        QSignalSpy searched(&panel, &GraphPanel::searchFinished);
        panel.search(
            QStringLiteral("/convolution|multiply|broadcast|parameter|maximum|reshape|add/"));
        QVERIFY(searched.wait(10000));
        QVERIFY(panel.searchResults()->isVisibleTo(&panel));
        QVERIFY2(panel.fontMetrics().horizontalAdvance(panel.searchResultsText()) > 560,
                 qPrintable(panel.searchResultsText()));
        // The hint gives the results its room (with both, the drawing was a strip), and the
        // caption keeps to one clause, the rest in its tooltip.
        QVERIFY(panel.hintText().isEmpty());
        QVERIFY2(panel.searchResultsText().endsWith(QStringLiteral(" · click one to show it")),
                 qPrintable(panel.searchResultsText()));
        QVERIFY2(
            panel.minimumSizeHint().width() <= before,
            qPrintable(QStringLiteral("%1 > %2").arg(panel.minimumSizeHint().width()).arg(before)));
        QCOMPARE(panel.width(), 560);
    }

    void searchFindsEveryNodeDrawnOrNot() {
        JobRunner runner(QStringLiteral("graphviz"));
        GraphPanel panel(&runner);
        panel.resize(1000, 700);
        const TpuGraph g = testing::makeHloGraph({3000, 6});
        QSignalSpy ready(&panel, &GraphPanel::layoutReady);
        panel.setGraph(g, QStringLiteral("memory:search"));
        QVERIFY(ready.wait(30000));  // the computations overview: no node drawn
        QSignalSpy searched(&panel, &GraphPanel::searchFinished);
        int64_t convolutions = 0;
        for (int64_t n = 0; n < g.numNodes(); ++n) convolutions += g.opcodeName(n) == "convolution";
        QVERIFY(convolutions > 1);
        QCOMPARE(panel.search(QStringLiteral("convolution")), 0);  // none drawn...
        QVERIFY(searched.wait(10000));                              // ...but every one found
        QCOMPARE(panel.searchResults()->topLevelItemCount(), static_cast<int>(std::min<int64_t>(convolutions, vizlimits::kMaxSearchMatches)));
        QVERIFY2(panel.searchResultsText().contains(QString::number(convolutions)), qPrintable(panel.searchResultsText()));
        // The first result is shown at once, in its neighbourhood; Enter again shows the next.
        QVERIFY(ready.wait(30000));
        const int32_t first = panel.searchResults()->topLevelItem(0)->data(0, Qt::UserRole).toInt();
        QCOMPARE(panel.scene()->selectedNode(), first);
        QCOMPARE(panel.searchResults()->topLevelItem(0)->text(2), QStringLiteral("✓"));  // now in view
        panel.search(QStringLiteral("convolution"));
        const int32_t second = panel.searchResults()->topLevelItem(1)->data(0, Qt::UserRole).toInt();
        QTRY_COMPARE_WITH_TIMEOUT(panel.scene()->selectedNode(), second, 30000);
        // Shape text and regular expressions; a bad expression says why.
        const QString shape = nodeSubtitle(g, first);
        panel.search(shape.left(shape.indexOf(QLatin1Char('{'))));
        QVERIFY(searched.wait(10000));
        QVERIFY(panel.searchResults()->topLevelItemCount() >= 1);
        QSignalSpy drawnStatus(&panel, &GraphPanel::statusMessage);
        panel.search(QStringLiteral("/^#(12|13) /"));
        QVERIFY(searched.wait(10000));
        QVERIFY(!drawnStatus.isEmpty());  // the drawn ones, said to be the drawn ones
        QVERIFY2(
            drawnStatus.first().at(0).toString().startsWith(QStringLiteral("Drawn match 1 of ")) ||
                drawnStatus.first().at(0).toString().startsWith(QStringLiteral("No drawn node")),
            qPrintable(drawnStatus.first().at(0).toString()));
        QCOMPARE(panel.searchResults()->topLevelItemCount(), 2);
        // The list is as tall as its two rows (it took 160 px for any count, which on a short
        // panel left the drawing a strip), and at most a third of a short panel for many.
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QTreeWidget* list = panel.searchResults();
        const int chrome = list->header()->sizeHint().height() + 2 * list->frameWidth();
        QCOMPARE(list->height(), chrome + 2 * list->sizeHintForRow(0));
        panel.resize(1000, 300);
        panel.search(QStringLiteral("convolution"));
        QVERIFY(searched.wait(10000));
        QTRY_VERIFY2(list->height() <= std::max(chrome + 2 * list->sizeHintForRow(0), 300 / 3),
                     qPrintable(QString::number(list->height())));
        QSignalSpy status(&panel, &GraphPanel::statusMessage);
        panel.search(QStringLiteral("/conv(/"));
        QVERIFY(searched.wait(10000));
        QCOMPARE(panel.searchResults()->topLevelItemCount(), 0);
        QVERIFY2(panel.searchResultsText().contains(QStringLiteral("Not a regular expression")),
                 qPrintable(panel.searchResultsText()));
        // The status bar says the same (it had said no drawn node matched).
        QVERIFY(!status.isEmpty());
        QVERIFY2(status.first().at(0).toString().startsWith(QStringLiteral("Not a regular expression")),
                 qPrintable(status.first().at(0).toString()));
        // No match: nothing to click, so no "click one" (it had said both).
        panel.search(QStringLiteral("no-such-op"));
        QVERIFY(searched.wait(10000));
        QCOMPARE(
            panel.searchResultsText(),
            QStringLiteral("No node matches \"no-such-op\" by id, opcode or shape (/…/ searches by "
                           "regular expression)"));
    }
};

QTEST_MAIN(TestPanels)
#include "test_panels.moc"
