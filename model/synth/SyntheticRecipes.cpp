#include "synth/SyntheticRecipes.h"

#include <algorithm>
#include <stdexcept>

#include "synth/HloGraphBuilder.h"

namespace tpg::synth {

const char* recipeName(Recipe r) {
    switch (r) {
        case Recipe::ResNet:
            return "resnet";
        case Recipe::Transformer:
            return "transformer";
        case Recipe::Mlp:
            return "mlp";
        case Recipe::ConvKernel:
            return "conv_fusion";
        case Recipe::DotKernel:
            return "dot_fusion";
        case Recipe::SoftmaxKernel:
            return "softmax_fusion";
    }
    return "unknown";
}

namespace {

using Dims = std::vector<int64_t>;

// The building blocks real programs are made of, on top of HloGraphBuilder.
class Program {
public:
    Program(Rng& rng, ElementType type, bool reducers) : m_rng(rng), m_type(type) {
        if (!reducers) return;
        // Reducer computations come first, as separate HLO computations (node_splits).
        for (const char* op : {"add", "maximum"}) {
            b.beginComputation();
            const int32_t x = b.parameter(scalar(), 0);
            const int32_t y = b.parameter(scalar(), 1);
            b.setRoot(b.binary(op, x, y));
        }
        b.beginComputation();
    }

    HloGraphBuilder b;

    HloShape array(const Dims& dims, ElementType t) const {
        HloShape s;
        s.type = t;
        s.dims = dims;
        return s;
    }
    HloShape array(const Dims& dims) const { return array(dims, m_type); }
    HloShape scalar() const { return array({}); }
    ElementType type() const { return m_type; }
    Dims dims(int32_t x) const { return b.shape(x).dims; }  // a copy: adding nodes moves shapes

    int32_t param(const Dims& dims) { return b.parameter(array(dims), m_params++); }
    int32_t param(const Dims& dims, ElementType t) {
        return b.parameter(array(dims, t), m_params++);
    }
    int32_t splat(double, const Dims& dims) {  // a broadcast scalar constant
        return b.broadcast(b.constant(scalar()), dims, {});
    }
    // A rank-1 per-feature vector broadcast along `dim` of `dims`.
    int32_t perFeature(int32_t v, const Dims& dims, int dim) { return b.broadcast(v, dims, {dim}); }
    int32_t relu(int32_t x) { return b.binary("maximum", x, splat(0, dims(x))); }

    int32_t conv(int32_t x, int64_t k, int64_t stride, int64_t outF, const ConvDims& dn) {
        const int64_t inF = dims(x)[static_cast<size_t>(dn.inputFeature)];
        Dims kd(4);
        kd[static_cast<size_t>(dn.kernelSpatial[0])] = k;
        kd[static_cast<size_t>(dn.kernelSpatial[1])] = k;
        kd[static_cast<size_t>(dn.kernelInputFeature)] = inF;
        kd[static_cast<size_t>(dn.kernelOutputFeature)] = outF;
        const int32_t w = param(kd);
        HloWindow win;
        win.size = {k, k};
        win.stride = {stride, stride};
        win.padLow = {(k - 1) / 2, (k - 1) / 2};
        win.padHigh = {k / 2, k / 2};
        const int32_t c = b.convolution(x, w, win, dn, outF);
        b.setConfigurable(c);
        return c;
    }

    // Batch-norm inference as XLA lowers it: scale = gamma * rsqrt(var + eps), y = x * scale +
    // beta.
    int32_t batchNorm(int32_t x, int featureDim) {
        const int64_t c = dims(x)[static_cast<size_t>(featureDim)];
        const int32_t var = param({c});
        const int32_t eps = b.broadcast(b.constant(scalar()), {c}, {});
        const int32_t inv = b.unary("rsqrt", b.binary("add", var, eps));
        const int32_t scale = b.binary("multiply", inv, param({c}));
        const int32_t y = b.binary("multiply", x, perFeature(scale, dims(x), featureDim));
        return b.binary("add", y, perFeature(param({c}), dims(x), featureDim));
    }

