#include "synth/HloGraphBuilder.h"

#include <algorithm>
#include <stdexcept>

#include "synth/NodeFeatureColumns.h"
#include "graph/Schema.h"

namespace tpg::synth {

namespace {

int opId(const char* name) {
    const int id = schema::opcodeId(name);
    if (id < 0) throw std::logic_error(std::string("opcodes.tsv has no opcode '") + name + "'");
    return id;
}

int elementBits(ElementType t) {
    switch (t) {
        case ElementType::Pred:
            return 8;
        case ElementType::S32:
        case ElementType::F32:
            return 32;
        case ElementType::BF16:
            return 16;
        case ElementType::Tuple:
            return 0;
    }
    return 0;
}

int typeColumn(ElementType t) {
    const auto& c = NodeColumns::get();
    switch (t) {
        case ElementType::Pred:
            return c.typePred;
        case ElementType::S32:
            return c.typeS32;
        case ElementType::F32:
            return c.typeF32;
        case ElementType::BF16:
            return c.typeBf16;
        case ElementType::Tuple:
            return c.typeTuple;
    }
    return c.typeF32;
}

// Six per-dimension values at `col`, then (when the schema has them) sum and product.
void writeSix(float* row, int col, const std::vector<int64_t>& v, bool sumAndProduct) {
    double sum = 0, product = 1;
    for (size_t i = 0; i < v.size() && i < 6; ++i) {
        row[col + static_cast<int>(i)] = static_cast<float>(v[i]);
        sum += static_cast<double>(v[i]);
        product *= static_cast<double>(v[i]);
    }
    if (sumAndProduct) {
        row[col + 6] = static_cast<float>(sum);
        row[col + 7] = static_cast<float>(product);
    }
}

}  // namespace

int64_t HloShape::volume() const {
    int64_t v = 1;
    for (int64_t d : dims) v *= d;
    return v;
}

std::vector<int> defaultLayout(int rank) {
    std::vector<int> l(static_cast<size_t>(rank));
    for (int i = 0; i < rank; ++i) l[static_cast<size_t>(i)] = rank - 1 - i;
    return l;
}

std::vector<int> HloShape::effectiveLayout() const {
    return layout.empty() ? defaultLayout(rank()) : layout;
}

HloGraphBuilder::HloGraphBuilder() = default;

void HloGraphBuilder::beginComputation() {
    m_splits.push_back(size());
}

int32_t HloGraphBuilder::add(int opcode, const HloShape& shape, const std::vector<int32_t>& operands) {
    // By value: `shape` may refer into m_shapes, which the push below can reallocate.
    if (shape.rank() > 6) throw std::logic_error("HloGraphBuilder: rank above 6");
    if (!shape.layout.empty() && static_cast<int>(shape.layout.size()) != shape.rank())
        throw std::logic_error("HloGraphBuilder: layout rank differs from shape rank");
    if (m_splits.empty()) m_splits.push_back(0);
    const auto id = static_cast<int32_t>(m_opcodes.size());
    m_opcodes.push_back(opcode);
    m_shapes.push_back(shape);
    m_features.resize(m_features.size() + kWidth, 0.0f);
    for (int32_t o : operands) {
        if (o < 0 || o >= id)
            throw std::logic_error("HloGraphBuilder: operand must precede its user");
        m_edges.push_back({id, o});  // {consumer, producer}, in operand order
    }
    const auto& c = NodeColumns::get();
    float* r = row(id);
    r[c.elementSizeInBits] = static_cast<float>(elementBits(shape.type));
    r[typeColumn(shape.type)] = 1.0f;
    if (shape.type == ElementType::Tuple) {
        r[c.tupleSize] = static_cast<float>(shape.tupleSize);
    } else {
        // A scalar's product is the empty product, 1; only tuples have product 0.
        writeSix(r, c.shapeDims, shape.dims, true);
        const auto layout = shape.effectiveLayout();
        for (size_t i = 0; i < layout.size(); ++i)
            r[c.layout + static_cast<int>(i)] = static_cast<float>(layout[i]);
    }
    return id;
}

int32_t HloGraphBuilder::parameter(const HloShape& shape, int number) {
    const int32_t id = add(opId("parameter"), shape, {});
    row(id)[NodeColumns::get().parameterNumber] = static_cast<float>(number);
    return id;
}

int32_t HloGraphBuilder::constant(const HloShape& shape) {
    return add(opId("constant"), shape, {});
}

int32_t HloGraphBuilder::iota(const HloShape& shape, int dimension) {
    const int32_t id = add(opId("iota"), shape, {});
    row(id)[NodeColumns::get().dimensions] = static_cast<float>(dimension);
    return id;
}

std::vector<int> HloGraphBuilder::propagatedLayout(const std::vector<int32_t>& operands,
                                                   int rank) const {
    // As XLA's layout assignment (and TpuCostModel) do for elementwise ops: the layout of the
    // first operand that is a real array of the same rank (broadcasts, iotas and constants are
    // materialised in whatever layout their user wants).
    static const int generated[] = {opId("broadcast"), opId("iota"), opId("constant")};
    for (int32_t o : operands) {
        const int op = opcode(o);
        if (std::find(std::begin(generated), std::end(generated), op) != std::end(generated))
            continue;
        if (shape(o).type == ElementType::Tuple || shape(o).rank() != rank) continue;
        return shape(o).effectiveLayout();
    }
    return defaultLayout(rank);
}

int32_t HloGraphBuilder::elementwise(int opcode, HloShape s, const std::vector<int32_t>& operands) {
    s.layout = propagatedLayout(operands, s.rank());
    return add(opcode, s, operands);
}

int32_t HloGraphBuilder::unary(const char* opcode, int32_t x) {
    return elementwise(opId(opcode), shape(x), {x});
}

int32_t HloGraphBuilder::binary(const char* opcode, int32_t a, int32_t b) {
    if (shape(a).dims != shape(b).dims)
        throw std::logic_error(std::string("HloGraphBuilder: ") + opcode +
                               " operand shapes differ");
    return elementwise(opId(opcode), shape(a), {a, b});
}

int32_t HloGraphBuilder::compare(int32_t a, int32_t b) {
    HloShape s = shape(a);
    s.type = ElementType::Pred;
    return elementwise(opId("compare"), s, {a, b});
}

int32_t HloGraphBuilder::select(int32_t pred, int32_t a, int32_t b) {
    return elementwise(opId("select"), shape(a), {pred, a, b});
}

int32_t HloGraphBuilder::convert(int32_t x, ElementType to) {
    HloShape s = shape(x);
    s.type = to;
    return elementwise(opId("convert"), s, {x});
}

int32_t HloGraphBuilder::broadcast(int32_t x, const std::vector<int64_t>& outDims,
                                   const std::vector<int>& dims) {
    HloShape s;
    s.type = shape(x).type;
    s.dims = outDims;
    const int32_t id = add(opId("broadcast"), s, {x});
    std::vector<int64_t> d(dims.begin(), dims.end());
    writeSix(row(id), NodeColumns::get().dimensions, d, false);
    return id;
}

int32_t HloGraphBuilder::reshape(int32_t x, const std::vector<int64_t>& outDims) {
    HloShape s;
    s.type = shape(x).type;
    s.dims = outDims;
    if (s.volume() != shape(x).volume())
        throw std::logic_error("HloGraphBuilder: reshape changes the element count");
    return add(opId("reshape"), s, {x});
}

int32_t HloGraphBuilder::transpose(int32_t x, const std::vector<int>& perm) {
    const HloShape& in = shape(x);
    HloShape s;
    s.type = in.type;
    for (int p : perm) s.dims.push_back(in.dims[static_cast<size_t>(p)]);
    const int32_t id = add(opId("transpose"), s, {x});
    writeSix(row(id), NodeColumns::get().dimensions, std::vector<int64_t>(perm.begin(), perm.end()),
             false);
    return id;
}

int32_t HloGraphBuilder::reduce(int32_t x, int32_t init, const std::vector<int>& dims) {
    const HloShape& in = shape(x);
    HloShape s;
    s.type = in.type;
    for (int i = 0; i < in.rank(); ++i)
        if (std::find(dims.begin(), dims.end(), i) == dims.end())
            s.dims.push_back(in.dims[static_cast<size_t>(i)]);
    const int32_t id = add(opId("reduce"), s, {x, init});
    writeSix(row(id), NodeColumns::get().dimensions, std::vector<int64_t>(dims.begin(), dims.end()),
             false);
    return id;
}

void HloGraphBuilder::writeWindow(int32_t node, const HloWindow& w) {
    const auto& c = NodeColumns::get();
    float* r = row(node);
    const std::vector<int64_t> ones(w.size.size(), 1);
    writeSix(r, c.windowSize, w.size, true);
    writeSix(r, c.windowStride, w.stride, true);
    writeSix(r, c.windowPadLow, w.padLow, true);
    writeSix(r, c.windowPadHigh, w.padHigh, true);
    writeSix(r, c.windowDilation, ones, true);
    writeSix(r, c.baseDilation, ones, true);
    r[c.reversalTrueCount] = 0.0f;
    r[c.reversalFalseCount] = static_cast<float>(w.size.size());
}

int32_t HloGraphBuilder::reduceWindow(int32_t x, int32_t init, const HloWindow& w) {
    const HloShape& in = shape(x);
    if (static_cast<int>(w.size.size()) != in.rank())
        throw std::logic_error(
            "HloGraphBuilder: reduce-window needs one window entry per dimension");
    HloShape s = in;
    for (int i = 0; i < in.rank(); ++i) {
        const auto k = static_cast<size_t>(i);
        s.dims[k] = (in.dims[k] + w.padLow[k] + w.padHigh[k] - w.size[k]) / w.stride[k] + 1;
    }
    const int32_t id = elementwise(opId("reduce-window"), s, {x, init});
    writeWindow(id, w);
    return id;
}

int32_t HloGraphBuilder::convolution(int32_t input, int32_t kernel, const HloWindow& w,
                                     const ConvDims& dn, int64_t outFeatures) {
    const HloShape& in = shape(input);
    const HloShape& k = shape(kernel);
    const size_t spatial = dn.inputSpatial.size();
    if (w.size.size() != spatial || dn.outputSpatial.size() != spatial ||
        dn.kernelSpatial.size() != spatial)
        throw std::logic_error(
            "HloGraphBuilder: convolution window and spatial dimensions disagree");
    if (k.dims[static_cast<size_t>(dn.kernelOutputFeature)] != outFeatures)
        throw std::logic_error(
            "HloGraphBuilder: kernel output features differ from the convolution's");
    HloShape s;
    s.type = in.type;
    s.dims.assign(spatial + 2, 0);
    s.dims[static_cast<size_t>(dn.outputBatch)] = in.dims[static_cast<size_t>(dn.inputBatch)];
    s.dims[static_cast<size_t>(dn.outputFeature)] = outFeatures;
    for (size_t i = 0; i < spatial; ++i) {
        const int64_t x = in.dims[static_cast<size_t>(dn.inputSpatial[i])];
        s.dims[static_cast<size_t>(dn.outputSpatial[i])] =
            (x + w.padLow[i] + w.padHigh[i] - w.size[i]) / w.stride[i] + 1;
    }
    // The compiler's choice for a convolution's output: the feature dimension most minor.
    std::vector<int> layout{dn.outputFeature};
    for (int d = s.rank() - 1; d >= 0; --d)
        if (d != dn.outputFeature) layout.push_back(d);
    s.layout = layout;
    const int32_t id = add(opId("convolution"), s, {input, kernel});
    writeWindow(id, w);
    const auto& c = NodeColumns::get();
    float* r = row(id);
    r[c.convInputBatch] = static_cast<float>(dn.inputBatch);
    r[c.convInputFeature] = static_cast<float>(dn.inputFeature);
    for (size_t i = 0; i < spatial && i < 4; ++i) {
        r[c.convInputSpatial + static_cast<int>(i)] = static_cast<float>(dn.inputSpatial[i]);
        r[c.convKernelSpatial + static_cast<int>(i)] = static_cast<float>(dn.kernelSpatial[i]);
    }
    r[c.convKernelInputFeature] = static_cast<float>(dn.kernelInputFeature);
    r[c.convKernelOutputFeature] = static_cast<float>(dn.kernelOutputFeature);
    r[c.convOutputBatch] = static_cast<float>(dn.outputBatch);
    r[c.convOutputFeature] = static_cast<float>(dn.outputFeature);
    r[c.featureGroupCount] = 1.0f;
    r[c.batchGroupCount] = 1.0f;
    return id;
}

int32_t HloGraphBuilder::dot(int32_t lhs, int32_t rhs, int batchDims) {
    const HloShape& a = shape(lhs);
    const HloShape& b = shape(rhs);
    const auto bd = static_cast<size_t>(batchDims);
    if (a.rank() < batchDims + 1 || b.rank() < batchDims + 1 || a.dims.back() != b.dims[bd])
        throw std::logic_error("HloGraphBuilder: dot operand shapes do not contract");
    HloShape s;
    s.type = a.type;
    s.dims.assign(a.dims.begin(), a.dims.end() - 1);
    s.dims.insert(s.dims.end(), b.dims.begin() + static_cast<std::ptrdiff_t>(bd) + 1, b.dims.end());
    return add(opId("dot"), s, {lhs, rhs});
}

int32_t HloGraphBuilder::concatenate(const std::vector<int32_t>& xs, int dimension) {
    HloShape s = shape(xs.front());
    s.dims[static_cast<size_t>(dimension)] = 0;
    for (int32_t x : xs)
        s.dims[static_cast<size_t>(dimension)] += shape(x).dims[static_cast<size_t>(dimension)];
    const int32_t id = elementwise(opId("concatenate"), s, xs);
    row(id)[NodeColumns::get().dimensions] = static_cast<float>(dimension);
    return id;
}

int32_t HloGraphBuilder::tuple(const std::vector<int32_t>& xs) {
    HloShape s;
    s.type = ElementType::Tuple;
    s.tupleSize = static_cast<int>(xs.size());
    return add(opId("tuple"), s, xs);
}

int32_t HloGraphBuilder::getTupleElement(int32_t t, const HloShape& elementShape) {
    return add(opId("get-tuple-element"), elementShape, {t});
}

int32_t HloGraphBuilder::op(const char* opcode, const HloShape& shape,
                            const std::vector<int32_t>& operands) {
    return add(opId(opcode), shape, operands);
}

void HloGraphBuilder::setRoot(int32_t node) {
    row(node)[NodeColumns::get().isRoot] = 1.0f;
}

void HloGraphBuilder::setConfigurable(int32_t node) {
    if (std::find(m_configurable.begin(), m_configurable.end(), node) == m_configurable.end())
        m_configurable.push_back(node);
}

void HloGraphBuilder::setLayout(int32_t node, const std::vector<int>& minorToMajor) {
    HloShape& s = m_shapes[static_cast<size_t>(node)];
    if (static_cast<int>(minorToMajor.size()) != s.rank())
        throw std::logic_error("HloGraphBuilder: layout rank differs from shape rank");
    s.layout = minorToMajor;
    const auto& c = NodeColumns::get();
    for (size_t i = 0; i < 6; ++i)
        row(node)[c.layout + static_cast<int>(i)] =
            i < minorToMajor.size() ? static_cast<float>(minorToMajor[i]) : 0.0f;
}

TpuGraphData HloGraphBuilder::take(const std::string& name, Collection collection) {
    TpuGraphData d;
    d.name = name;
    d.collection = collection;
    d.numNodes = size();
    d.nodeFeatureWidth = static_cast<int64_t>(kWidth);
    d.nodeFeatures = std::move(m_features);
    d.opcodes = std::move(m_opcodes);
    d.edges = std::move(m_edges);
    d.nodeSplits = std::move(m_splits);
    d.configurableNodes = std::move(m_configurable);
    std::sort(d.configurableNodes.begin(), d.configurableNodes.end());
    m_shapes.clear();
    return d;
}

}  // namespace tpg::synth
