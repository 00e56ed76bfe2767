// Shape and behaviour tests of the LibTorch layers, networks and losses.
#include <torch/torch.h>

#include <QtTest>

#include "CostModel.h"
#include "CostModelImpl.h"
#include "TinyGraphs.h"
#include "TrainingRun.h"
#include "modules/ConfigAttention.h"
#include "modules/Dense.h"
#include "modules/LayoutConfigEncoder.h"
#include "modules/LayoutCostNet.h"
#include "modules/Mlp.h"
#include "modules/NodeEncoder.h"
#include "modules/RankingLosses.h"
#include "modules/SageConv.h"
#include "modules/TileCostNet.h"

using namespace tpg::nn;

namespace {

GraphEdges chainEdges() {
    // 0 <- 1 <- 2 (node 1 consumes 0, node 2 consumes 1), plus 2 consumes 0.
    GraphEdges e;
    e.consumer = torch::tensor({1, 2, 2}, torch::kLong);
    e.producer = torch::tensor({0, 1, 0}, torch::kLong);
    e.invProducerCount = torch::tensor({0.0f, 1.0f, 0.5f}).reshape({3, 1});
    e.invConsumerCount = torch::tensor({0.5f, 1.0f, 0.0f}).reshape({3, 1});
    return e;
}

ModelInfo infoFor(tpg::Collection kind, int64_t nodeWidth, int64_t configWidth) {
    ModelInfo i;
    i.kind = kind;
    i.collection = kind == tpg::Collection::Layout ? "layout:xla:random" : "tile:xla";
    i.nodeFeatureWidth = nodeWidth;
    i.configWidth = configWidth;
    i.stats.node.mean.assign(static_cast<size_t>(nodeWidth), 0.0f);
    i.stats.node.invStd.assign(static_cast<size_t>(nodeWidth), 1.0f);
    i.stats.tileConfig.mean.assign(static_cast<size_t>(configWidth), 0.0f);
    i.stats.tileConfig.invStd.assign(static_cast<size_t>(configWidth), 1.0f);
    return i;
}

}  // namespace

