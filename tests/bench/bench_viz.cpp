// Time to first interactive view of the explorer's graph panel, against plain `dot -Tsvg`.
//
//   bench_viz [--sizes 400,5000,45000] [--timeout 120] [--work DIR] [--explore] [--file F.npz ...]
//   bench_viz --write-dataset DIR   (writes a small synthetic dataset tree and exits)
//
// For each size: a synthetic HLO graph (residual blocks of convolution/dot/reshape, some
// configurable, node_splits every ~500 nodes) is written as a .npz. Then, timed:
//   load      loadTpuGraph of that file
//   view      buildViewGraph of the view the explorer opens on (whole / computations / skeleton)
//   dot       layoutWithGraphviz of that view (bounded by VizLimits)
//   scene     GraphScene::showLayout + the first paint of a 1600x1000 view
// and the other views a user reaches in one click (whole, skeleton, one computation, 2-hop
// neighbourhood). With --explore, every group of the program view opened once, depth first (the
// worst and mean time to open one). Then, on the first view, every configurable node marked (as a
// chosen configuration marks them) and selected in What-if: the GUI thread's time. Beside it, the
// whole graph as one .dot file given to the external `dot -Tsvg`, killed after the timeout
// ("timeout").
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QTemporaryDir>
#include <cstdio>
#include <fstream>

#include "graph/GraphFile.h"
#include "GraphScene.h"
#include "GraphView.h"
#include "GraphvizLayout.h"
#include "SyntheticHloGraph.h"
#include "TensorText.h"
#include "NodeHierarchy.h"
#include "ViewGraph.h"
#include "WrappedLayout.h"

using namespace tpg;

