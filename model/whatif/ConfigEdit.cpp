#include "whatif/ConfigEdit.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "graph/Schema.h"
#include "io/Error.h"
#include "synth/TpuCostModel.h"

namespace tpg::whatif {

namespace {

constexpr int kSlotWidth = schema::kMaxRank;       // 6 values per slot
constexpr size_t kTileGroupWidth = 8;              // bounds 0-5, sum, product
constexpr size_t kTileBoundsPerGroup = schema::kMaxRank;

[[noreturn]] void fail(const std::string& edit, const std::string& what) {
    throw FormatError("edit '" + edit + "': " + what);
}

std::vector<int64_t> shapeOf(const TpuGraph& g, int32_t node) {
    const float* f = g.nodeFeatures(node);
    const int rank = schema::shapeRank(f);
    std::vector<int64_t> dims;
    dims.reserve(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d) dims.push_back(static_cast<int64_t>(f[schema::kShapeDimColumn + d]));
    return dims;
}

std::vector<int> parsePermutation(const std::string& edit, std::string text) {
    text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return c == '{' || c == '}' || c == ' '; }),
               text.end());
    if (text == "default") return {};
    std::vector<int> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 2)
            fail(edit, "expected a minor-to-major list such as 3,0,2,1 or 'default', got '" + text + "'");
        out.push_back(std::stoi(item));
    }
    if (out.empty()) fail(edit, "expected a minor-to-major list such as 3,0,2,1 or 'default'");
    return out;
}

}  // namespace

const char* slotName(LayoutSlot slot) {
    switch (slot) {
        case LayoutSlot::Output: return "output";
        case LayoutSlot::Input: return "input";
        case LayoutSlot::Kernel: return "kernel";
    }
    return "?";
}

std::string SlotTensor::shapeText() const {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
}

std::string layoutText(const std::vector<int>& m) {
    if (m.empty()) return "default";
    std::string s = "{";
    for (size_t i = 0; i < m.size(); ++i) s += (i ? "," : "") + std::to_string(m[i]);
    return s + "}";
}

std::string layoutEditingUnavailable(const TpuGraph& g) {
    if (!g.isLayout()) return "a tile file has no layout slots";
    if (g.nodeFeatureWidth() != schema::kNodeFeatureWidth || g.configFeatureWidth() != schema::kLayoutConfigWidth)
        return g.path() + ": node_feat has " + std::to_string(g.nodeFeatureWidth()) + " columns and configs " +
               std::to_string(g.configFeatureWidth()) +
               " (a trimmed copy): which tensor each config column lays out is unknown, so layouts cannot be "
               "edited by slot (expected 140 and 18)";
    return {};
}

SlotTensor slotTensor(const TpuGraph& g, int32_t node, LayoutSlot slot) {
    SlotTensor t;
    if (!layoutEditingUnavailable(g).empty()) {
        t.why = layoutEditingUnavailable(g);
        return t;
    }
    const std::string op = g.opcodeName(node);
    const std::vector<int32_t> operands = g.producers(node);
    if (slot == LayoutSlot::Output) {
        t.tensorNode = node;
    } else if (slot == LayoutSlot::Input) {
        if (operands.empty()) {
            t.why = "node " + std::to_string(node) + " (" + op + ") has no operand";
            return t;
        }
        t.tensorNode = operands[0];
    } else {
        if (op != "convolution" && op != "dot") {
            t.why = "only a convolution or dot has a kernel (node " + std::to_string(node) + " is a " + op + ")";
            return t;
        }
        if (operands.size() < 2) {
            t.why = "node " + std::to_string(node) + " has no second operand";
            return t;
        }
        t.tensorNode = operands[1];
    }
    t.dims = shapeOf(g, t.tensorNode);
    if (t.dims.empty()) {
        t.why = "node " + std::to_string(t.tensorNode) + " is a scalar or its shape is unknown";
        return t;
    }
    t.usable = true;
    return t;
}

std::string LayoutEdit::text() const {
    std::string perm = layoutText(minorToMajor);
    if (perm.front() == '{') perm = perm.substr(1, perm.size() - 2);
    return std::to_string(node) + "." + slotName(slot) + "=" + perm;
}

std::string layoutEditProblem(const TpuGraph& g, const LayoutEdit& e) {
    if (std::string why = layoutEditingUnavailable(g); !why.empty()) return why;
    if (e.node < 0 || e.node >= g.numNodes())
        return "no node " + std::to_string(e.node) + " (the graph has " +
               std::to_string(g.numNodes()) + ")";
    if (g.configurableIndex(e.node) < 0)
        return "node " + std::to_string(e.node) + " (" + g.opcodeName(e.node) +
               ") is not configurable";
    const SlotTensor t = slotTensor(g, e.node, e.slot);
    if (!t.usable) return t.why;
    if (e.minorToMajor.empty()) return {};
    std::vector<int> sorted = e.minorToMajor;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> identity(static_cast<size_t>(t.rank()));
    std::iota(identity.begin(), identity.end(), 0);
    if (sorted == identity) return {};
    return "expected a permutation of 0.." + std::to_string(t.rank() - 1) + " (node " +
           std::to_string(t.tensorNode) + "'s " + t.shapeText() + " has rank " +
           std::to_string(t.rank()) + ")";
}