    int32_t maxPool(int32_t x, int featureDim, int batchDim) {
        HloWindow w;
        const int rank = static_cast<int>(dims(x).size());
        for (int i = 0; i < rank; ++i) {
            const bool spatial = i != featureDim && i != batchDim;
            w.size.push_back(spatial ? 3 : 1);
            w.stride.push_back(spatial ? 2 : 1);
            w.padLow.push_back(spatial ? 1 : 0);
            w.padHigh.push_back(spatial ? 1 : 0);
        }
        return b.reduceWindow(x, b.constant(scalar()), w);
    }

    // Sum or max over `dim` (init constant + reducer computation).
    int32_t reduce(int32_t x, const std::vector<int>& reduced) {
        return b.reduce(x, b.constant(scalar()), reduced);
    }
    // Broadcast a reduced tensor back over the dims it lost.
    int32_t expand(int32_t r, const Dims& full, const std::vector<int>& reduced) {
        std::vector<int> keep;
        for (int i = 0; i < static_cast<int>(full.size()); ++i)
            if (std::find(reduced.begin(), reduced.end(), i) == reduced.end()) keep.push_back(i);
        return b.broadcast(r, full, keep);
    }

    int32_t softmax(int32_t x, int dim) {
        const Dims d = dims(x);
        const int32_t mx = expand(reduce(x, {dim}), d, {dim});
        const int32_t e = b.unary("exponential", b.binary("subtract", x, mx));
        const int32_t s = expand(reduce(e, {dim}), d, {dim});
        return b.binary("divide", e, s);
    }

    int32_t layerNorm(int32_t x, int dim) {
        const Dims d = dims(x);
        const int32_t n = splat(0, d);
        const int32_t mean = b.binary("divide", expand(reduce(x, {dim}), d, {dim}), n);
        const int32_t centred = b.binary("subtract", x, mean);
        const int32_t var = b.binary(
            "divide", expand(reduce(b.binary("multiply", centred, centred), {dim}), d, {dim}), n);
        const int32_t inv = b.unary("rsqrt", b.binary("add", var, splat(0, d)));
        const int32_t y = b.binary("multiply", centred, inv);
        const int64_t f = d[static_cast<size_t>(dim)];
        return b.binary("add", b.binary("multiply", y, perFeature(param({f}), d, dim)),
                        perFeature(param({f}), d, dim));
    }

    int32_t gelu(int32_t x) {  // the tanh approximation, as XLA sees it
        const Dims d = dims(x);
        const int32_t cube = b.binary("multiply", b.binary("multiply", x, x), x);
        const int32_t inner = b.binary("add", x, b.binary("multiply", cube, splat(0.044715, d)));
        const int32_t t = b.unary("tanh", b.binary("multiply", inner, splat(0.79788, d)));
        const int32_t half = b.binary("multiply", b.binary("add", t, splat(1, d)), splat(0.5, d));
        return b.binary("multiply", x, half);
    }

    // x (..., K) reshaped to (M, K), times W (K, N), plus bias; configurable reshape and dot.
    int32_t dense(int32_t x2d, int64_t out) {
        const int64_t k = dims(x2d).back();
        const int32_t d = b.dot(x2d, param({k, out}), 0);
        b.setConfigurable(d);
        return b.binary("add", d,
                        perFeature(param({out}), dims(d), static_cast<int>(dims(d).size()) - 1));
    }
    int32_t reshape(int32_t x, const Dims& to) {
        const int32_t r = b.reshape(x, to);
        if (to.size() >= 2) b.setConfigurable(r);
        return r;
    }