namespace {

double ms(const QElapsedTimer& t) {
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

testing::HloGraphSpec specFor(int64_t nodes, const std::string& name) {
    testing::HloGraphSpec s;
    s.nodes = nodes;
    s.computations = static_cast<int>(std::max<int64_t>(1, nodes / 500));
    s.configurableEvery = 3;
    s.configs = 1000;
    s.name = name;
    return s;
}

// The whole graph, labelled as the explorer labels it: what a user would hand to dot.
void writeWholeDot(const TpuGraph& g, const QString& path) {
    std::ofstream out(path.toStdString());
    out << "digraph g {\n  node [shape=box];\n";
    for (int64_t n = 0; n < g.numNodes(); ++n)
        out << "  n" << n << " [label=\"#" << n << " " << g.opcodeName(n) << "\\n"
            << tensorString(g.nodeFeatures(n), g.nodeFeatureWidth()).toStdString() << "\"];\n";
    for (const auto& e : g.edges()) out << "  n" << e[1] << " -> n" << e[0] << ";\n";
    out << "}\n";
}

QString timeExternalDot(const QString& dotFile, int timeoutSec) {
    QProcess p;
    QElapsedTimer t;
    t.start();
    p.start(QStringLiteral("dot"),
            {QStringLiteral("-Tsvg"), QStringLiteral("-o"), QStringLiteral("/dev/null"), dotFile});
    if (!p.waitForStarted(5000)) return QStringLiteral("dot not found");
    if (!p.waitForFinished(timeoutSec * 1000)) {
        p.kill();
        p.waitForFinished(5000);
        return QStringLiteral("timeout (>%1 s)").arg(timeoutSec);
    }
    if (p.exitCode() != 0) return QStringLiteral("failed (exit %1)").arg(p.exitCode());
    return QStringLiteral("%1 s").arg(ms(t) / 1000.0, 0, 'f', 2);
}

struct ViewTiming {
    double viewMs = 0, dotMs = 0, sceneMs = 0;
    int64_t items = 0;
    bool truncated = false;
};

constexpr double kWindowAspect = 1600.0 / 1000.0;  // the benchmark's window

QString g_dumpDir;  // --dump-dot DIR: each view's .dot as dot receives it, for tuning by hand

ViewTiming timeView(const TpuGraph& g, const ViewSpec& spec) {
    ViewTiming r;
    QElapsedTimer t;
    t.start();
    ViewGraph v = buildViewGraph(g, spec);
    r.viewMs = ms(t);
    if (!g_dumpDir.isEmpty()) {
        std::ofstream out(
            QDir(g_dumpDir)
                .filePath(QStringLiteral("%1_%2.dot")
                              .arg(g.numNodes())
                              .arg(spec.key().replace(QLatin1Char(':'), QLatin1Char('_'))))
                .toStdString());
        out << toDot(v);
    }
    r.items = static_cast<int64_t>(v.items.size());
    r.truncated = v.truncated;
    t.restart();
    auto layout = layoutView(std::move(v), kWindowAspect);
    r.dotMs = ms(t);
    t.restart();
    GraphScene scene;
    scene.showLayout(g, layout);
    GraphView view;
    view.setScene(&scene);
    view.resize(1600, 1000);
    view.fitAll();
    QImage image(1600, 1000, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    view.render(&painter);
    painter.end();
    r.sceneMs = ms(t);
    return r;
}

// Marks on the first view: every configurable node marked and selected in What-if at once, the
// most a chosen configuration or Select Alike asks of the GUI thread (boxes gather their nodes').
void timeMarks(const TpuGraph& g) {
    GraphScene scene;
    scene.showLayout(g, layoutView(buildViewGraph(g, defaultViewSpec(g)), kWindowAspect));
    QHash<int32_t, QString> marks;
    QVector<int32_t> selected;
    for (int32_t n : g.configurableNodes()) {
        marks.insert(n, QStringLiteral("config 1: output {1,0}"));
        selected.push_back(n);
    }
    constexpr int kRepeats = 10;
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < kRepeats; ++i) {
        scene.setMarkedNodes(i % 2 ? QHash<int32_t, QString>() : marks);
        scene.setAlsoSelected(i % 2 ? QVector<int32_t>() : selected);
    }
    std::printf(
        "%-7lld marks: %lld configurable nodes marked and selected, then cleared: mean "
        "%.2f ms per change\n",
        static_cast<long long>(g.numNodes()), static_cast<long long>(selected.size()),
        ms(t) / kRepeats);
}

// Every group of the program view opened once, as a user exploring it would: depth first, each
// group added to what is open (the item budget closes the oldest). Each open is timed as the
// explorer does it: build the view, lay it out.
void exploreGroups(const TpuGraph& g) {
    const NodeHierarchy h(g);
    ViewSpec spec;
    spec.mode = ViewMode::Groups;
    double worst = 0, sum = 0;
    int opened = 0, worstGroup = -1;
    std::vector<int> stack(h.group(NodeHierarchy::root()).children.rbegin(), h.group(NodeHierarchy::root()).children.rend());
    while (!stack.empty()) {
        const int id = stack.back();
        stack.pop_back();
        spec.open.push_back(id);
        QElapsedTimer t;
        t.start();
        ViewGraph v = buildViewGraph(g, spec);
        spec.open = v.open;
        layoutView(std::move(v), kWindowAspect);
        const double took = ms(t);
        sum += took;
        ++opened;
        if (took > worst) worst = took, worstGroup = id;
        const auto& children = h.group(id).children;
        stack.insert(stack.end(), children.rbegin(), children.rend());
    }
    std::printf("%-7lld explored: every group opened once: %d groups, mean %.1f ms, worst %.1f ms (group %d: %s)\n",
                static_cast<long long>(g.numNodes()), opened, opened ? sum / opened : 0.0, worst, worstGroup,
                worstGroup >= 0 ? qPrintable(h.group(worstGroup).title) : "");
    std::fflush(stdout);
}

int writeDataset(const QString& dir) {
    struct File {
        const char* path;
        int64_t nodes;
        Collection c;
    };
    const File files[] = {
        {"npz/layout/xla/random/valid/resnet_synthetic.npz", 420, Collection::Layout},
        {"npz/layout/xla/random/train/wide_synthetic.npz", 3000, Collection::Layout},
        {"npz/tile/xla/train/fusion_synthetic.npz", 40, Collection::Tile}};
    for (const File& f : files) {
        const QString path = QDir(dir).filePath(QString::fromLatin1(f.path));
        QDir().mkpath(QFileInfo(path).absolutePath());
        auto spec = specFor(f.nodes, QFileInfo(path).completeBaseName().toStdString());
        spec.collection = f.c;
        spec.computations = f.nodes >= 1000 ? static_cast<int>(f.nodes / 500) : 2;
        spec.configs = f.c == Collection::Tile ? 24 : 200;
        saveTpuGraph(testing::makeHloGraph(spec), path.toStdString(), true);
        std::printf("wrote %s\n", qPrintable(path));
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStringList args = app.arguments();
    QList<int64_t> sizes = {400, 5000, 45000};
    int timeoutSec = 120;
    QString work;
    bool explore = false;
    QStringList files;  // --file F: real or generated .npz files instead of the synthetic sizes
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--write-dataset") && i + 1 < args.size())
            return writeDataset(args[++i]);
        if (args[i] == QLatin1String("--timeout") && i + 1 < args.size())
            timeoutSec = args[++i].toInt();
        else if (args[i] == QLatin1String("--work") && i + 1 < args.size())
            work = args[++i];
        else if (args[i] == QLatin1String("--explore"))
            explore = true;
        else if (args[i] == QLatin1String("--file") && i + 1 < args.size())
            files << args[++i];
        else if (args[i] == QLatin1String("--dump-dot") && i + 1 < args.size())
            g_dumpDir = args[++i];
        else if (args[i] == QLatin1String("--sizes") && i + 1 < args.size()) {
            sizes.clear();
            for (const QString& s : args[++i].split(QLatin1Char(','))) sizes << s.toLongLong();
        } else {
            std::fprintf(stderr,
                         "usage: bench_viz [--sizes 400,5000,45000] [--timeout 120] [--work DIR] "
                         "[--dump-dot DIR] [--explore] [--file F.npz ...] | "
                         "--write-dataset DIR\n");
            return 2;
        }
    }
    QTemporaryDir tmp;
    if (work.isEmpty()) work = tmp.path();
    QDir().mkpath(work);

    std::printf("%-7s %-13s %7s %8s %8s %8s %9s %10s  %s\n", "nodes", "view", "items", "load ms",
                "view ms", "dot ms", "scene ms", "total ms", "plain dot -Tsvg (whole graph)");
    if (!files.isEmpty()) sizes.clear();
    for (qsizetype i = 0; i < files.size(); ++i) sizes << -1;  // one row group per file
    int fileIndex = 0;
    for (int64_t n : sizes) {
        QString file = n < 0 ? files[fileIndex++] : QDir(work).filePath(QStringLiteral("synthetic_%1.npz").arg(n));
        if (n >= 0) saveTpuGraph(testing::makeHloGraph(specFor(n, "synthetic")), file.toStdString(), true);
        QElapsedTimer t;
        t.start();
        const TpuGraph g = loadTpuGraph(file.toStdString());
        const double loadMs = ms(t);
        n = g.numNodes();

        const QString dotFile = QDir(work).filePath(QStringLiteral("synthetic_%1.dot").arg(n));
        writeWholeDot(g, dotFile);
        const QString plain = timeExternalDot(dotFile, timeoutSec);

        const ViewSpec first = defaultViewSpec(g);
        std::vector<std::pair<QString, ViewSpec>> views = {
            {QStringLiteral("FIRST:") + first.key(), first}};
        if (first.mode != ViewMode::Whole)
            views.push_back({QStringLiteral("whole"), ViewSpec{ViewMode::Whole}});
        views.push_back({QStringLiteral("skeleton"), ViewSpec{ViewMode::Skeleton}});
        if (computations(g).size() > 1) {
            ViewSpec c{ViewMode::Computation};
            c.computation = 1;
            views.push_back({QStringLiteral("comp:1"), c});
        }
        ViewSpec hood{ViewMode::Neighbourhood};
        hood.center = g.configurableNodes().empty() ? 0 : g.configurableNodes()[g.configurableNodes().size() / 2];
        views.push_back({QStringLiteral("hood:2"), hood});
        bool firstRow = true;
        for (const auto& [name, spec] : views) {
            const ViewTiming v = timeView(g, spec);
            const double total = (firstRow ? loadMs : 0) + v.viewMs + v.dotMs + v.sceneMs;
            std::printf("%-7lld %-13s %7lld %8s %8.1f %8.1f %9.1f %10.1f  %s\n",
                        static_cast<long long>(n), qPrintable(name),
                        static_cast<long long>(v.items),
                        firstRow ? qPrintable(QString::number(loadMs, 'f', 1)) : "", v.viewMs,
                        v.dotMs, v.sceneMs, total, firstRow ? qPrintable(plain) : "");
            std::fflush(stdout);
            firstRow = false;
        }
        timeMarks(g);
        if (explore && first.mode == ViewMode::Groups) exploreGroups(g);
    }
    return 0;
}
