// Test-split files take the ground-truth runtimes shipped beside a dataset: attached when they fit,
// a warning when they do not, nothing for files outside a dataset tree or with runtimes.
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "graph/GraphFile.h"
#include "graph/GroundTruth.h"
#include <fstream>

#include "io/NpyFormat.h"
#include "synth/SyntheticDataset.h"

using namespace tpg;
namespace fs = std::filesystem;

class TestGroundTruth : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::vector<synth::SynthFile> m_files;

    const synth::SynthFile* file(const std::string& split, bool layout) const {
        for (const auto& f : m_files)
            if (f.split == split && (f.collection.rfind("layout", 0) == 0) == layout) return &f;
        return nullptr;
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        synth::SynthOptions o;
        o.outDir = m_dir.path().toStdString();
        o.seed = 3;
        o.tileGraphs = 3;
        o.layoutGraphs = 3;
        o.configs = 20;
        o.minNodes = 60;
        o.maxNodes = 120;
        o.collections = {"tile:xla", "layout:xla:random"};
        m_files = synth::generateDataset(o);
        QVERIFY(file("test", true) && file("test", false) && file("train", true));
    }

    void pathMirrorsTheNpzTree() {
        QCOMPARE(groundTruthPath("/d/npz/layout/xla/random/test/r_003.npz"),
                 std::string("/d/ground_truth/layout/xla/random/test/r_003.config_runtime.npy"));
        QCOMPARE(groundTruthPath("/d/loose/r.npz"), std::string());
    }

    void testFilesGetTheirRuntimes() {
        for (bool layout : {true, false}) {
            const std::string path = file("test", layout)->path;
            const TpuGraph raw = loadTpuGraph(path);
            QVERIFY(!raw.runtimesKnown());
            const TpuGraph g = withGroundTruth(raw, path);
            QVERIFY(g.runtimesKnown());
            QCOMPARE(g.numConfigs(), raw.numConfigs());
            QCOMPARE(g.runtimeSource(), groundTruthPath(path));
            QCOMPARE(g.warnings().size(), size_t{0});  // a fact of the file, not a warning
            QVERIFY(raw.runtimeSource().empty());
            if (!layout) QCOMPARE(g.runtimeNormalizers().size(), g.runtimes().size());
        }
    }

    void aGroundTruthThatDoesNotFitIsAWarning() {
        const std::string path = file("test", true)->path;
        const std::string truth = groundTruthPath(path);
        fs::copy_file(truth, truth + ".saved", fs::copy_options::overwrite_existing);
        {  // 2 runtimes for 20 configurations
            const std::vector<uint8_t> header = makeNpyHeader(DType::F64, {2});
            const double values[2] = {1.0, 2.0};
            std::ofstream out(truth, std::ios::binary | std::ios::trunc);
            out.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));
            out.write(reinterpret_cast<const char*>(values), sizeof values);
        }
        const TpuGraph g = withGroundTruth(loadTpuGraph(path), path);
        fs::rename(truth + ".saved", truth);
        QVERIFY(!g.runtimesKnown());
        QVERIFY(!g.warnings().empty());
        QVERIFY2(g.warnings().back().find("expected 20 runtimes") != std::string::npos, g.warnings().back().c_str());
    }

    void filesWithRuntimesOrOutsideATreeAreUnchanged() {
        const std::string train = file("train", true)->path;
        const TpuGraph g = loadTpuGraph(train);
        QCOMPARE(withGroundTruth(g, train).runtimes(), g.runtimes());
        const std::string loose = m_dir.filePath(QStringLiteral("loose.npz")).toStdString();
        fs::copy_file(file("test", true)->path, loose);
        QVERIFY(!withGroundTruth(loadTpuGraph(loose), loose).runtimesKnown());
    }
};

QTEST_GUILESS_MAIN(TestGroundTruth)
#include "test_ground_truth.moc"
