// The cost model's pipeline through its public (torch-free) API: pruning, features, trainer,
// checkpoints, compatibility messages, baseline.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <thread>

#include "CostModel.h"
#include "DefaultModels.h"
#include "EpochPlan.h"
#include "Evaluation.h"
#include "GraphBlindLinearRanker.h"
#include "LayoutSlotShapes.h"
#include "ModelInfo.h"
#include "PreparedGraph.h"
#include "Refusal.h"
#include "TinyGraphs.h"
#include "Trainer.h"
#include "TrainingLog.h"
#include "graph/DatasetIndex.h"
#include "graph/GraphFile.h"
#include "io/Error.h"

using namespace tpg;
using namespace tpg::nn;
namespace fs = std::filesystem;

namespace {

TpuGraph chainGraph(int n, std::vector<int32_t> configurable) {
    TpuGraphData d;
    d.name = "chain";
    d.numNodes = n;
    d.nodeFeatureWidth = schema::kNodeFeatureWidth;
    d.nodeFeatures.assign(static_cast<size_t>(n * d.nodeFeatureWidth), 0.0f);
    for (int i = 0; i < n; ++i) {
        tiny::setShape(d.nodeFeatures, i, d.nodeFeatureWidth, {8, 256});  // largest = dim 1
        d.opcodes.push_back(schema::opcodeId("convolution"));
        if (i > 0) d.edges.push_back({i, i - 1});
    }
    d.configurableNodes = configurable;
    const int64_t nc = static_cast<int64_t>(configurable.size()), w = schema::kLayoutConfigWidth;
    d.configFeatureWidth = w;
    CompactMatrix m(nc * w);
    // config 0: every node minor = 1 (good); config 1: minor = 0 (violates); config 2 = config 0.
    for (int c = 0; c < 3; ++c) {
        std::vector<float> row(static_cast<size_t>(nc * w), -1.0f);
        for (int64_t k = 0; k < nc; ++k) {
            row[static_cast<size_t>(k * w)] = c == 1 ? 0.0f : 1.0f;
            row[static_cast<size_t>(k * w + 1)] = c == 1 ? 1.0f : 0.0f;
        }
        m.appendRows(row.data(), 1);
    }
    d.runtimes = {100, 200, 102};
    d.layoutConfigs = LayoutConfigTable::fromMatrix(std::move(m), nc, w);
    return TpuGraph(std::move(d));
}

TrainSettings quickSettings(const std::string& data, const std::string& collection,
                            const std::string& out) {
    TrainSettings s;
    s.dataDir = data;
    s.collection = collection;
    s.outPath = out;
    s.epochs = 6;
    s.seed = 3;
    s.threads = 2;
    s.model.hidden = 32;
    s.model.layers = 3;
    s.configsPerStep = 32;
    s.patience = 100;
    s.learningRate = 3e-3;
    return s;
}

// The epoch (1-based) a run keeps from its epochs' figures: the first best `figure`, a tie of it
// going to a better Kendall (TrainingRun::recordEpoch's rule, written out).
int keptEpoch(const std::vector<double>& figure, const std::vector<double>& kendall) {
    int kept = 0;
    double best = -std::numeric_limits<double>::infinity(), bestKendall = best;
    for (size_t e = 0; e < figure.size(); ++e) {
        const bool tie = std::abs(figure[e] - best) <= 1e-6 && kendall[e] > bestKendall + 1e-6;
        if (figure[e] > best + 1e-6 || tie) {
            kept = static_cast<int>(e) + 1;
            best = figure[e];
            bestKendall = kendall[e];
        }
    }
    return kept;
}

// Rewrites a training state's JSON (as an older or edited state would read).
void editState(const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
    ModelFileContents c = readModelFile(path, kResumeMagic);
    nlohmann::json j = nlohmann::json::parse(c.json);
    edit(j);
    c.json = j.dump();
    writeModelFile(path, kResumeMagic, c);
}

}  // namespace