    Rng& rng() { return m_rng; }

private:
    Rng& m_rng;
    ElementType m_type;
    int m_params = 0;
};

ElementType pickType(Rng& rng) {
    return rng.chance(0.5) ? ElementType::BF16 : ElementType::F32;
}

ConvDims convDims(bool nchw) {
    ConvDims dn;
    if (nchw) {
        dn.inputBatch = 0, dn.inputFeature = 1, dn.inputSpatial = {2, 3};
        dn.kernelOutputFeature = 0, dn.kernelInputFeature = 1, dn.kernelSpatial = {2, 3};
        dn.outputBatch = 0, dn.outputFeature = 1, dn.outputSpatial = {2, 3};
    }
    return dn;
}

Dims activation(bool nchw, int64_t n, int64_t hw, int64_t c) {
    return nchw ? Dims{n, c, hw, hw} : Dims{n, hw, hw, c};
}

void finishProgram(Program& p, int32_t output) {
    const int32_t t = p.b.tuple({output});
    p.b.setRoot(t);
}

TpuGraphData resnet(Rng& rng, int64_t target, const std::string& name) {
    Program p(rng, pickType(rng), true);
    const bool nchw = rng.chance(0.3);
    const ConvDims dn = convDims(nchw);
    const int f = dn.inputFeature;
    const int64_t batch = rng.pick<int64_t>({1, 2, 8, 16, 32, 64, 128});
    int64_t hw = rng.pick<int64_t>({32, 64, 112, 224});
    const int64_t width = rng.pick<int64_t>({16, 32, 64});
    const bool bottleneck = rng.chance(0.6);
    const int64_t classes = rng.pick<int64_t>({10, 100, 1000});

    int32_t x = p.param(activation(nchw, batch, hw, 3));
    x = p.relu(p.batchNorm(p.conv(x, hw >= 112 ? 7 : 3, hw >= 112 ? 2 : 1, width, dn), f));
    x = p.maxPool(x, f, 0);
    // Stages double the channels and halve the resolution; blocks repeat until the target size.
    constexpr int64_t kHeadNodes = 40;
    int stage = 0;
    int64_t channels = width;
    int blocksInStage = 0;
    const int blocksPerStage = static_cast<int>(rng.range(2, 6));
    while (p.b.size() + kHeadNodes + (bottleneck ? 45 : 30) <= target) {
        const bool first = blocksInStage == 0 && stage > 0;
        const int64_t spatial = p.dims(x)[static_cast<size_t>(dn.inputSpatial[0])];
        const int64_t stride = first && spatial >= 4 ? 2 : 1;
        const int64_t outC = bottleneck ? channels * 4 : channels;
        int32_t y;
        if (bottleneck) {
            y = p.relu(p.batchNorm(p.conv(x, 1, 1, channels, dn), f));
            y = p.relu(p.batchNorm(p.conv(y, 3, stride, channels, dn), f));
            y = p.batchNorm(p.conv(y, 1, 1, outC, dn), f);
        } else {
            y = p.relu(p.batchNorm(p.conv(x, 3, stride, outC, dn), f));
            y = p.batchNorm(p.conv(y, 3, 1, outC, dn), f);
        }
        int32_t shortcut = x;
        if (p.dims(x) != p.dims(y)) shortcut = p.batchNorm(p.conv(x, 1, stride, outC, dn), f);
        x = p.relu(p.b.binary("add", y, shortcut));
        if (++blocksInStage == blocksPerStage) {
            blocksInStage = 0;
            if (stage < 3) {
                ++stage;
                channels *= 2;
            }
        }
    }
    // Head: global average pool (reduce over spatial dims), dense, softmax.
    int32_t pooled = p.reduce(x, dn.inputSpatial);
    pooled = p.b.binary("divide", pooled, p.splat(0, p.dims(pooled)));
    if (!nchw) pooled = p.reshape(pooled, {batch, p.dims(pooled)[1]});
    const int32_t logits = p.dense(pooled, classes);
    finishProgram(p, p.softmax(logits, 1));
    return p.b.take(name, Collection::Layout);
}

int32_t attentionBlock(Program& p, int32_t x, int64_t heads) {
    const Dims d = p.dims(x);  // (B, S, D)
    const int64_t b = d[0], s = d[1], model = d[2], dh = model / heads;
    const int32_t ln = p.layerNorm(x, 2);
    const int32_t flat = p.reshape(ln, {b * s, model});
    auto project = [&](const std::vector<int>& perm) {
        const int32_t q = p.reshape(p.dense(flat, model), {b, s, heads, dh});
        return p.b.transpose(q, perm);
    };
    const int32_t q = project({0, 2, 1, 3});  // (B, H, S, Dh)
    const int32_t k = project({0, 2, 3, 1});  // (B, H, Dh, S)
    const int32_t v = project({0, 2, 1, 3});
    int32_t scores = p.b.dot(q, k, 2);  // (B, H, S, S)
    p.b.setConfigurable(scores);
    scores = p.b.binary("multiply", scores, p.splat(0.125, p.dims(scores)));
    const int32_t probs = p.softmax(scores, 3);
    const int32_t ctx = p.b.dot(probs, v, 2);  // (B, H, S, Dh)
    p.b.setConfigurable(ctx);
    const int32_t merged = p.reshape(p.b.transpose(ctx, {0, 2, 1, 3}), {b * s, model});
    const int32_t attn = p.reshape(p.dense(merged, model), {b, s, model});
    const int32_t x1 = p.b.binary("add", x, attn);
    // MLP
    const int32_t ln2 = p.reshape(p.layerNorm(x1, 2), {b * s, model});
    const int32_t h = p.gelu(p.dense(ln2, 4 * model));
    const int32_t o = p.reshape(p.dense(h, model), {b, s, model});
    return p.b.binary("add", x1, o);
}

TpuGraphData transformer(Rng& rng, int64_t target, const std::string& name) {
    Program p(rng, pickType(rng), true);
    const int64_t batch = rng.pick<int64_t>({1, 2, 4, 8, 16, 32});
    const int64_t seq = rng.pick<int64_t>({64, 128, 256, 512});
    const int64_t model = rng.pick<int64_t>({128, 256, 512, 768, 1024});
    const int64_t heads = model / rng.pick<int64_t>({32, 64, 128});
    const int64_t vocab = rng.pick<int64_t>({8000, 30522, 32000});
    const int32_t ids = p.param({batch, seq}, ElementType::S32);
    const int32_t table = p.param({vocab, model});
    int32_t x = p.b.op("gather", p.array({batch, seq, model}), {table, ids});
    const int32_t pos = p.b.broadcast(p.param({seq, model}), {batch, seq, model}, {1, 2});
    x = p.b.binary("add", x, pos);
    constexpr int64_t kBlockNodes = 125, kHeadNodes = 40;
    do {
        x = attentionBlock(p, x, heads);
    } while (p.b.size() + kBlockNodes + kHeadNodes <= target);
    x = p.layerNorm(x, 2);
    const int32_t pooled = p.b.binary("divide", p.reduce(x, {1}), p.splat(0, {batch, model}));
    finishProgram(p, p.softmax(p.dense(pooled, rng.pick<int64_t>({2, 3, 1000})), 1));
    return p.b.take(name, Collection::Layout);
}

TpuGraphData mlp(Rng& rng, int64_t target, const std::string& name) {
    Program p(rng, pickType(rng), true);
    const int64_t batch = rng.pick<int64_t>({8, 32, 128, 512});
    const int64_t width = rng.pick<int64_t>({100, 256, 784, 1024});
    int32_t x;
    // Flattened image inputs arrive as (B, H, W) and are reshaped, as Keras MLPs do.
    if (rng.chance(0.5)) {
        const int64_t side = rng.pick<int64_t>({16, 28, 32});
        x = p.reshape(p.param({batch, side, side}), {batch, side * side});
    } else {
        x = p.param({batch, width});
    }
    constexpr int64_t kLayerNodes = 8, kHeadNodes = 20;
    const bool tanh = rng.chance(0.3);
    do {
        const int64_t out = rng.pick<int64_t>({64, 128, 256, 512, 1000, 2048});
        x = p.dense(x, out);
        x = tanh ? p.b.unary("tanh", x) : p.relu(x);
    } while (p.b.size() + kLayerNodes + kHeadNodes <= target);
    finishProgram(p, p.softmax(p.dense(x, rng.pick<int64_t>({10, 100})), 1));
    return p.b.take(name, Collection::Layout);
}

// Tile kernels: one fused computation; the root is the fusion's output. Their configs are
// graph-level: no configurable nodes, no splits.
TpuGraphData finishTileKernel(Program& p, int32_t root, const std::string& name) {
    p.b.setRoot(root);
    TpuGraphData d = p.b.take(name, Collection::Tile);
    d.configurableNodes.clear();
    d.nodeSplits.clear();
    return d;
}

TpuGraphData convKernel(Rng& rng, const std::string& name) {
    Program p(rng, pickType(rng), false);
    const bool nchw = rng.chance(0.2);
    const ConvDims dn = convDims(nchw);
    const int64_t n = rng.pick<int64_t>({1, 8, 16, 32}), hw = rng.pick<int64_t>({7, 14, 28, 56});
    const int64_t c = rng.pick<int64_t>({3, 32, 64, 128, 256}),
                  k = rng.pick<int64_t>({32, 64, 128, 256, 512});
    int32_t x = p.param(activation(nchw, n, hw, c));
    if (rng.chance(0.4))
        x = p.b.convert(p.param(activation(nchw, n, hw, c), ElementType::F32), p.type());
    int32_t y = p.conv(x, rng.pick<int64_t>({1, 3, 3, 5}), rng.chance(0.2) ? 2 : 1, k, dn);
    y = p.batchNorm(y, dn.outputFeature);
    if (rng.chance(0.5)) y = p.b.binary("add", y, p.param(p.dims(y)));
    y = p.relu(y);
    if (rng.chance(0.3)) y = p.b.convert(y, ElementType::F32);
    return finishTileKernel(p, y, name);
}

TpuGraphData dotKernel(Rng& rng, const std::string& name) {
    Program p(rng, pickType(rng), false);
    const int64_t m = rng.pick<int64_t>({128, 512, 1024, 4096, 16384}),
                  k = rng.pick<int64_t>({64, 256, 768, 1024, 4096});
    const int64_t nOut = rng.pick<int64_t>({64, 128, 768, 1024, 3072});
    int32_t x = p.param({m, k});
    if (rng.chance(0.5)) x = p.b.reshape(p.param({m / 16, 16, k}), {m, k});
    int32_t y = p.b.dot(x, p.param({k, nOut}), 0);
    y = p.b.binary("add", y, p.perFeature(p.param({nOut}), p.dims(y), 1));
    const double act = rng.uniform();
    if (act < 0.4)
        y = p.gelu(y);
    else if (act < 0.7)
        y = p.relu(y);
    else
        y = p.b.unary("tanh", y);
    if (rng.chance(0.4)) y = p.b.binary("add", y, p.param(p.dims(y)));
    return finishTileKernel(p, y, name);
}

TpuGraphData softmaxKernel(Rng& rng, const std::string& name) {
    Program p(rng, pickType(rng), false);
    const int64_t b = rng.pick<int64_t>({1, 8, 32}), h = rng.pick<int64_t>({4, 12, 16}),
                  s = rng.pick<int64_t>({64, 128, 512});
    int32_t x = p.param({b, h, s, s});
    x = p.b.binary("multiply", x, p.splat(0.125, p.dims(x)));
    if (rng.chance(0.5)) {
        // Attention mask: select(compare(iota, length), x, -inf).
        const int32_t mask =
            p.b.compare(p.b.iota(p.array({b, h, s, s}, ElementType::S32), 3),
                        p.b.broadcast(p.param({b}, ElementType::S32), {b, h, s, s}, {0}));
        x = p.b.select(mask, x, p.splat(-1e9, p.dims(x)));
    }
    int32_t y = rng.chance(0.7) ? p.softmax(x, 3) : p.layerNorm(x, 3);
    if (rng.chance(0.3)) y = p.b.convert(y, ElementType::BF16);
    return finishTileKernel(p, y, name);
}

}  // namespace

TpuGraphData buildProgram(Recipe recipe, Rng& rng, int64_t targetNodes, const std::string& name) {
    switch (recipe) {
        case Recipe::ResNet:
            return resnet(rng, targetNodes, name);
        case Recipe::Transformer:
            return transformer(rng, targetNodes, name);
        case Recipe::Mlp:
            return mlp(rng, targetNodes, name);
        default:
            throw std::invalid_argument(std::string("not a program recipe: ") + recipeName(recipe));
    }
}

TpuGraphData buildKernel(Recipe recipe, Rng& rng, const std::string& name) {
    switch (recipe) {
        case Recipe::ConvKernel:
            return convKernel(rng, name);
        case Recipe::DotKernel:
            return dotKernel(rng, name);
        case Recipe::SoftmaxKernel:
            return softmaxKernel(rng, name);
        default:
            throw std::invalid_argument(std::string("not a kernel recipe: ") + recipeName(recipe));
    }
}

}  // namespace tpg::synth