void checkLayoutEdit(const TpuGraph& g, const LayoutEdit& e) {
    if (const std::string why = layoutEditProblem(g, e); !why.empty()) fail(e.text(), why);
}

LayoutEdit parseLayoutEdit(const TpuGraph& g, const std::string& text) {
    const size_t dot = text.find('.');
    const size_t eq = text.find('=');
    if (dot == std::string::npos || eq == std::string::npos || eq < dot)
        fail(text, "expected NODE.SLOT=LAYOUT, e.g. 44.output=3,0,2,1 (SLOT: output, input or kernel)");
    LayoutEdit e;
    const std::string node = text.substr(0, dot);
    if (node.empty() || node.size() > 9 || node.find_first_not_of("0123456789") != std::string::npos)
        fail(text, "expected a node id before '.', got '" + node + "'");
    e.node = std::stoi(node);
    const std::string slot = text.substr(dot + 1, eq - dot - 1);
    if (slot == "output") e.slot = LayoutSlot::Output;
    else if (slot == "input") e.slot = LayoutSlot::Input;
    else if (slot == "kernel") e.slot = LayoutSlot::Kernel;
    else fail(text, "expected the slot output, input or kernel, got '" + slot + "'");
    e.minorToMajor = parsePermutation(text, text.substr(eq + 1));
    checkLayoutEdit(g, e);
    return e;
}

void checkEachSlotOnce(const std::vector<LayoutEdit>& edits) {
    for (size_t i = 0; i < edits.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (edits[j].node == edits[i].node && edits[j].slot == edits[i].slot)
                throw FormatError("edits '" + edits[j].text() + "' and '" + edits[i].text() +
                                  "' both set node " + std::to_string(edits[i].node) + "'s " +
                                  slotName(edits[i].slot) + " layout: give each slot once");
}

void applyLayoutEdit(const TpuGraph& g, std::vector<float>& row, const LayoutEdit& e) {
    const int k = g.configurableIndex(e.node);
    float* slot = row.data() + static_cast<size_t>(k) * schema::kLayoutConfigWidth +
                  static_cast<size_t>(e.slot) * kSlotWidth;
    for (int i = 0; i < kSlotWidth; ++i)
        slot[i] = i < static_cast<int>(e.minorToMajor.size()) ? static_cast<float>(e.minorToMajor[static_cast<size_t>(i)]) : -1.0f;
}

std::vector<int32_t> applyLayoutToNodes(const TpuGraph& g, std::vector<float>& row,
                                        const std::vector<int32_t>& nodes, LayoutSlot slot,
                                        const std::vector<int>& minorToMajor) {
    std::vector<int32_t> written;
    for (int32_t node : nodes) {
        const LayoutEdit edit{node, slot, minorToMajor};
        if (!layoutEditProblem(g, edit).empty()) continue;  // another rank, or an unusable slot
        applyLayoutEdit(g, row, edit);
        written.push_back(node);
    }
    return written;
}

std::vector<int32_t> nodesAlike(const TpuGraph& g, int32_t node) {
    if (node < 0 || node >= g.numNodes() || g.configurableIndex(node) < 0) return {};
    const std::vector<int64_t> shape = slotTensor(g, node, LayoutSlot::Output).dims;
    std::vector<int32_t> alike{node};
    for (int32_t other : g.configurableNodes())
        if (other != node && g.opcode(other) == g.opcode(node) &&
            slotTensor(g, other, LayoutSlot::Output).dims == shape)
            alike.push_back(other);
    return alike;
}

std::vector<int> layoutOf(const TpuGraph& g, const std::vector<float>& row, int32_t node, LayoutSlot slot) {
    const int k = g.configurableIndex(node);
    if (k < 0 || !layoutEditingUnavailable(g).empty()) return {};
    const float* f = row.data() + static_cast<size_t>(k) * schema::kLayoutConfigWidth +
                     static_cast<size_t>(slot) * kSlotWidth;
    std::vector<int> out;
    for (int i = 0; i < kSlotWidth && f[i] >= 0; ++i) out.push_back(static_cast<int>(f[i]));
    return out;
}

std::string rowAsEdits(const TpuGraph& g, const std::vector<float>& row) {
    std::string out;
    const auto add = [&out](const std::string& edit) { out += (out.empty() ? "" : " ") + edit; };
    if (g.isLayout()) {
        for (int32_t node : g.configurableNodes())
            for (LayoutSlot slot : {LayoutSlot::Output, LayoutSlot::Input, LayoutSlot::Kernel}) {
                const std::vector<int> layout = layoutOf(g, row, node, slot);
                if (!layout.empty()) add(LayoutEdit{node, slot, layout}.text());
            }
        return out;
    }
    for (size_t col = 0; col < row.size() && col < static_cast<size_t>(schema::kTileConfigWidth);
         ++col)
        if (isTileBoundPosition(static_cast<int64_t>(col)) && row[col] != 0.0f)
            add(TileEdit{static_cast<int>(col), row[col]}.text());
    return out;
}

bool isTileBoundPosition(int64_t column) {
    return static_cast<size_t>(column) % kTileGroupWidth < kTileBoundsPerGroup;
}

bool isTileBoundColumn(const TpuGraph& g, int64_t column) {
    return g.configFeatureWidth() != schema::kTileConfigWidth || isTileBoundPosition(column);
}

int64_t differingTileBounds(const TpuGraph& g, const float* a, const float* b) {
    int64_t n = 0;
    for (int64_t i = 0; i < g.configFeatureWidth(); ++i)
        n += a[i] != b[i] && isTileBoundColumn(g, i);
    return n;
}

std::string TileEdit::text() const {
    std::ostringstream s;
    s << schema::tileConfigFeatureNames()[static_cast<size_t>(column)] << "=" << value;
    return s.str();
}

TileEdit parseTileEdit(const TpuGraph& g, const std::string& text) {
    if (g.isLayout()) fail(text, "tile edits need a tile file");
    if (g.configFeatureWidth() != schema::kTileConfigWidth)
        fail(text, "config_feat has " + std::to_string(g.configFeatureWidth()) +
                       " columns (a trimmed copy): which bound each column holds is unknown (expected 24)");
    const size_t eq = text.find('=');
    if (eq == std::string::npos) fail(text, "expected NAME=VALUE, e.g. output_bounds_0=128");
    const std::string name = text.substr(0, eq);
    const int column = schema::tileConfigColumn(name);
    if (column < 0 || !isTileBoundPosition(column))
        fail(text, "expected kernel_, output_ or input_bounds_0..5, got '" + name + "' (sums and products are derived)");
    TileEdit e;
    e.column = column;
    const std::string value = text.substr(eq + 1);
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !std::isfinite(v) || v < 0 || v != std::floor(v) || v > 1e9)
        fail(text, "expected a whole non-negative tile size, got '" + value + "'");
    e.value = static_cast<float>(v);
    return e;
}