class TestNnTraining : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string data() const { return (m_dir.path() + "/data").toStdString(); }
    std::string path(const char* f) const { return (m_dir.path() + "/" + f).toStdString(); }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        tiny::writeDataset(data(), 8, 3, 2, 60, 48);
        setThreads(2);
    }

    void pruningKeepsKHopNeighbourhood() {
        const TpuGraph g = chainGraph(7, {3});
        QCOMPARE(prepareGraph(g, 0).nodeIds, (std::vector<int32_t>{3}));
        QCOMPARE(prepareGraph(g, 1).nodeIds, (std::vector<int32_t>{2, 3, 4}));
        QCOMPARE(prepareGraph(g, 2).nodeIds, (std::vector<int32_t>{1, 2, 3, 4, 5}));
        const PreparedGraph full = prepareGraph(g, -1);
        QCOMPARE(full.numNodes(), int64_t{7});
        QCOMPARE(full.edges.size(), size_t{6});
        const PreparedGraph one = prepareGraph(g, 1);
        QCOMPARE(one.edges.size(), size_t{2});  // only edges inside the kept set
        QCOMPARE(one.configurablePos, (std::vector<int64_t>{1}));
    }

    void nodeLayoutRepaddedWithMinusOne() {
        std::vector<float> in(schema::kNodeFeatureWidth, 0.0f), out(in.size());
        tiny::setShape(in, 0, schema::kNodeFeatureWidth,
                       {8, 256});  // rank 2, layout {1, 0, 0, 0, 0, 0}
        transformNodeFeatures(in.data(), schema::kNodeFeatureWidth, out.data());
        QCOMPARE(out[schema::kNodeLayoutColumn], std::log1p(1.0f));
        QCOMPARE(out[schema::kNodeLayoutColumn + 1], 0.0f);  // axis 0 stays a real 0
        for (int d = 2; d < schema::kMaxRank; ++d)
            QCOMPARE(out[schema::kNodeLayoutColumn + d], -std::log1p(1.0f));
        QCOMPARE(out[schema::kShapeDimColumn + 1],
                 std::log1p(256.0f));  // large magnitudes log-scaled
        // A trimmed width is only log-scaled (its columns cannot be located).
        std::vector<float> trimmed(100, 3.0f), t2(100);
        transformNodeFeatures(trimmed.data(), 100, t2.data());
        QCOMPARE(t2[99], std::log1p(3.0f));
    }

    void violationRatioAndDistinctConfigs() {
        const TpuGraph g = chainGraph(5, {1, 3});
        const PreparedGraph p = prepareGraph(g, 1);
        const auto c0 = g.layoutConfigs()->config(0), c1 = g.layoutConfigs()->config(1);
        QCOMPARE(violationRatio(p, c0.data(), 18), 0.0f);
        QCOMPARE(violationRatio(p, c1.data(), 18), 1.0f);
        const DistinctConfigs d = distinctConfigs(g);
        QCOMPARE(d.index, (std::vector<int64_t>{0, 1}));
        QCOMPARE(d.runtime[0], 101.0);  // duplicates averaged
        QCOMPARE(d.groupOf, (std::vector<int32_t>{0, 1, 0}));
        QVERIFY(configHeldOut("g", 5, 1.0) && !configHeldOut("g", 5, 0.0));
    }

    void bfloat16ProductsLearnAsFloatDoes() {
        TrainSettings s = quickSettings(data(), "layout:xla:random", path("bf16.tpgm"));
        s.products = TrainSettings::Products::BFloat16;
        if (!bfloat16TrainingAvailable()) {
            QVERIFY(throwsWith([&] { trainCostModel(s); }, "this CPU has no bfloat16 units"));
            QSKIP("this CPU has no bfloat16 units");
        }
        std::vector<std::string> messages;
        const TrainResult rounded = trainCostModel(s, [&](const TrainProgress& p) {
            if (p.phase == TrainProgress::Phase::Preparing) messages.push_back(p.message);
        });
        QVERIFY(std::find(messages.begin(), messages.end(), "training products in bfloat16") != messages.end());
        s.products = TrainSettings::Products::Float32;
        s.outPath = path("float.tpgm");
        const TrainResult exact = trainCostModel(s);
        QVERIFY(rounded.saved && exact.saved);
        QVERIFY2(rounded.best.kendall > 0.15 && rounded.best.kendall > exact.best.kendall - 0.1,
                 qPrintable(QString("valid Kendall bfloat16 %1, float %2").arg(rounded.best.kendall).arg(exact.best.kendall)));
        // The saved weights are float, and scoring multiplies in float.
        const CostModel m = CostModel::load(path("bf16.tpgm"));
        QCOMPARE(m.info().validation.kendall, rounded.best.kendall);
    }

    void layoutTrainingLearns() {
        std::vector<double> epochLoss;
        std::vector<ValidationSummary> valid;
        TrainSettings s = quickSettings(data(), "layout:xla:random", path("layout.tpgm"));
        const TrainResult r = trainCostModel(s, [&](const TrainProgress& p) {
            if (p.phase == TrainProgress::Phase::EpochDone) {
                epochLoss.push_back(p.loss);
                valid.push_back(p.validation);
            }
        });
        QVERIFY(r.saved);
        QCOMPARE(r.epochsRun, s.epochs);
        QCOMPARE(epochLoss.size(), size_t(s.epochs));
        QVERIFY2(epochLoss.back() < 0.7 * epochLoss.front(),
                 qPrintable(QString("loss %1 -> %2").arg(epochLoss.front()).arg(epochLoss.back())));
        QVERIFY2(r.best.opa > 0.6,
                 qPrintable(QString("valid OPA %1").arg(r.best.opa)));  // chance is 0.5
        QVERIFY(r.best.kendall > 0.15);

        // The saved model: metadata, and the same validation figures when re-scored.
        const CostModel m = CostModel::load(s.outPath);
        QCOMPARE(m.kind(), Collection::Layout);
        QCOMPARE(m.info().collection, std::string("layout:xla:random"));
        QCOMPARE(m.info().nodeFeatureWidth, int64_t{140});
        QCOMPARE(m.info().configWidth, int64_t{18});
        QCOMPARE(m.info().trainGraphs, int64_t{8});
        QCOMPARE(m.info().validation.opa, r.best.opa);
        const auto files = selectFiles(scanDataset(data()), "layout:xla:random", "valid");
        const auto metrics = evaluateFiles(files,
                                           [&](const TpuGraph& g, const std::vector<int64_t>& ids) {
                                               return m.scoreConfigs(g, ids);
                                           },
                                           {});
        // (oneDNN may pick other kernels for other batch sizes: near-ties can flip.)
        QVERIFY(std::abs(summarize(Collection::Layout, metrics).opa - r.best.opa) < 0.01);
        // scoreAll streams in batches and agrees with scoreConfigs and scoreRows.
        LoadOptions lo;
        const TpuGraph g = loadTpuGraph(files[0].path, lo);
        const auto all = m.scoreAll(g);
        QCOMPARE(all.size(), size_t(g.numConfigs()));
        const auto some = m.scoreConfigs(g, {5, 2});
        QVERIFY(std::abs(some[0] - all[5]) < 1e-4 && std::abs(some[1] - all[2]) < 1e-4);
        const auto row = g.layoutConfigs()->config(7);
        QVERIFY(std::abs(m.scoreRows(g, row.data(), 1)[0] - all[7]) < 1e-4);
        // Bytes round trip.
        const CostModel copy = CostModel::fromBytes(m.toBytes(), "copy");
        QCOMPARE(copy.scoreAll(g), all);
    }

    void pooledHeadWhereverSomethingNeedsIt() {
        ModelSettings m;
        QVERIFY(!m.pooledHead && m.nodeCostReadout && !takesPooledHead(m));  // today's default
        m.violationFeature = true;
        QVERIFY(takesPooledHead(m));
        m.violationFeature = false;
        m.configAttention = true;
        QVERIFY(takesPooledHead(m));
        m.configAttention = false;
        m.nodeCostReadout = false;  // nothing else to score with
        QVERIFY(takesPooledHead(m));
        m.nodeCostReadout = true;
        m.pooledHead = true;
        QVERIFY(takesPooledHead(m));
    }

    void modelShapeFollowsTheKindUnlessGiven() {
        QCOMPARE(TrainSettings{}.model.hidden, 0);  // training starts from "auto"
        QCOMPARE(TrainSettings{}.model.layers, 0);
        ModelSettings given;
        given.hidden = 32;
        given.layers = 0;
        resolveModelShape(given, Collection::Layout);
        QCOMPARE(given.hidden, 32);  // a width asked for stays
        QCOMPARE(given.layers, defaultModelShape(Collection::Layout).layers);
        QCOMPARE(defaultModelShape(Collection::Layout).hidden, 48);
        QCOMPARE(defaultModelShape(Collection::Tile).hidden, 64);
        for (const char* collection : {"layout:xla:random", "tile:xla"}) {  // as trained and saved
            TrainSettings s = quickSettings(data(), collection, path("shape.tpgm"));
            s.model.hidden = 0;
            s.model.layers = 0;
            s.epochs = 1;
            QVERIFY(trainCostModel(s, {}).saved);
            const ModelInfo info = readModelInfo(s.outPath);
            const ModelShape best = defaultModelShape(info.kind);
            QCOMPARE(info.settings.hidden, best.hidden);
            QCOMPARE(info.settings.layers, best.layers);
        }
    }

    void tileTrainingLearns_data() {
        QTest::addColumn<bool>("boundsFeatures");
        QTest::addColumn<bool>("spillFeatures");
        QTest::addColumn<bool>("trafficFeatures");
        QTest::newRow("raw bounds") << false << false << false;
        QTest::newRow("bounds features") << true << false << false;
        QTest::newRow("bounds and spill features") << true << true << false;
        QTest::newRow("bounds, spill and traffic features") << true << true << true;  // the default, last: tile.tpgm
    }
    void tileTrainingLearns() {
        QFETCH(bool, boundsFeatures);
        QFETCH(bool, spillFeatures);
        QFETCH(bool, trafficFeatures);
        TrainSettings s = quickSettings(data(), "tile:xla", path("tile.tpgm"));
        s.epochs = 8;
        s.model.boundsFeatures = boundsFeatures;
        s.model.spillFeatures = spillFeatures;
        s.model.trafficFeatures = trafficFeatures;
        s.graphsPerStep = 2;
        std::vector<double> epochLoss;
        const TrainResult r = trainCostModel(s, [&](const TrainProgress& p) {
            if (p.phase == TrainProgress::Phase::EpochDone) epochLoss.push_back(p.loss);
        });
        QVERIFY(r.saved);
        QVERIFY(epochLoss.back() < epochLoss.front());
        QVERIFY2(r.best.opa > 0.6, qPrintable(QString("tile valid OPA %1").arg(r.best.opa)));
        QVERIFY(std::isfinite(r.best.slowdown5) && r.best.slowdown5 >= 0);
        const CostModel m = CostModel::load(s.outPath);
        QCOMPARE(m.kind(), Collection::Tile);
        QCOMPARE(m.info().configWidth, int64_t{24});
        QCOMPARE(m.info().settings.boundsFeatures, boundsFeatures);
        QCOMPARE(m.info().settings.spillFeatures, spillFeatures);
        QCOMPARE(m.info().settings.trafficFeatures, trafficFeatures);
    }

    void compatibilityMessages() {
        const CostModel tile = CostModel::load(path("tile.tpgm"));
        const TpuGraph layout = tiny::layoutGraph(77, 20, 5);
        QVERIFY(tile.incompatibility(layout).find(
                    "trained for tile:xla, cannot score layout files") != std::string::npos);
        QVERIFY(throwsWith([&] { tile.scoreAll(layout); }, "cannot score layout files"));
        // Width mismatch: a trimmed copy of a layout graph.
        TpuGraphData d = layout.data();
        d.nodeFeatureWidth = 100;
        std::vector<float> f;
        for (int64_t n = 0; n < d.numNodes; ++n)
            f.insert(f.end(), layout.nodeFeatures(n), layout.nodeFeatures(n) + 100);
        d.nodeFeatures = f;
        const CostModel lm = CostModel::load(path("layout.tpgm"));
        QVERIFY(
            throwsWith([&] { lm.scoreAll(TpuGraph(d)); }, "trained on 140 node feature columns"));
    }

    void modelsFromBeforeSlotFeaturesLoadWithoutThem() {
        ModelInfo info;
        info.collection = "layout:xla:random";
        info.stats = computeFeatureStats({tiny::layoutGraph(5, 20, 4)});
        info.nodeFeatureWidth = schema::kNodeFeatureWidth;
        info.configWidth = schema::kLayoutConfigWidth;
        QVERIFY(info.settings.slotFeatures && info.settings.nodeCostReadout);  // today's defaults
        info.settings.boundsFeatures = info.settings.spillFeatures = info.settings.trafficFeatures = true;
        std::string json = modelInfoToJson(info);
        for (const char* key : {"\"slot_features\": true,", "\"node_cost_readout\": true,",
                                "\"bounds_features\": true,", "\"spill_features\": true,",
                                "\"traffic_features\": true,"}) {
            const size_t at = json.find(key);
            QVERIFY2(at != std::string::npos, key);
            json.erase(at, std::string(key).size());
        }
        const size_t head = json.find("\"pooled_head\"");  // unknown to older readers: absent
        QVERIFY(head != std::string::npos);
        json.replace(head, 13, "\"pooled_hexx\"");
        const ModelInfo old = modelInfoFromJson(json, "old.tpgm");
        QVERIFY(!old.settings.slotFeatures && !old.settings.nodeCostReadout &&
                !old.settings.boundsFeatures && !old.settings.spillFeatures && !old.settings.trafficFeatures);
        QVERIFY(old.settings.pooledHead);  // every model had the pooled head before the option
        QCOMPARE(modelInfoFromJson(modelInfoToJson(info), "new.tpgm").settings, info.settings);
        info.settings.pooledHead = !info.settings.pooledHead;
        QCOMPARE(modelInfoFromJson(modelInfoToJson(info), "new.tpgm").settings, info.settings);
    }

    void modelFilesRecordTheLossParameters() {
        ModelInfo info;
        info.stats = computeFeatureStats({tiny::layoutGraph(5, 20, 4)});
        info.nodeFeatureWidth = schema::kNodeFeatureWidth;
        info.configWidth = schema::kLayoutConfigWidth;
        info.loss = "hinge";
        info.margin = 0.3;
        info.temperature = 0.05;
        info.listMleWeight = 0.5;
        std::string json = modelInfoToJson(info);
        const ModelInfo read = modelInfoFromJson(json, "new.tpgm");
        QCOMPARE(read.margin, 0.3);
        QCOMPARE(read.temperature, 0.05);
        QCOMPARE(read.listMleWeight, 0.5);
        for (const char* key : {"\"margin\": ", "\"temperature\": ", "\"listmle_weight\": "}) {
            const size_t at = json.find(key);  // files from before the keys: the defaults they trained with
            QVERIFY2(at != std::string::npos, key);
            json.erase(at, json.find(',', at) + 1 - at);
        }
        const ModelInfo old = modelInfoFromJson(json, "old.tpgm");
        QCOMPARE(old.margin, kDefaultMargin);
        QCOMPARE(old.temperature, kDefaultTemperature);
        QCOMPARE(old.listMleWeight, 0.0);
    }

    void badModelFilesGiveOneClearMessage() {
        QVERIFY(throwsWith([&] { CostModel::load(path("missing.tpgm")); }, "no such model file"));
        { std::ofstream(path("garbage.tpgm")) << "hello, not a model"; }
        QVERIFY(throwsWith([&] { CostModel::load(path("garbage.tpgm")); },
                           "not a tpugraphs cost model file"));
        std::ifstream in(path("layout.tpgm"), std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), {});
        QVERIFY(throwsWith([&] { CostModel::fromBytes(bytes.substr(0, bytes.size() / 2), "half"); },
                           "truncated"));
        std::string badJson = bytes;
        badJson[40] = '}';  // inside the metadata
        QVERIFY(throwsWith([&] { CostModel::fromBytes(badJson, "badjson"); }, "badjson"));
        std::string badWeights = bytes;
        for (size_t i = bytes.size() - 200; i < bytes.size() - 100; ++i) badWeights[i] = 'x';
        QVERIFY(throwsWith([&] { CostModel::fromBytes(badWeights, "badweights"); },
                           "badweights: damaged: the file's checksum does not match its contents"));
        QVERIFY(
            throwsWith([&] { CostModel::load(path("layout.tpgm.state")); }, "training-state file"));
        // One changed digit of the metadata (a normalisation statistic) is caught by the checksum.
        std::string digit = bytes;
        const size_t statistic = digit.find("\"inv_std\"");
        QVERIFY(statistic != std::string::npos);
        const size_t d = digit.find_first_of("123456789", statistic);
        digit[d] = digit[d] == '9' ? '8' : static_cast<char>(digit[d] + 1);
        QVERIFY(throwsWith([&] { CostModel::fromBytes(digit, "digit"); },
                           "digit: damaged: the file's checksum does not match its contents"));
        QVERIFY(throwsWith([&] { CostModel::fromBytes(bytes + "xy", "tail"); },
                           "tail: 6 unexpected bytes after the weights"));
        // Metadata describing another network than the weights (e.g. another version's model).
        ModelFileContents contents = parseModelBytes(bytes, "layout.tpgm", kModelMagic);
        const size_t at = contents.json.find("\"hidden\": 32");
        QVERIFY(at != std::string::npos);
        contents.json.replace(at, 12, "\"hidden\": 16");
        QVERIFY(throwsWith(
            [&] { CostModel::fromBytes(encodeModelFile(kModelMagic, contents), "other"); },
            "other: key 'weights': parameter"));
        QVERIFY(throwsWith([&] { readModelInfo(path("garbage.tpgm")); },
                           "not a tpugraphs cost model file"));
        QCOMPARE(readModelInfo(path("layout.tpgm")).collection, std::string("layout:xla:random"));
    }

    void resumeContinuesAndCancelStops() {
        TrainSettings s = quickSettings(data(), "layout:xla:random", path("resume.tpgm"));
        s.epochs = 1;
        const TrainResult first = trainCostModel(s);
        QCOMPARE(first.epochsRun, 1);
        QVERIFY(first.best.graphs > 0);
        // A resumed run whose kept epoch came before the resume reports that epoch's validation
        // (it reported "score 0.0000 (0 graphs)").
        s.resume = true;
        const TrainResult nothingLeft = trainCostModel(s);
        QVERIFY(nothingLeft.saved);
        QCOMPARE(nothingLeft.best.graphs, first.best.graphs);
        QCOMPARE(nothingLeft.best.score, first.best.score);
        QCOMPARE(nothingLeft.best.kendall, first.best.kendall);
        s.epochs = 2;
        int firstEpoch = 0;
        const TrainResult r = trainCostModel(s, [&](const TrainProgress& p) {
            if (p.phase == TrainProgress::Phase::Training && firstEpoch == 0) firstEpoch = p.epoch;
        });
        QCOMPARE(firstEpoch, 2);
        QCOMPARE(r.epochsRun, 2);
        // A damaged state is refused: by the file's checksum, or in a file without it (as before
        // the file's checksum) by the weights' own.
        {
            std::ifstream in(path("resume.tpgm.state"), std::ios::binary);
            std::string state((std::istreambuf_iterator<char>(in)), {});
            state[state.size() * 2 / 3] ^= 0x10;
            TrainSettings d = s;
            d.outPath = path("damaged.tpgm");
            std::ofstream(path("damaged.tpgm.state"), std::ios::binary | std::ios::trunc) << state;
            QVERIFY(throwsWith([&] { trainCostModel(d); },
                               "damaged.tpgm.state: damaged: the file's checksum does not match"));
            state.resize(state.size() - 4);
            std::ofstream(path("damaged.tpgm.state"), std::ios::binary | std::ios::trunc) << state;
            QVERIFY(throwsWith(
                [&] { trainCostModel(d); },
                "damaged.tpgm.state: key 'weights': damaged: the checksum does not match"));
        }
        // A state saved under another loss (a hinge run from before "auto") is not continued
        // under this one's, and the warning says how to continue it.
        s.loss = LossKind::PairwiseHinge;
        s.epochs = 3;
        firstEpoch = 0;
        const TrainResult other = trainCostModel(s, [&](const TrainProgress& p) {
            if (p.phase == TrainProgress::Phase::Training && firstEpoch == 0) firstEpoch = p.epoch;
        });
        QCOMPARE(firstEpoch, 1);
        QVERIFY(std::any_of(other.warnings.begin(), other.warnings.end(), [](const std::string& w) {
            return w.find("saved by a run with the logistic loss, where this run's is hinge (--loss logistic "
                          "resumes it); starting afresh") != std::string::npos;
        }));
        s.loss = LossKind::Auto;

        CancelToken cancel;
        s.resume = false;
        s.epochs = 50;
        s.outPath = path("cancelled.tpgm");
        const TrainResult c = trainCostModel(
            s,
            [&](const TrainProgress& p) {
                if (p.phase == TrainProgress::Phase::Training && p.step == 2) cancel.cancel();
            },
            &cancel);
        QVERIFY(c.cancelled);
        QVERIFY(!c.saved);
        QVERIFY(!fs::exists(s.outPath));
    }

    // A run stopped mid-epoch and resumed does exactly the steps of an uninterrupted one; its log
    // holds each step once (the steps after the checkpoint are redone, their records replaced).
    void cancelMidEpochResumesAtTheSameStep() {
        TrainSettings s = quickSettings(data(), "layout:xla:random", path("straight.tpgm"));
        s.epochs = 2;
        s.minutes = 0;
        s.logPath = path("straight.jsonl");
        const TrainResult straight = trainCostModel(s);
        QVERIFY(straight.steps > 4);
        const TrainingHistory h = readTrainingLog(s.logPath);
        QVERIFY(h.finished);
        QCOMPARE(h.endReason, std::string("done"));
        QCOMPARE(static_cast<int64_t>(h.steps.size()), straight.steps);
        QCOMPARE(static_cast<int>(h.epochs.size()), 2);
        QCOMPARE(h.kind, Collection::Layout);
        {
            // The start record names the loss trained with where the settings say "auto".
            std::ifstream in(s.logPath);
            std::string start;
            std::getline(in, start);
            const nlohmann::json j = nlohmann::json::parse(start);
            QCOMPARE(j.at("loss").get<std::string>(), std::string("logistic"));
            QCOMPARE(j.at("settings").at("loss").get<std::string>(), std::string("auto"));
        }
        QVERIFY(h.bestEpochIndex() >= 0 && h.epochs[static_cast<size_t>(h.bestEpochIndex())].improved);

        s.outPath = path("stopped.tpgm");
        s.logPath = path("stopped.jsonl");
        s.checkpointSeconds = 1e9;  // only the cancel's own checkpoint
        CancelToken cancel;
        const int64_t stopAt = straight.steps / 2 + 1;  // inside epoch 2 when epochs are equal
        const TrainResult first = trainCostModel(
            s, [&](const TrainProgress& p) { if (p.phase == TrainProgress::Phase::Training && p.globalStep == stopAt) cancel.cancel(); },
            &cancel);
        QVERIFY(first.cancelled);
        QCOMPARE(first.steps, stopAt);
        s.resume = true;
        int64_t firstStepSeen = 0;
        const TrainResult second = trainCostModel(s, [&](const TrainProgress& p) {
            if (p.phase == TrainProgress::Phase::Training && firstStepSeen == 0) firstStepSeen = p.globalStep;
        });
        QCOMPARE(firstStepSeen, stopAt + 1);
        QCOMPARE(second.steps, straight.steps);
        const TrainingHistory resumed = readTrainingLog(s.logPath);
        std::vector<int64_t> steps;
        for (const auto& r : resumed.steps) steps.push_back(r.step);
        std::vector<int64_t> expected(static_cast<size_t>(straight.steps));
        std::iota(expected.begin(), expected.end(), 1);
        QVERIFY(steps == expected);
        QCOMPARE(static_cast<int>(resumed.epochs.size()), 2);
    }

    void cancelWhilePreparingEndsBeforeTheFirstStep() {
        TrainSettings s = quickSettings(data(), "layout:xla:random", path("prep.tpgm"));
        CancelToken cancel;
        bool trained = false;
        const TrainResult r = trainCostModel(
            s,
            [&](const TrainProgress& p) {
                if (p.phase == TrainProgress::Phase::Preparing) cancel.cancel();
                if (p.phase == TrainProgress::Phase::Training) trained = true;
            },
            &cancel);
        QVERIFY(r.cancelled);
        QVERIFY(!trained);
        QCOMPARE(r.steps, int64_t{0});
        QVERIFY(!fs::exists(s.outPath));
    }

    // A big step runs in chunks of configs (Stop acts between them; test_nn_modules checks their
    // gradient is the one-pass gradient). Stopped from another thread while chunks run, the
    // resumed run still does every step once.
    void stoppedWhileChunkingResumesEveryStepOnce() {
        TrainSettings s = quickSettings(data(), "layout:xla:random", path("onepass.tpgm"));
        s.epochs = 1;
        s.minutes = 0;
        s.threads = 1;
        const TrainResult whole = trainCostModel(s);
        s.chunkNodeConfigs = 1;  // one config per chunk
        // Stopped from another thread while chunks run: the resumed run still does every step once.
        s.outPath = path("chunkstop.tpgm");
        s.logPath = path("chunkstop.jsonl");
        CancelToken cancel;
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            cancel.cancel();
        });
        const TrainResult first = trainCostModel(s, {}, &cancel);
        stopper.join();
        s.resume = true;
        const TrainResult rest = trainCostModel(s);
        QCOMPARE(rest.steps, whole.steps);
        QVERIFY(first.cancelled || first.steps == whole.steps);
        const TrainingHistory h = readTrainingLog(s.logPath);
        for (size_t i = 0; i < h.steps.size(); ++i) QCOMPARE(h.steps[i].step, static_cast<int64_t>(i + 1));
    }

    void trainingLogReadsBackAndToleratesATornLine() {
        TrainSettings s = quickSettings(data(), "tile:xla", path("t.tpgm"));
        s.model.pruneHops = -1;
        s.heldOutConfigFraction = 0.25;
        s.products = TrainSettings::Products::BFloat16;
        s.weightDecay = 1e-4;
        s.dropout = 0.2;
        s.weightAverage = 0.99;
        s.listMleWeight = 0.03;
        s.loss = LossKind::PairwiseLogistic;
        s.temperature = 0.03;
        s.schedule = LearningRateSchedule::StableDecay;
        s.selectBy = TrainSettings::Selection::Kendall;
        s.model.flowFeatures = s.model.relayoutFeatures = true;
        const TrainSettings back = trainSettingsFromJson(trainSettingsToJson(s), "x");
        QCOMPARE(back.collection, s.collection);
        QCOMPARE(back.weightDecay, s.weightDecay);
        QCOMPARE(back.dropout, s.dropout);
        QCOMPARE(back.weightAverage, s.weightAverage);
        QCOMPARE(back.listMleWeight, s.listMleWeight);
        QVERIFY(back.loss == LossKind::PairwiseLogistic);
        QCOMPARE(back.temperature, s.temperature);
        QVERIFY(back.products == TrainSettings::Products::BFloat16);
        QVERIFY(back.schedule == LearningRateSchedule::StableDecay);
        QVERIFY(back.selectBy == TrainSettings::Selection::Kendall);
        const TrainSettings old = trainSettingsFromJson("{}", "old.json");  // older logs
        QVERIFY(old.schedule == LearningRateSchedule::Cosine);
        QVERIFY(old.selectBy == TrainSettings::Selection::Score);  // as runs before the option
        QVERIFY(old.loss == LossKind::PairwiseHinge);  // runs before the auto loss
        // Options a log does not name were off (the pooled head on), so a run resumes as it began:
        // a tile run logged before the traffic features got them on its resume, and its checkpoint
        // did not load.
        QVERIFY(!old.model.slotFeatures && !old.model.nodeCostReadout && !old.model.boundsFeatures &&
                !old.model.spillFeatures && !old.model.trafficFeatures && !old.model.flowFeatures &&
                !old.model.relayoutFeatures && old.model.pooledHead);
        QCOMPARE(back.model, s.model);
        QVERIFY(throwsWith([] { trainSettingsFromJson("{\"lr_schedule\": \"step\"}", "run.json"); },
                           "run.json: key 'lr_schedule': expected cosine, stable-decay or constant, got 'step'"));
        QVERIFY(throwsWith([] { trainSettingsFromJson("{\"select_by\": \"opa\"}", "run.json"); },
                           "run.json: key 'select_by': expected score or kendall, got 'opa'"));
        QVERIFY(throwsWith([] { trainSettingsFromJson("{\"products\": \"half\"}", "run.json"); },
                           "run.json: key 'products': expected auto, float or bfloat16, got 'half'"));
        QCOMPARE(back.model.pruneHops, -1);
        QCOMPARE(back.heldOutConfigFraction, 0.25);
        QCOMPARE(back.configsPerStep, s.configsPerStep);
        QVERIFY(throwsWith([] { trainSettingsFromJson("{\"hidden\": \"wide\"}", "run.json"); },
                           "run.json: key 'hidden': expected a number"));

        const std::string log = path("torn.jsonl");
        {
            TrainingLogWriter w(log, s, Collection::Tile, "tile:xla: 8 train graphs", -1);
            w.step({1, 1, 0.5, 1e-3, 0.1, 100});
            ValidationSummary v;
            v.score = 0.7;
            v.slowdown1 = std::nan("");
            w.epoch({1, 1, 0.5, v, true, 0.2});
        }
        std::ofstream(log, std::ios::app) << "{\"type\":\"step\",\"step\":2,\"lo";  // killed mid-line
        const TrainingHistory h = readTrainingLog(log);
        QCOMPARE(h.kind, Collection::Tile);
        QCOMPARE(h.trainedOn, std::string("tile:xla: 8 train graphs"));
        QCOMPARE(static_cast<int>(h.steps.size()), 1);
        QCOMPARE(h.skippedLines, 1);
        QVERIFY(!h.finished);
        QCOMPARE(h.epochs[0].validation.score, 0.7);
        QVERIFY(std::isnan(h.epochs[0].validation.slowdown1));
        // Resuming keeps what the reader reads up to the checkpoint's step, and drops what it
        // skips: a torn line, and lines edited by hand into other types (which threw
        // json's type_error out of the resume, a raw "[json.exception.type_error.302]").
        std::ofstream(log, std::ios::app) << "\n{\"type\":\"step\",\"step\":\"2\"}\n{\"type\":7}\n"
                                          << "{\"type\":\"epoch\",\"epoch\":2,\"step\":9}\n";
        { TrainingLogWriter resumed(log, s, Collection::Tile, "tile:xla: 8 train graphs", 1); }
        const TrainingHistory r = readTrainingLog(log);
        QCOMPARE(r.skippedLines, 0);
        QCOMPARE(static_cast<int>(r.steps.size()), 1);
        QCOMPARE(static_cast<int>(r.epochs.size()), 1);
        std::ofstream(path("notalog.jsonl")) << "{\"type\":\"step\"}\n";
        QVERIFY(throwsWith([&] { readTrainingLog(path("notalog.jsonl")); }, "no start record"));
        QVERIFY(throwsWith([&] { readTrainingLog(path("missing.jsonl")); }, "cannot open"));
    }

    // Paused, the run takes no step and its time budget does not run; Resume continues it.
    void pauseHoldsTheRunOffTheClock() {
        TrainSettings s = quickSettings(data(), "layout:xla:random", path("paused.tpgm"));
        s.epochs = 1;
        s.minutes = 0;
        PauseGate pause;
        CancelToken cancel;
        std::atomic<int64_t> steps{0};
        TrainResult r;
        QElapsedTimer wall;
        wall.start();
        std::thread worker([&] {
            r = trainCostModel(s, [&](const TrainProgress& p) {
                if (p.phase != TrainProgress::Phase::Training) return;
                if (++steps == 1) pause.pause();
            }, &cancel, &pause);
        });
        QTRY_COMPARE_WITH_TIMEOUT(steps.load(), int64_t{1}, 60000);
        QTest::qWait(600);
        QCOMPARE(steps.load(), int64_t{1});
        QVERIFY(pause.paused());
        pause.resume();
        worker.join();
        QVERIFY(r.steps > 1);
        QVERIFY2(r.seconds < static_cast<double>(wall.elapsed()) / 1000.0 - 0.5, "paused time counted as training time");

        pause.pause();  // a cancel ends a paused run
        std::thread stopped([&] { r = trainCostModel(s, {}, &cancel, &pause); });
        QTest::qWait(200);
        cancel.cancel();
        stopped.join();
        QVERIFY(r.cancelled);
    }

    void oneFileTrainsOnItsOwnConfigs() {
        const auto files = selectFiles(scanDataset(data()), "layout:xla:random", "train");
        TrainSettings s = quickSettings("", "", path("onefile.tpgm"));
        s.trainFile = files.front().path;
        s.heldOutConfigFraction = limits::kSingleFileHeldOutFraction;
        s.epochs = 1;
        const TrainResult r = trainCostModel(s);
        QVERIFY(r.saved);
        QCOMPARE(r.best.graphs, 1);
        const CostModel m = CostModel::load(s.outPath);
        QCOMPARE(m.info().collection, std::string("layout:xla:random"));
        QCOMPARE(m.info().heldOutConfigFraction, limits::kSingleFileHeldOutFraction);
        s.trainFile = path("absent.npz");
        QVERIFY(throwsWith([&] { trainCostModel(s); }, "absent.npz"));
    }

    // Tile files repeat configuration rows (here at most 64 distinct among 1,000). Held-out
    // configurations go with their duplicates: none has a twin among the trained ones (which a
    // per-row choice leaked to the per-graph baseline), and a fifth of the groups are held out,
    // not every group with any held-out row (which left a one-file run nothing to train on).
    void heldOutConfigsGoWithTheirDuplicates() {
        const TpuGraph g = tiny::tileGraph(5, 8, 1000);
        const DistinctConfigs d = distinctConfigs(g);
        QVERIFY(d.index.size() <= 64);
        const std::vector<char> held = heldOutConfigs(g, 0.2);
        std::vector<int> heldInGroup(d.index.size(), 0), rowsInGroup(d.index.size(), 0);
        for (int64_t c = 0; c < g.numConfigs(); ++c) {
            const auto group = static_cast<size_t>(d.groupOf[static_cast<size_t>(c)]);
            heldInGroup[group] += held[static_cast<size_t>(c)];
            ++rowsInGroup[group];
        }
        int heldGroups = 0;
        for (size_t i = 0; i < d.index.size(); ++i) {
            QVERIFY(heldInGroup[i] == 0 || heldInGroup[i] == rowsInGroup[i]);
            heldGroups += heldInGroup[i] > 0;
        }
        const double share = heldGroups / static_cast<double>(d.index.size());
        QVERIFY2(share > 0.05 && share < 0.4,
                 qPrintable(QString("held-out share of groups %1").arg(share)));
        const std::vector<int64_t> evaluated = evaluationConfigs(g, {0, 7, 0.2});
        QCOMPARE(static_cast<int64_t>(evaluated.size()),
                 std::accumulate(held.begin(), held.end(), int64_t{0}));
        for (int64_t c : evaluated) QVERIFY(held[static_cast<size_t>(c)]);
        const std::vector<char> none = heldOutConfigs(g, 0);  // no fraction: nothing held out
        QCOMPARE(static_cast<int64_t>(none.size()), g.numConfigs());
        QVERIFY(std::none_of(none.begin(), none.end(), [](char h) { return h != 0; }));

        const std::string file = path("repeated-tiles.npz");
        saveTpuGraph(g, file, true);
        TrainSettings s = quickSettings("", "", path("repeated-tiles.tpgm"));
        s.trainFile = file;
        s.heldOutConfigFraction = 0.2;
        s.epochs = 1;
        const TrainResult r = trainCostModel(s);
        QVERIFY2(r.steps > 0,
                 "a one-file run on repeated rows must have configurations to train on");
        QCOMPARE(r.best.graphs, 1);
    }

    void trimmedWidthsTrainWithWidthsFromData() {
        const std::string dir = path("trimmed");
        for (const char* split : {"train", "valid"}) {
            fs::create_directories(dir + "/npz/layout/xla/random/" + split);
            for (int i = 0; i < 2; ++i) {
                const TpuGraph full =
                    tiny::layoutGraph(500 + i + (split[0] == 'v' ? 10 : 0), 20, 20);
                TpuGraphData d = full.data();
                d.nodeFeatureWidth = 120;
                d.nodeFeatures.clear();
                for (int64_t n = 0; n < d.numNodes; ++n)
                    d.nodeFeatures.insert(d.nodeFeatures.end(), full.nodeFeatures(n),
                                          full.nodeFeatures(n) + 120);
                saveTpuGraph(
                    TpuGraph(d),
                    dir + "/npz/layout/xla/random/" + split + "/g" + std::to_string(i) + ".npz",
                    false);
            }
        }
        TrainSettings s = quickSettings(dir, "layout:xla:random", path("trimmed.tpgm"));
        s.epochs = 1;
        s.model.violationFeature = true;  // falls back to 0 on trimmed widths, still trains
        s.model.slotFeatures = true;      // cannot locate the shape columns: switched off
        QVERIFY(trainCostModel(s).saved);
        QCOMPARE(readModelInfo(s.outPath).nodeFeatureWidth, int64_t{120});
        QVERIFY(!readModelInfo(s.outPath).settings.slotFeatures);
    }

    void editedRowsScoreIncrementallyAsAFullPass_data() {
        QTest::addColumn<int>("hops");
        QTest::addColumn<bool>("violation");
        QTest::addColumn<bool>("attention");
        QTest::addColumn<bool>("slotFeatures");
        QTest::addColumn<bool>("flowFeatures");
        QTest::addColumn<bool>("relayoutFeatures");
        QTest::addColumn<bool>("pooledHead");
        QTest::newRow("1 hop") << 1 << false << false << false << false << false << true;
        QTest::newRow("full graph, violation, attention") << -1 << true << true << false << false << false << true;
        QTest::newRow("2 hops") << 2 << false << true << false << false << false << true;
        QTest::newRow("slot features") << 1 << false << false << true << false << false << true;
        QTest::newRow("flow features") << 1 << false << false << true << true << false << true;
        QTest::newRow("relayout features, node costs alone") << 1 << false << false << true << true << true << false;
        QTest::newRow("node costs alone") << 1 << false << false << true << false << false << false;
        QTest::newRow("node costs alone, full graph") << -1 << false << false << true << false << false << false;
    }
    void editedRowsScoreIncrementallyAsAFullPass() {
        QFETCH(int, hops);
        QFETCH(bool, violation);
        QFETCH(bool, attention);
        QFETCH(bool, slotFeatures);
        QFETCH(bool, flowFeatures);
        QFETCH(bool, relayoutFeatures);
        QFETCH(bool, pooledHead);
        const TpuGraph g = tiny::layoutGraph(77, 120, 12);
        if (flowFeatures) {  // some node's operand layout comes from another configurable node
            const auto shapes = layoutSlotShapes(g);
            QVERIFY(std::any_of(shapes.begin(), shapes.end(), [](const LayoutSlotShape& s) { return s.source >= 0; }));
        }
        if (relayoutFeatures) {  // the relayout columns are not all zero
            std::vector<RelayoutOp> relayouts;
            layoutSlotShapes(g, &relayouts);
            QVERIFY(!relayouts.empty());
        }
        ModelInfo info;
        info.kind = Collection::Layout;
        info.collection = "layout:xla:random";
        info.nodeFeatureWidth = g.nodeFeatureWidth();
        info.configWidth = g.configFeatureWidth();
        info.settings.hidden = 32;
        info.settings.layers = 3;
        info.settings.pruneHops = hops;
        info.settings.violationFeature = violation;
        info.settings.configAttention = attention;
        info.settings.slotFeatures = slotFeatures;
        info.settings.flowFeatures = flowFeatures;
        info.settings.relayoutFeatures = relayoutFeatures;
        info.settings.nodeCostReadout = true;
        info.settings.pooledHead = pooledHead;
        info.stats = computeFeatureStats({g});
        const CostModel model = CostModel::create(info);
        std::vector<float> row = g.layoutConfigs()->config(0);
        std::mt19937_64 rng(3);
        const int64_t w = g.configFeatureWidth();
        double lowest = 1e300, highest = -1e300;
        for (int step = 0; step < 30; ++step) {
            // One to three configurable nodes change (an edit, or a burst of them); sometimes none.
            const int changes = step % 7 == 6 ? 0 : 1 + static_cast<int>(rng() % 3);
            for (int c = 0; c < changes; ++c) {
                const int64_t k = static_cast<int64_t>(rng() % static_cast<uint64_t>(g.numConfigurable()));
                for (int64_t i = 0; i < w; ++i) row[static_cast<size_t>(k * w + i)] = static_cast<float>(static_cast<int>(rng() % 5) - 1);
            }
            if (step == 20) row = g.layoutConfigs()->config(5);  // a jump: many nodes differ
            const double incremental = model.scoreEdited(g, row.data());
            const double full = model.scoreRows(g, row.data(), 1).at(0);
            QVERIFY2(std::abs(incremental - full) <= 1e-4 * std::max(1.0, std::abs(full)),
                     qPrintable(QStringLiteral("step %1: %2 vs %3").arg(step).arg(incremental).arg(full)));
            lowest = std::min(lowest, full);
            highest = std::max(highest, full);
        }
        // Untrained weights (unseeded) spread these scores over 7e-4..4e-3: three times the
        // tolerance above is a change the comparison can see.
        QVERIFY2(highest - lowest > 3e-4, "the edits must change the score, or the comparison proves nothing");
    }

    void nearbyConfigsScoredByScoreAllEqualFullPasses() {
        // A `default`-search-like file: every config is the compiler default with one or two
        // nodes set, so most rows repeat across configs (scoreAll computes the distinct ones).
        const TpuGraph base = tiny::layoutGraph(91, 1000, 2);
        TpuGraphData d = base.data();
        const int64_t w = base.configFeatureWidth(), nc = base.numConfigurable();
        CompactMatrix m(nc * w);
        std::mt19937_64 rng(4);
        const int configs = 40;
        for (int c = 0; c < configs; ++c) {
            std::vector<float> row(static_cast<size_t>(nc * w), -1.0f);
            for (int e = 0; e < 1 + c % 2; ++e) {
                const int64_t k = static_cast<int64_t>(rng() % static_cast<uint64_t>(nc));
                for (int64_t i = 0; i < w; ++i) row[static_cast<size_t>(k * w + i)] = static_cast<float>(rng() % 4);
            }
            m.appendRows(row.data(), 1);
        }
        d.layoutConfigs = LayoutConfigTable::fromMatrix(std::move(m), nc, w);
        d.runtimes.assign(configs, 1000.0);
        const TpuGraph g(std::move(d));
        ModelInfo info;
        info.kind = Collection::Layout;
        info.collection = "layout:xla:default";
        info.nodeFeatureWidth = g.nodeFeatureWidth();
        info.configWidth = w;
        info.settings.hidden = 32;
        info.stats = computeFeatureStats({g});
        const CostModel model = CostModel::create(info);
        const std::vector<double> all = model.scoreAll(g);
        std::vector<float> rows(static_cast<size_t>(configs * nc * w));
        g.layoutConfigs()->read(0, configs, rows.data());
        const std::vector<double> full = model.scoreRows(g, rows.data(), configs);
        for (int c = 0; c < configs; ++c)
            QVERIFY2(std::abs(all[static_cast<size_t>(c)] - full[static_cast<size_t>(c)]) <= 1e-4,
                     qPrintable(QStringLiteral("config %1: %2 vs %3").arg(c).arg(all[static_cast<size_t>(c)]).arg(full[static_cast<size_t>(c)])));
    }

    void epochSeesEveryConfigAboutOnce() {
        TrainSettings s;
        s.configsPerStep = 64;
        const std::vector<int64_t> counts = {1000, 10, 100000};
        const EpochPlan plan = planEpoch(counts, s, 1, 1);
        // 16 steps cover 1,000 configs; a tiny graph still gets one; a huge one is capped.
        const int64_t capped = nn::limits::kEpochConfigsPerGraph / 64;
        QCOMPARE(static_cast<int64_t>(plan.steps.size()), 16 + 1 + capped);
        QCOMPARE(plan.configs, 1000 + 10 + nn::limits::kEpochConfigsPerGraph);
        std::vector<int> visits(3, 0);
        for (const auto& step : plan.steps) {
            QCOMPARE(step.size(), size_t{1});
            ++visits[step[0]];
        }
        QCOMPARE(visits, (std::vector<int>{16, 1, static_cast<int>(capped)}));
        QVERIFY(plan.steps != planEpoch(counts, s, 1, 2).steps);  // reshuffled per epoch
        QVERIFY(plan.steps == planEpoch(counts, s, 1, 1).steps);  // deterministic
        s.heldOutConfigFraction = 0.2;  // held-out configs are not trained on
        QCOMPARE(planEpoch({1000}, s, 1, 1).steps.size(), size_t{13});
        const EpochPlan tile = planEpoch({100, 100, 100}, s, 8, 1);  // graphs grouped per step
        QCOMPARE(tile.steps.size(), size_t{1});
        QCOMPARE(tile.steps[0].size(), size_t{6});
    }

    void sizeMatchedStepsPairSimilarGraphs() {
        TrainSettings s;
        s.configsPerStep = 64;
        std::vector<int64_t> counts(40, 64), nodes;  // one visit per graph
        for (int g = 0; g < 40; ++g) nodes.push_back(100 + (g * 37) % 40 * 100);  // 100..4,000 nodes
        const EpochPlan plain = planEpoch(counts, s, 1, 1);
        const EpochPlan two = planEpoch(counts, s, 1, 1, StepMatching{2, nodes});
        QCOMPARE(two.steps.size(), size_t{40});
        std::vector<int> seen(40, 0);
        double gapMatched = 0, gapPlain = 0;  // |size difference| of the two graphs of a global step
        for (size_t i = 0; i < 40; i += 2) {
            for (size_t j : {i, i + 1}) {
                QCOMPARE(two.steps[j].size(), size_t{1});
                ++seen[two.steps[j][0]];
            }
            gapMatched += std::abs(static_cast<double>(nodes[two.steps[i][0]] - nodes[two.steps[i + 1][0]]));
            gapPlain += std::abs(static_cast<double>(nodes[plain.steps[i][0]] - nodes[plain.steps[i + 1][0]]));
        }
        QCOMPARE(seen, std::vector<int>(40, 1));  // every graph once
        QVERIFY2(gapMatched * 5 < gapPlain, qPrintable(QStringLiteral("%1 vs %2").arg(gapMatched).arg(gapPlain)));
        // One process with the global batch (2 graphs) sees the very same global steps.
        const EpochPlan one = planEpoch(counts, s, 2, 1, StepMatching{1, nodes});
        QCOMPARE(one.steps.size(), size_t{20});
        for (size_t k = 0; k < 20; ++k)
            QCOMPARE(one.steps[k], (std::vector<size_t>{two.steps[2 * k][0], two.steps[2 * k + 1][0]}));
        // Several graphs per worker are dealt round-robin from the sorted step: shares cost alike.
        const EpochPlan four = planEpoch(counts, s, 4, 1, StepMatching{2, nodes});
        for (size_t i = 0; i + 1 < four.steps.size(); i += 2) {
            int64_t a = 0, b = 0;
            for (size_t g : four.steps[i]) a += nodes[g];
            for (size_t g : four.steps[i + 1]) b += nodes[g];
            QVERIFY(a >= b && a - b <= 800);  // sorted: the first share is the larger by at most a few steps
        }
    }

    void learningRateSchedulesHaveTheirShapes() {
        using S = LearningRateSchedule;
        const double base = 2e-3;
        auto near = [](double a, double b) { return std::abs(a - b) < 1e-12; };
        QVERIFY(near(scheduledLearningRate(S::Cosine, base, 0), base));
        QVERIFY(near(scheduledLearningRate(S::Cosine, base, 0.5), base * 0.525));
        QVERIFY(near(scheduledLearningRate(S::Cosine, base, 1), base * 0.05));
        QVERIFY(near(scheduledLearningRate(S::StableDecay, base, 0.75), base));  // held to 75%
        QVERIFY(near(scheduledLearningRate(S::StableDecay, base, 0.875), base * 0.525));
        QVERIFY(near(scheduledLearningRate(S::StableDecay, base, 1), base * 0.05));
        QVERIFY(near(scheduledLearningRate(S::StableDecay, base, 7), base * 0.05));  // clamped
        QVERIFY(near(scheduledLearningRate(S::Constant, base, 0.9), base));
        for (S k : {S::Cosine, S::StableDecay, S::Constant}) {
            S back = S::Cosine;
            QVERIFY(parseSchedule(scheduleName(k), back) && back == k);
        }
        S out = S::Constant;
        QVERIFY(!parseSchedule("linear", out) && out == S::Constant);
    }

    // The trainer takes each step with the schedule's rate (the progress reports it).
    void trainingStepsFollowTheSchedule() {
        TrainSettings s = quickSettings(data(), "layout:xla:random", path("schedule.tpgm"));
        s.epochs = 2;
        for (LearningRateSchedule k : {LearningRateSchedule::Constant, LearningRateSchedule::StableDecay}) {
            s.schedule = k;
            std::vector<double> rates;
            trainCostModel(s, [&](const TrainProgress& p) {
                if (p.phase == TrainProgress::Phase::Training) rates.push_back(p.learningRate);
            });
            QVERIFY(rates.size() >= 8);
            QCOMPARE(rates.front(), s.learningRate);
            QCOMPARE(rates[rates.size() / 2 - 1], s.learningRate);  // the first half: the full rate
            if (k == LearningRateSchedule::Constant)
                QCOMPARE(rates.back(), s.learningRate);
            else
                QVERIFY(rates.back() < 0.6 * s.learningRate);  // the last quarter decays
        }
    }

    void timeBudgetIsThePrimaryStop() {
        TrainSettings s = quickSettings(data(), "layout:xla:random", path("budget.tpgm"));
        s.epochs = 0;  // no epoch limit: only the budget (3 s) ends the run
        s.minutes = 0.05;
        int64_t lastConfigs = 0;
        double configsPerSecond = 0, eta = -1;
        const TrainResult r = trainCostModel(s, [&](const TrainProgress& p) {
            if (p.phase != TrainProgress::Phase::Training) return;
            lastConfigs = p.configsSeen;
            configsPerSecond = p.configsPerSecond;
            eta = p.etaSeconds;
        });
        QVERIFY(r.timedOut);
        QVERIFY(r.saved);
        QVERIFY(!r.earlyStopped);
        QVERIFY(r.epochsRun >= 1);
        QVERIFY(r.seconds < 30);  // budget 3 s; validation may overrun it a little
        QVERIFY(lastConfigs > 0 && configsPerSecond > 0);
        QVERIFY(eta >= 0 && eta <= 3.0);
        s.minutes = 0;
        QVERIFY(throwsWith([&] { trainCostModel(s); }, "give a time budget"));
    }

    void heldOutConfigsValidateWithoutValidSplit() {
        const std::string dir = path("train_only");
        tiny::writeDataset(dir, 2, 0, 0, 60, 10);
        TrainSettings s = quickSettings(dir, "layout:xla:random", path("heldout.tpgm"));
        s.epochs = 1;
        s.heldOutConfigFraction = 0.25;
        const TrainResult r = trainCostModel(s);
        QVERIFY(r.saved);
        QVERIFY(std::any_of(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
            return w.find("validating on the train graphs' held-out configs") != std::string::npos;
        }));
        QVERIFY(r.best.graphs == 2);
        s.heldOutConfigFraction = 0;
        s.outPath = path("leaky.tpgm");
        const TrainResult leaky = trainCostModel(s);
        QVERIFY(std::any_of(leaky.warnings.begin(), leaky.warnings.end(), [](const std::string& w) {
            return w.find("--held-out-configs for an honest figure") != std::string::npos;
        }));
    }

    void badTrainingInputs() {
        TrainSettings s = quickSettings(data(), "layout:nlp:random", path("x.tpgm"));
        QVERIFY(throwsWith([&] { trainCostModel(s); },
                           "no train files for collection 'layout:nlp:random'"));
        s.collection = "tile:xla";
        s.outPath = "";
        QVERIFY(throwsWith([&] { trainCostModel(s); }, "no output model path"));
        s.outPath = path("x.tpgm");
        s.weightDecay = -1e-4;
        QVERIFY(throwsWith([&] { trainCostModel(s); }, "weight decay must be a finite number, 0 or more"));
        s.weightDecay = std::numeric_limits<double>::quiet_NaN();
        QVERIFY(throwsWith([&] { trainCostModel(s); }, "weight decay must be a finite number, 0 or more"));
        s.weightDecay = 0;
        for (const double bad : {-0.1, 1.0, std::numeric_limits<double>::quiet_NaN()}) {
            s.dropout = bad;
            QVERIFY(throwsWith([&] { trainCostModel(s); }, "dropout must lie in [0, 1)"));
        }
        s.dropout = 0;
        for (const double bad : {-0.1, 1.0, std::numeric_limits<double>::quiet_NaN()}) {
            s.weightAverage = bad;
            QVERIFY(throwsWith([&] { trainCostModel(s); }, "the weight average's decay must lie in [0, 1)"));
        }
        s.weightAverage = 0;
        for (const double bad : {0.0, -0.01, std::numeric_limits<double>::infinity()}) {
            s.temperature = bad;
            QVERIFY(throwsWith([&] { trainCostModel(s); }, "temperature must be a finite number above 0"));
        }
        s.temperature = 0.01;
        // A learning rate of -1 ended in LibTorch's exception and its backtrace; 0 trained nothing.
        for (const double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
            s.learningRate = bad;
            QVERIFY(throwsWith([&] { trainCostModel(s); },
                               "the learning rate must be a finite number above 0"));
        }
        s.learningRate = 2e-3;
        for (const double bad : {-0.1, std::numeric_limits<double>::infinity()}) {
            s.margin = bad;
            QVERIFY(throwsWith([&] { trainCostModel(s); },
                               "the hinge's margin must be a finite number, 0 or more"));
        }
        s.margin = kDefaultMargin;
        s.threads = -1;
        QVERIFY(throwsWith([&] { trainCostModel(s); }, "threads must be 0 (all cores) or more"));
        s.threads = 0;
        s.graphsPerStep = -1;
        QVERIFY(throwsWith([&] { trainCostModel(s); },
                           "graphs per step must be 0 (the kind's default) or more"));
        s.graphsPerStep = 0;
        s.maxTrainGraphs = -1;
        QVERIFY(throwsWith([&] { trainCostModel(s); },
                           "the train graph limit must be 0 (all) or more"));
        s.maxTrainGraphs = 0;
        // NaN or infinite minutes trained without end (no budget, yet not "no limit" either).
        for (const double bad :
             {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
            s.minutes = bad;
            QVERIFY(throwsWith([&] { trainCostModel(s); }, "minutes must be a finite number"));
        }
        s.minutes = 0;
        s.validConfigsPerGraph = -5;
        QVERIFY(throwsWith([&] { trainCostModel(s); },
                           "valid configs per graph must be 0 (all) or more"));
        s.validConfigsPerGraph = limits::kDefaultValidConfigsPerGraph;
        // A layer 100,000 wide asked LibTorch for 40 GB at the first step.
        s.model.hidden = 100000;
        QVERIFY(throwsWith([&] { trainCostModel(s); }, "a network at most 512 wide, got 100000"));
        s.model.hidden = 32;
        s.model.layers = 50;
        QVERIFY(throwsWith([&] { trainCostModel(s); }, "a network at most 8 layers deep, got 50"));
        s.model.layers = 3;
        s.listMleWeight = -1;
        QVERIFY(throwsWith([&] { trainCostModel(s); }, "the ListMLE weight must be a finite number, 0 or more"));
        s.listMleWeight = 0.1;
        s.loss = LossKind::LogRuntimeMse;
        QVERIFY(throwsWith([&] { trainCostModel(s); }, "adds ListMLE to the pairwise hinge; the loss is mse, not hinge"));
    }

    // A weight decay this strong collapses the model: all predictions tie and validation has no
    // Kendall. Such epochs must count against patience, not as gains that save the model.
    void collapsedModelEpochsCountAgainstPatience() {
        TrainSettings s = quickSettings(data(), "layout:xla:random", path("collapsed.tpgm"));
        s.weightDecay = 100;
        s.learningRate = 0.05;
        s.configsPerStep = 4;  // many steps: collapsed within the first epoch
        s.epochs = 8;
        s.patience = 2;
        std::vector<bool> improved;
        std::vector<double> kendall;
        const TrainResult r = trainCostModel(s, [&](const TrainProgress& p) {
            if (p.phase != TrainProgress::Phase::EpochDone) return;
            improved.push_back(p.improved);
            kendall.push_back(p.validation.kendall);
        });
        QVERIFY(!kendall.empty());
        for (const double k : kendall) QVERIFY2(std::isnan(k), qPrintable(QString("Kendall %1").arg(k)));
        // The first epoch saves (a model file must exist); the next `patience` are bad; then stop.
        QCOMPARE(improved, (std::vector<bool>{true, false, false}));
        QVERIFY(r.earlyStopped);
        QCOMPARE(r.epochsRun, 1 + s.patience);
        QVERIFY(std::filesystem::exists(s.outPath));
    }

    // What replaces the kept epoch, by each choice of --select-by.
    void validationGainFollowsTheSelection() {
        using Sel = TrainSettings::Selection;
        auto v = [](double score, double kendall) {
            ValidationSummary s;
            s.score = score;
            s.kendall = kendall;
            return s;
        };
        const double none = -std::numeric_limits<double>::infinity();
        QVERIFY(isValidationGain(v(0.99, 0.5), none, none, Sel::Score));  // the first scored epoch
        QVERIFY(isValidationGain(v(0.99, 0.5), none, none, Sel::Kendall));
        // The score up, Kendall down: a gain by the score only; and the other way round.
        QVERIFY(isValidationGain(v(0.995, 0.80), 0.990, 0.85, Sel::Score));
        QVERIFY(!isValidationGain(v(0.995, 0.80), 0.990, 0.85, Sel::Kendall));
        QVERIFY(!isValidationGain(v(0.985, 0.90), 0.990, 0.85, Sel::Score));
        QVERIFY(isValidationGain(v(0.985, 0.90), 0.990, 0.85, Sel::Kendall));
        // A tied score goes to the better Kendall; float noise is no gain.
        QVERIFY(isValidationGain(v(1.0, 0.90), 1.0, 0.85, Sel::Score));
        QVERIFY(!isValidationGain(v(1.0, 0.85), 1.0, 0.85, Sel::Score));
        QVERIFY(!isValidationGain(v(1.0, 0.85 + 1e-7), 1.0, 0.85, Sel::Score));
        QVERIFY(!isValidationGain(v(1.0 + 1e-7, 0.85), 1.0, 0.85, Sel::Score));
        QVERIFY(!isValidationGain(v(std::nan(""), std::nan("")), 1.0, 0.85, Sel::Score));
    }

    // On tiny tile data the score reaches its ceiling (each model's top 5 holds the best) in the
    // second epoch while Kendall rises on: the epoch kept is the last, not the second. By
    // --select-by kendall the best Kendall is kept. A run resumed with the other choice compares
    // its epochs with the kept epoch's figure by that choice (a resume that compared Kendall with
    // the kept score, 1, would never again save).
    void keptEpochIsTheBestBySelection() {
        struct Epochs {
            std::vector<double> score, kendall;
        };
        auto train = [&](const TrainSettings& s) {
            Epochs e;
            trainCostModel(s, [&](const TrainProgress& p) {
                if (p.phase != TrainProgress::Phase::EpochDone) return;
                e.score.push_back(p.validation.score);
                e.kendall.push_back(p.validation.kendall);
            });
            return e;
        };
        TrainSettings s = quickSettings(data(), "tile:xla", path("by-score.tpgm"));
        s.graphsPerStep = 2;
        s.epochs = 6;
        const Epochs byScore = train(s);
        const int firstTop =
            static_cast<int>(std::max_element(byScore.score.begin(), byScore.score.end()) -
                             byScore.score.begin()) +
            1;
        const int scoreKept = keptEpoch(byScore.score, byScore.kendall);
        QVERIFY2(scoreKept > firstTop, "the test data must tie the score");
        QCOMPARE(CostModel::load(s.outPath).info().epochs, scoreKept);
        s.outPath = path("by-kendall.tpgm");
        s.selectBy = TrainSettings::Selection::Kendall;
        const Epochs byKendall = train(s);
        QCOMPARE(byKendall.kendall, byScore.kendall);  // the same seed trains the same weights
        QCOMPARE(CostModel::load(s.outPath).info().epochs,
                 keptEpoch(byKendall.kendall, byKendall.kendall));

        // A resumed run compares its epochs with the kept epoch's figures its state records: with
        // a Kendall no epoch reaches, none is kept.
        s.outPath = path("resumed.tpgm");
        s.epochs = 3;
        train(s);
        const int kept = CostModel::load(s.outPath).info().epochs;
        editState(s.outPath + ".state", [](nlohmann::json& j) { j["best_kendall"] = 0.999; });
        s.epochs = 6;
        s.resume = true;
        train(s);
        QCOMPARE(CostModel::load(s.outPath).info().epochs, kept);

        // A state from before --select-by kept the score as "best" alone; resumed by Kendall, its
        // kept epoch's Kendall comes from the model info (comparing Kendall with "best", a tile
        // score of 1, would never again keep an epoch).
        s.outPath = path("older.tpgm");
        s.selectBy = TrainSettings::Selection::Score;
        s.epochs = 3;
        s.resume = false;
        const Epochs first = train(s);
        const int olderKept = CostModel::load(s.outPath).info().epochs;
        editState(s.outPath + ".state", [](nlohmann::json& j) { j.erase("best_kendall"); });
        s.selectBy = TrainSettings::Selection::Kendall;
        s.epochs = 6;
        s.resume = true;
        const Epochs second = train(s);
        std::vector<double> kendall = {first.kendall[static_cast<size_t>(olderKept - 1)]};
        kendall.insert(kendall.end(), second.kendall.begin(), second.kendall.end());
        const int best = keptEpoch(kendall, kendall);
        QVERIFY2(best > 1, "a resumed epoch must beat the kept one for the test to tell");
        QCOMPARE(CostModel::load(s.outPath).info().epochs, 3 + best - 1);
    }

    // Auto patience (0): no early stop while the learning rate decays over the run, even through
    // epochs without a gain (the collapsed model above has none after its first); a plateau
    // of limits::kConstantRatePatience epochs ends a constant-rate run.
    void autoPatienceWaitsForTheDecayingRate() {
        TrainSettings s = quickSettings(data(), "layout:xla:random", path("auto-patience.tpgm"));
        s.weightDecay = 100;
        s.learningRate = 0.05;
        s.configsPerStep = 4;
        s.patience = 0;
        s.epochs = limits::kConstantRatePatience + 3;
        QCOMPARE(effectivePatience(s), std::numeric_limits<int>::max());
        TrainResult r = trainCostModel(s);
        QVERIFY(!r.earlyStopped);
        QCOMPARE(r.epochsRun, s.epochs);

        s.schedule = LearningRateSchedule::Constant;
        s.outPath = path("auto-patience-constant.tpgm");
        QCOMPARE(effectivePatience(s), limits::kConstantRatePatience);
        r = trainCostModel(s);
        QVERIFY(r.earlyStopped);
        QCOMPARE(r.epochsRun, 1 + limits::kConstantRatePatience);

        s.patience = 3;  // an explicit patience holds under any schedule
        QCOMPARE(effectivePatience(s), 3);
        s.schedule = LearningRateSchedule::Cosine;
        QCOMPARE(effectivePatience(s), 3);
        s.patience = -1;
        QVERIFY(throwsWith([&] { trainCostModel(s); }, "patience must be 0 (auto) or more epochs"));
    }

    void defaultModelsAreEmbeddedAndScore() {
        for (Collection kind : {Collection::Layout, Collection::Tile}) {
            QVERIFY2(hasDefaultModel(kind),
                     "resources/models/*.tpgm missing: run packaging/train-default-models.sh");
            const CostModel m = defaultModel(kind);
            QCOMPARE(m.kind(), kind);
            const TpuGraph g = kind == Collection::Layout ? tiny::layoutGraph(91, 30, 12)
                                                          : tiny::tileGraph(91, 8, 12);
            const auto scores = m.scoreAll(g);
            QCOMPARE(scores.size(), size_t{12});
            for (double v : scores) QVERIFY(std::isfinite(v));
        }
    }

    void eachCollectionHasItsOwnBuiltInModel() {
        // A file in the dataset tree gets the model trained on its collection alone.
        for (const std::string c : {"layout:xla:random", "layout:xla:default", "layout:nlp:random",
                                    "layout:nlp:default"}) {
            const std::string search = c.substr(c.rfind(':') + 1), source = c.substr(7, 3);
            const std::string path =
                "/data/npz/layout/" + source + "/" + search + "/valid/prog.npz";
            QCOMPARE(builtInModelCollection(path, Collection::Layout), c);
            const CostModel m = defaultModelForFile(path, Collection::Layout);
            QCOMPARE(m.info().collection, c);
            QCOMPARE(m.label(), "built-in " + c + " model");
            QCOMPARE(defaultModelLabel(Collection::Layout, c), m.label());
        }
        // A loose file's collection is unknown: the model trained on all four.
        const CostModel general = defaultModelForFile("/home/me/prog.npz", Collection::Layout);
        QCOMPARE(general.info().collection, std::string("layout"));
        QCOMPARE(general.label(), std::string("built-in layout model"));
        // Unless it records its search (a What-if export): that collection's model, though the
        // dataset's own folders still decide for a file placed in them.
        QCOMPARE(defaultModelForFile("/home/me/prog.npz", Collection::Layout, "layout:nlp:default")
                     .info()
                     .collection,
                 std::string("layout:nlp:default"));
        QCOMPARE(builtInModelCollection("/data/npz/layout/xla/random/test/prog.npz",
                                        Collection::Layout, "layout:nlp:default"),
                 std::string("layout:xla:random"));
        QCOMPARE(defaultModel(Collection::Layout, "layout:xla").info().collection,
                 std::string("layout"));
        // Tile has one collection: its model serves loose files too.
        QCOMPARE(defaultModelForFile("/data/npz/tile/xla/test/k.npz", Collection::Tile)
                     .info()
                     .collection,
                 std::string("tile:xla"));
        QCOMPARE(defaultModelForFile("/tmp/k.npz", Collection::Tile).info().collection,
                 std::string("tile:xla"));
    }

    void graphBlindBaselineRanksAboveChance() {
        const auto all = scanDataset(data());
        GraphBlindLinearRanker b(Collection::Layout, 18);
        LoadOptions lo;
        for (const auto& f : selectFiles(all, "layout:xla:random", "train"))
            b.addGraph(loadTpuGraph(f.path, lo));
        b.fit();
        const auto m = evaluateFiles(
            selectFiles(all, "layout:xla:random", "valid"),
            [&](const TpuGraph& g, const std::vector<int64_t>& ids) { return b.score(g, ids); },
            {});
        QVERIFY(summarize(Collection::Layout, m).opa > 0.55);
    }
};

QTEST_APPLESS_MAIN(TestNnTraining)
#include "test_nn_training.moc"
