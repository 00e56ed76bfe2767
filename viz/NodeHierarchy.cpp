#include "NodeHierarchy.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "CountText.h"
#include "ViewGraph.h"
#include "VizLimits.h"

namespace tpg {

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser: a cheap, well-spread hash step
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

}  // namespace

NodeHierarchy::NodeHierarchy(const TpuGraph& g) : m_blockOfNode(static_cast<size_t>(g.numNodes()), 0) {
    NodeGroup whole;
    whole.end = g.numNodes();
    whole.title = QStringLiteral("program");
    add(whole);
    const auto comps = computations(g);
    if (comps.size() > 1) {
        for (const ComputationRange& c : comps) {
            NodeGroup cg;
            cg.parent = root();
            cg.first = c.first;
            cg.end = c.end;
            cg.computation = c.index;
            cg.title = QStringLiteral("computation %1").arg(c.index);
            const int id = add(cg);
            m_groups[0].children.push_back(id);
            if (cg.size() > vizlimits::kMaxBlockNodes) splitIntoBlocks(id, g);
        }
        gatherBlocks(root());
    } else {
        m_groups[0].computation = comps.empty() ? 0 : comps.front().index;
        if (whole.size() > vizlimits::kMaxBlockNodes) splitIntoBlocks(root(), g);
    }
    std::vector<int64_t> configurableBefore(static_cast<size_t>(g.numNodes()) + 1, 0);
    for (int64_t n = 0; n < g.numNodes(); ++n)
        configurableBefore[static_cast<size_t>(n) + 1] =
            configurableBefore[static_cast<size_t>(n)] + (g.isLayout() && g.isConfigurable(n) ? 1 : 0);
    for (int id = 0; id < size(); ++id) {
        NodeGroup& grp = m_groups[static_cast<size_t>(id)];
        grp.configurable = configurableBefore[static_cast<size_t>(grp.end)] - configurableBefore[static_cast<size_t>(grp.first)];
        if (grp.isBlock())
            std::fill(m_blockOfNode.begin() + grp.first, m_blockOfNode.begin() + grp.end, id);
    }
    hashBlocks(g);
}

int NodeHierarchy::add(NodeGroup g) {
    m_groups.push_back(std::move(g));
    return size() - 1;
}

// Consecutive nodes, cut before each configurable node (a layer starts there), packed into
// blocks of kTargetBlockNodes to kMaxBlockNodes nodes.
void NodeHierarchy::splitIntoBlocks(int parent, const TpuGraph& g) {
    const NodeGroup p = group(parent);
    int64_t start = p.first;
    int number = 0;
    auto close = [&](int64_t end) {
        NodeGroup b;
        b.parent = parent;
        b.first = start;
        b.end = end;
        b.computation = p.computation >= 0 ? p.computation : g.computationOf(start);
        b.title = QStringLiteral("block %1").arg(++number);
        const int id = add(b);
        m_groups[static_cast<size_t>(parent)].children.push_back(id);
        start = end;
    };
    for (int64_t n = p.first + 1; n < p.end; ++n) {
        const int64_t length = n - start;
        const bool layerStarts = g.isLayout() && g.isConfigurable(n);
        if (length >= vizlimits::kMaxBlockNodes || (layerStarts && length >= vizlimits::kTargetBlockNodes)) close(n);
    }
    close(p.end);
    gatherBlocks(parent);
}

// More than kMaxGroupChildren children: consecutive ones go into ranges, level by level, about
// sqrt(n) of them (90 computations: 10 ranges of 9, not 2 of 45), so each level says something.
void NodeHierarchy::gatherBlocks(int parent) {
    std::vector<int> children = group(parent).children;
    while (children.size() > static_cast<size_t>(vizlimits::kMaxGroupChildren)) {
        const auto balanced = static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(children.size()))));
        const size_t ranges = std::max(
            (children.size() + vizlimits::kMaxGroupChildren - 1) / vizlimits::kMaxGroupChildren, balanced);
        const size_t per = (children.size() + ranges - 1) / ranges;
        std::vector<int> gathered;
        for (size_t i = 0; i < children.size(); i += per) {
            const size_t last = std::min(children.size(), i + per) - 1;
            NodeGroup r;
            r.parent = parent;
            r.first = group(children[i]).first;
            r.end = group(children[last]).end;
            r.computation = group(children[i]).computation;
            r.title = QStringLiteral("%1 – %2").arg(group(children[i]).title, group(children[last]).title);
            r.children.assign(children.begin() + static_cast<std::ptrdiff_t>(i),
                              children.begin() + static_cast<std::ptrdiff_t>(last + 1));
            const int id = add(r);
            for (int c : group(id).children) m_groups[static_cast<size_t>(c)].parent = id;
            gathered.push_back(id);
        }
        children = gathered;
    }
    m_groups[static_cast<size_t>(parent)].children = children;
}

void NodeHierarchy::hashBlocks(const TpuGraph& g) {
    std::unordered_map<uint64_t, int> count;
    for (NodeGroup& b : m_groups) {
        if (!b.isBlock()) continue;
        uint64_t h = mix(static_cast<uint64_t>(b.size()));
        for (int64_t n = b.first; n < b.end; ++n) {
            h = mix(h ^ static_cast<uint64_t>(g.opcode(n)));
            for (int32_t p : g.producers(n))
                h = mix(h ^ (p >= b.first && p < n ? static_cast<uint64_t>(n - p) << 1 : 1u));
        }
        b.structure = h;
        ++count[h];
    }
    for (NodeGroup& b : m_groups)
        if (b.isBlock()) b.alike = count[b.structure];
}

int NodeHierarchy::blockOf(int32_t node) const { return m_blockOfNode[static_cast<size_t>(node)]; }

std::vector<int> NodeHierarchy::pathTo(int32_t node) const {
    std::vector<int> path;
    for (int id = blockOf(node); id >= 0; id = group(id).parent) path.push_back(id);
    std::reverse(path.begin(), path.end());
    return path;
}

QString NodeHierarchy::describe(int id) const {
    const NodeGroup& g = group(id);
    QString text = countOf(g.size(), QStringLiteral("node"), QStringLiteral("nodes"));
    if (g.configurable) text += QStringLiteral(" · %1 configurable").arg(countText(g.configurable));
    if (g.isBlock() && g.alike > 1) text += QStringLiteral(" · ×%1 alike").arg(g.alike);
    return text;
}

}  // namespace tpg