void checkEachBoundOnce(const std::vector<TileEdit>& edits) {
    for (size_t i = 0; i < edits.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (edits[j].column == edits[i].column)
                throw FormatError(
                    "edits '" + edits[j].text() + "' and '" + edits[i].text() + "' both set " +
                    schema::tileConfigFeatureNames()[static_cast<size_t>(edits[i].column)] +
                    ": give each bound once");
}

void checkTileEditFits(const synth::TpuCostModel& tpu, const TileEdit& e) {
    const int64_t dimension = tpu.tileBoundDimension(e.column);
    if (dimension == 0 || e.value == 0.0f ||
        (dimension > 0 && e.value <= static_cast<float>(dimension)))
        return;
    const std::string name = schema::tileConfigFeatureNames()[static_cast<size_t>(e.column)];
    const std::string group = name.substr(0, name.find('_'));
    const auto t = tpu.tileTensors();
    const std::vector<int64_t>& dims = group == "output"  ? t.output
                                       : group == "input" ? t.input
                                                          : t.kernel;
    std::string shape;
    for (int64_t d : dims) shape += (shape.empty() ? "" : ",") + std::to_string(d);
    const std::string tensor = "the kernel's " + group + " [" + shape + "]";
    const int dim = e.column % static_cast<int>(kTileGroupWidth);
    if (dims.empty()) fail(e.text(), "the kernel has no " + group + " tensor to tile: expected 0");
    if (dimension < 0)
        fail(e.text(), tensor + " has no dimension " + std::to_string(dim) +
                           ": expected 0 (a bound there changes nothing)");
    fail(e.text(), "dimension " + std::to_string(dim) + " of " + tensor + " is " +
                       std::to_string(dimension) + ": expected 1.." + std::to_string(dimension) +
                       ", or 0 for the whole dimension");
}

TileEdit wholeAsDimension(const synth::TpuCostModel& tpu, TileEdit edit) {
    const int64_t whole = edit.value == 0 ? tpu.tileBoundSize(edit.column, 0) : -1;
    if (whole > 0) edit.value = static_cast<float>(whole);
    return edit;
}

void applyTileEdit(std::vector<float>& row, const TileEdit& e) {
    row[static_cast<size_t>(e.column)] = e.value;
    const size_t group = static_cast<size_t>(e.column / kTileGroupWidth) * kTileGroupWidth;
    double sum = 0, product = 1;
    bool any = false;
    for (size_t i = 0; i < kTileBoundsPerGroup; ++i) {
        const double b = row[group + i];
        sum += b;
        if (b > 0) {
            product *= b;
            any = true;
        }
    }
    row[group + kTileBoundsPerGroup] = static_cast<float>(sum);
    row[group + kTileBoundsPerGroup + 1] = any ? static_cast<float>(product) : 0.0f;
}

}  // namespace tpg::whatif