class TestNnModules : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        torch::manual_seed(0);
        torch::set_num_threads(1);
    }

    void denseMatchesLinearOnBothPaths() {
        Dense dense(12, 5);
        for (int64_t rows : {3, 40}) {  // below and above the oneDNN threshold
            auto x = torch::randn({rows, 2, 12});
            auto y = dense(x);
            QCOMPARE(y.sizes().vec(), (std::vector<int64_t>{rows, 2, 5}));
            QVERIFY(torch::allclose(y, torch::nn::functional::linear(x, dense->weight, dense->bias),
                                    1e-4, 1e-5));
        }
        {  // scoring (no grad mode) takes oneDNN's inner product for large batches
            torch::NoGradGuard noGrad;
            auto x = torch::randn({40, 2, 12});
            QVERIFY(torch::allclose(dense(x),
                                    torch::nn::functional::linear(x, dense->weight, dense->bias),
                                    1e-4, 1e-5));
        }
        auto x = torch::randn({32, 12}, torch::requires_grad());
        dense(x).sum().backward();
        QVERIFY(torch::allclose(x.grad(), dense->weight.sum(0).expand({32, 12}), 1e-4, 1e-5));
    }

    void nodeEncoderShape() {
        NodeEncoder enc(140, 16, 32);
        auto out =
            enc(torch::randn({7, 140}), torch::tensor({0, 1, 2, 3, 26, 34, 255}, torch::kLong));
        QCOMPARE(out.sizes().vec(), (std::vector<int64_t>{7, 32}));
    }

    void layoutConfigEncoderKeepsMinusOneDistinctFromZero() {
        auto x = torch::tensor({-1.0f, 0.0f, 5.0f, 9.0f}).reshape({1, 1, 4});
        auto e = expandLayoutConfig(x);  // [1, 1, 4 * 8]
        QCOMPARE(e.sizes().vec(), (std::vector<int64_t>{1, 1, 32}));
        auto oneHot = e.narrow(2, 4, 28).reshape({4, 7});
        QCOMPARE(oneHot[0][0].item<float>(), 1.0f);     // -1 -> slot 0
        QCOMPARE(oneHot[1][1].item<float>(), 1.0f);     // 0 -> slot 1
        QCOMPARE(oneHot[2][6].item<float>(), 1.0f);     // 5 -> slot 6
        QCOMPARE(oneHot[3].sum().item<float>(), 0.0f);  // out of range: no slot
        LayoutConfigEncoder enc(18, 24);
        QCOMPARE(enc(torch::zeros({5, 3, 18})).sizes().vec(), (std::vector<int64_t>{5, 3, 24}));
    }

    void mlpShape() {
        Mlp mlp(10, 20, 1);
        QCOMPARE(mlp(torch::randn({4, 6, 10})).sizes().vec(), (std::vector<int64_t>{4, 6, 1}));
    }

    void sageConvAggregatesSparseMeans() {
        SageConv conv(4);
        const GraphEdges e = chainEdges();
        auto x = torch::randn({3, 4});
        QCOMPARE(conv(x, e).sizes().vec(), (std::vector<int64_t>{3, 4}));
        // Batched over configs (node-major [N, C, H]): each config equals the unbatched result.
        auto xb = torch::randn({3, 5, 4});
        auto yb = conv(xb, e);
        QCOMPARE(yb.sizes().vec(), (std::vector<int64_t>{3, 5, 4}));
        QVERIFY(
            torch::allclose(yb.select(1, 2), conv(xb.select(1, 2).contiguous(), e), 1e-5, 1e-6));
        // With the update zeroed except the producer block = identity, out = x + relu(LN(mean
        // producers)).
        torch::NoGradGuard g;
        conv->update->weight.zero_();
        conv->update->bias.zero_();
        conv->update->weight.narrow(1, 4, 4).copy_(torch::eye(4));
        auto y = conv(x, e);
        QVERIFY(torch::allclose(y[0], x[0] + torch::relu(conv->norm(torch::zeros({1, 4})))[0], 1e-5,
                                1e-6));
        auto expected2 = x[2] + torch::relu(conv->norm(((x[0] + x[1]) / 2).unsqueeze(0)))[0];
        QVERIFY(torch::allclose(y[2], expected2, 1e-5, 1e-6));
    }

    void sageConvScoringPathMatchesTrainingPath() {
        // Without autograd, SageConv sums three column-block products (oneDNN inner product for
        // large batches) instead of one product of the concatenation: same values to ~1e-6.
        SageConv conv(8);
        GraphEdges e;
        e.consumer = torch::randint(0, 40, {90}, torch::kLong);
        e.producer = torch::randint(0, 40, {90}, torch::kLong);
        auto inverse = [](const torch::Tensor& ids) {
            auto count = torch::bincount(ids, {}, 40).to(torch::kFloat);
            return torch::where(count > 0, 1.0 / count, torch::zeros_like(count)).reshape({40, 1});
        };
        e.invProducerCount = inverse(e.consumer);
        e.invConsumerCount = inverse(e.producer);
        for (auto shape : {std::vector<int64_t>{40, 8}, std::vector<int64_t>{40, 3, 8}}) {
            auto x = torch::randn(shape);
            auto training = conv(x, e);  // grad mode: the concatenation path
            QVERIFY(training.requires_grad());
            torch::NoGradGuard noGrad;
            auto scoring = conv(x, e);
            QCOMPARE(scoring.sizes(), training.sizes());
            QVERIFY(torch::allclose(scoring, training.detach(), 1e-4, 1e-5));
        }
    }

    void configAttentionShapeAndMixing() {
        ConfigAttention att(16, 4);
        auto x = torch::randn({6, 16});
        auto y = att(x);
        QCOMPARE(y.sizes().vec(), (std::vector<int64_t>{6, 16}));
        // Changing another config changes this config's output: configs do attend to each other.
        auto x2 = x.clone();
        x2[5] = torch::randn({16}) * 3.0;  // (a constant shift would vanish in the LayerNorm)
        QVERIFY(!torch::allclose(att(x2)[0], y[0]));
    }

    void layoutNetSharedPassEqualsNaivePerConfigPass() {
        // The D/S split (config-free embeddings computed once) must give exactly what running every
        // node per config gives.
        const tpg::TpuGraph g = tiny::layoutGraph(5, 120, 8, false, 2);
        ModelInfo info = infoFor(tpg::Collection::Layout, 140, 18);
        info.settings.hidden = 16;
        info.settings.layers = 2;
        info.settings.pruneHops = -1;
        info.settings.violationFeature = true;
        CostModel model = CostModel::create(info);
        auto& impl = model.impl();
        const PreparedGraph p = impl.prepare(g);
        GraphTensors t = impl.makeTensors(p);
        QVERIFY(t.outsideIds.numel() + t.dependentPos.numel() == t.numNodes);
        QVERIFY(t.haloPos.numel() > 0 && t.outsideIds.numel() > 0);  // the split is exercised
        std::vector<int64_t> ids{0, 1, 2, 3, 4, 5, 6, 7};
        const ConfigBatch b = impl.batchForConfigs(p, ids.data(), 8);
        QCOMPARE(b.config.sizes().vec(), (std::vector<int64_t>{8, g.numConfigurable(), 18}));
        QCOMPARE(b.violation.sizes().vec(), (std::vector<int64_t>{8}));
        torch::NoGradGuard noGrad;
        auto fast = impl.forward(t, b);
        QCOMPARE(fast.sizes().vec(), (std::vector<int64_t>{8}));
        GraphTensors naive = t;
        naive.subset = torch::arange(t.numNodes, torch::kLong);
        naive.local = t.full;
        naive.haloPos = naive.haloIds = naive.outsideIds = torch::empty({0}, torch::kLong);
        naive.dependentPos = naive.subset;
        std::vector<int64_t> conf(p.configurablePos.begin(), p.configurablePos.end());
        naive.configPos = torch::tensor(conf, torch::kLong);
        auto slow = impl.forward(naive, b);
        QVERIFY2(torch::allclose(fast, slow, 1e-4, 1e-5),
                 "shared pass differs from the naive per-config pass");
    }

    void chunkedTrainingGradientEqualsOnePass() {
        const tpg::TpuGraph g = tiny::layoutGraph(5, 120, 8, false, 2);
        ModelInfo info = infoFor(tpg::Collection::Layout, 140, 18);
        info.settings.hidden = 16;
        info.settings.layers = 2;
        info.settings.pruneHops = -1;
        info.settings.violationFeature = true;
        CostModel model = CostModel::create(info);
        auto& impl = model.impl();
        impl.module().train();
        const PreparedGraph p = impl.prepare(g);
        const GraphTensors t = impl.makeTensors(p);
        QVERIFY(t.haloPos.numel() > 0 && t.outsideIds.numel() > 0);  // every shared output used
        const std::vector<int64_t> ids{0, 1, 2, 3, 4, 5, 6, 7};
        const auto target = torch::tensor({5.f, 3.f, 8.f, 1.f, 9.f, 2.f, 7.f, 4.f});
        PairwiseHingeLoss hinge(0.1);
        const RankingLoss loss = [&](const torch::Tensor& s, const torch::Tensor& r) { return hinge(s, r); };
        auto gradients = [&] {
            std::vector<torch::Tensor> out;
            for (auto& param : impl.module().parameters())
                out.push_back(param.grad().defined() ? param.grad().clone() : torch::zeros_like(param));
            impl.module().zero_grad();
            return out;
        };
        const double onePass = (loss(impl.forward(t, impl.batchForConfigs(p, ids.data(), 8)), target) / 2).item<double>();
        (loss(impl.forward(t, impl.batchForConfigs(p, ids.data(), 8)), target) / 2).backward();
        const auto expected = gradients();
        for (int64_t chunk : {1, 3}) {
            const double chunked = layoutGradientsInChunks(impl, p, t, ids, loss, target, 2, chunk, nullptr);
            QVERIFY(std::abs(chunked - onePass) < 1e-6);
            const auto got = gradients();
            for (size_t i = 0; i < got.size(); ++i)
                QVERIFY2(torch::allclose(got[i], expected[i], 1e-4, 1e-6), qPrintable(QString::number(i)));
        }
        tpg::nn::CancelToken cancel;
        cancel.cancel();
        QVERIFY(std::isnan(layoutGradientsInChunks(impl, p, t, ids, loss, target, 2, 3, &cancel)));
    }

    void cachedScoringEqualsUncachedForward() {
        // Scoring reuses the graph's config-free pass across calls; it must give exactly the
        // uncached forward's scores, and be recomputed when the weights or the graph change.
        const tpg::TpuGraph g = tiny::layoutGraph(7, 150, 12, false, 2);
        const tpg::TpuGraph other = tiny::layoutGraph(8, 90, 6, false, 2);
        ModelInfo info = infoFor(tpg::Collection::Layout, 140, 18);
        info.settings.hidden = 16;
        info.settings.layers = 2;
        info.settings.pruneHops = -1;  // whole graph: leaves nodes outside D
        info.settings.violationFeature = true;
        CostModel model = CostModel::create(info);
        auto& impl = model.impl();
        const PreparedGraph p = impl.prepare(g);
        const GraphTensors t = impl.makeTensors(p);
        QVERIFY(t.haloPos.numel() > 0 && t.outsideIds.numel() > 0);  // every cached part is used
        const std::vector<int64_t> ids{3, 0, 7, 11, 5};
        auto uncached = [&] {  // one config per forward, as scoreRows below
            torch::NoGradGuard noGrad;
            std::vector<double> out;
            for (int64_t c : ids)
                out.push_back(impl.forward(t, impl.batchForConfigs(p, &c, 1)).item<float>());
            return out;
        };
        auto near = [](const std::vector<double>& a, const std::vector<double>& b) {
            for (size_t i = 0; i < a.size(); ++i)  // batch sizes change oneDNN's blocking
                if (std::abs(a[i] - b[i]) > 1e-5 * std::max(1.0, std::abs(b[i]))) return false;
            return a.size() == b.size();
        };
        auto viaRows = [&] {  // one config at a time, as the GUI does
            std::vector<double> out;
            for (int64_t c : ids)
                out.push_back(model.scoreRows(g, g.layoutConfigs()->config(c).data(), 1)[0]);
            return out;
        };
        const std::vector<double> expected = uncached();
        QVERIFY(near(model.scoreConfigs(g, ids), expected));  // computes the cache
        QCOMPARE(viaRows(), expected);                        // reuses it: the very same values
        const auto all = model.scoreAll(g);
        std::vector<double> picked;
        for (int64_t c : ids) picked.push_back(all[static_cast<size_t>(c)]);
        QVERIFY(near(picked, expected));
        model.scoreConfigs(other, {0, 1});  // switches the cached graph
        QCOMPARE(viaRows(), expected);

        {  // an in-place weight update (an optimizer step) invalidates the config-free pass
            torch::NoGradGuard noGrad;
            impl.layout->nodeEncoder->project->weight.mul_(1.5);
        }
        const std::vector<double> updated = uncached();
        QVERIFY(!near(updated, expected));
        QCOMPARE(viaRows(), updated);
    }

    void tileNetShapeAndAttentionOption() {
        for (bool attention : {false, true}) {
            CostNetOptions o;
            o.nodeFeatureWidth = 30;  // trimmed widths are fine
            o.configWidth = 20;
            o.hidden = 16;
            o.configAttention = attention;
            TileCostNet net(o);
            GraphTensors t;
            t.numNodes = 3;
            t.x = torch::randn({3, 30});
            t.opcode = torch::tensor({1, 2, 3}, torch::kLong);
            t.full = chainEdges();
            QCOMPARE(net(t, torch::randn({9, 20})).sizes().vec(), (std::vector<int64_t>{9}));
        }
    }

    void pairwiseHinge() {
        PairwiseHingeLoss loss(0.1);
        auto runtime = torch::tensor({1.0f, 2.0f, 3.0f, 3.0f});
        QCOMPARE(loss(torch::tensor({0.0f, 1.0f, 2.0f, 5.0f}), runtime).item<float>(),
                 0.0f);  // ordered, margins met
        auto reversed = loss(torch::tensor({2.0f, 1.0f, 0.0f, 0.0f}), runtime).item<float>();
        QVERIFY(reversed > 1.0f);
        // Gradient pushes the slow config's score up.
        auto p = torch::tensor({0.0f, 0.0f}).requires_grad_(true);
        loss(p, torch::tensor({1.0f, 2.0f})).backward();
        QVERIFY(p.grad()[1].item<float>() < 0 && p.grad()[0].item<float>() > 0);
    }

    void listMle() {
        ListMleLoss loss;
        auto runtime = torch::tensor({3.0f, 1.0f, 2.0f});
        auto good = loss(torch::tensor({3.0f, 1.0f, 2.0f}), runtime).item<float>();
        auto bad = loss(torch::tensor({1.0f, 3.0f, 2.0f}), runtime).item<float>();
        QVERIFY(good < bad);
        QVERIFY(good > 0);
    }

    void logRuntimeMse() {
        LogRuntimeMseLoss loss;
        auto runtime = torch::tensor({1.0f, 2.0f, 4.0f});
        QVERIFY(loss(runtime.log() + 7.0, runtime).item<float>() < 1e-10);  // offset-free
        QVERIFY(loss(torch::zeros({3}), runtime).item<float>() > 0.1);
    }
};

QTEST_APPLESS_MAIN(TestNnModules)
#include "test_nn_modules.moc"
