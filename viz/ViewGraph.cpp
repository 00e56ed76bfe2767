#include "ViewGraph.h"

#include <QRegularExpression>
#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "CountText.h"
#include "NodeHierarchy.h"
#include "TensorText.h"

namespace tpg {

namespace {

using vizlimits::kMaxFanOut;
using vizlimits::kMaxLayoutNodes;

// Label metrics: a box fits its longer line, estimated per font (the title is bold 8.5 pt, the
// shape monospace 7.5 pt: generous per-character widths, so a label is elided only when it is
// longer than the widest box). dot only needs the box size; the item draws the text itself.
constexpr double kTitleCharWidth = 7.6;
constexpr double kSubtitleCharWidth = 6.4;
constexpr double kNodePadding = 22;
constexpr double kMinNodeWidth = 80;
constexpr double kMaxNodeWidth = 320;
constexpr double kNodeHeight = 38;
constexpr double kSummaryHeight = 24;
constexpr double kComputationHeight = 44;

void sizeItem(ViewItem& it) {
    const double text = std::max(kTitleCharWidth * static_cast<double>(it.title.size()),
                                 kSubtitleCharWidth * static_cast<double>(it.subtitle.size()));
    it.width = std::clamp(kNodePadding + text, kMinNodeWidth, kMaxNodeWidth);
    switch (it.kind) {
        case ViewItem::Kind::Node:
            it.height = kNodeHeight;
            break;
        case ViewItem::Kind::Computation:
        case ViewItem::Kind::Group:
            it.height = kComputationHeight;
            break;
        default:
            it.height = kSummaryHeight;
            break;
    }
}

class Builder {
public:
    Builder(const TpuGraph& g, const ViewSpec& spec) : m_g(g) { m_v.spec = spec; }

    int addNode(int32_t node, bool context) {
        const int existing = m_v.itemOf(node);
        if (existing >= 0) return existing;
        ViewItem it;
        it.kind = ViewItem::Kind::Node;
        it.node = node;
        it.context = context;
        it.title = nodeTitle(m_g, node);
        it.subtitle = nodeSubtitle(m_g, node);
        sizeItem(it);
        m_v.items.push_back(it);
        const int index = static_cast<int>(m_v.items.size()) - 1;
        m_v.nodeItem[node] = index;
        return index;
    }

    int addSummary(ViewItem::Kind kind, int32_t anchor, int64_t count) {
        ViewItem it;
        it.kind = kind;
        it.node = anchor;
        it.count = count;
        it.title =
            QLatin1Char('+') +
            (kind == ViewItem::Kind::MoreUsers
                 ? countOf(count, QStringLiteral("more user"), QStringLiteral("more users"))
                 : countOf(count, QStringLiteral("more operand"), QStringLiteral("more operands")));
        sizeItem(it);
        m_v.items.push_back(it);
        return static_cast<int>(m_v.items.size()) - 1;
    }

    void addEdge(int producer, int consumer, int64_t collapsed = 0, int64_t count = 1) {
        m_v.edges.push_back({producer, consumer, count, collapsed});
    }

    // Edges among the drawn nodes, fan-out and fan-in capped: beyond kMaxFanOut users (or
    // operands) of one node, the rest go into one "+N more" item. Neighbours outside the view
    // are counted on the node (hiddenUsers / hiddenOperands).
    void connectDrawnNodes() {
        const size_t nodeItems = m_v.items.size();
        std::vector<int> drawnOperands(nodeItems, 0);
        std::vector<int64_t> droppedOperands(nodeItems, 0);
        for (size_t i = 0; i < nodeItems; ++i) {
            if (m_v.items[i].kind != ViewItem::Kind::Node) continue;
            const int32_t node = m_v.items[i].node;
            int drawn = 0;
            int64_t over = 0;
            for (int32_t u : m_g.consumers(node)) {
                const int ui = m_v.itemOf(u);
                if (ui < 0) {
                    ++m_v.items[i].hiddenUsers;
                } else if (drawnOperands[static_cast<size_t>(ui)] >= kMaxFanOut) {
                    ++droppedOperands[static_cast<size_t>(ui)];  // summarised on the consumer
                } else if (drawn >= kMaxFanOut) {
                    ++over;
                } else {
                    ++drawn;
                    ++drawnOperands[static_cast<size_t>(ui)];
                    addEdge(static_cast<int>(i), ui);
                }
            }
            if (over > 0)
                addEdge(static_cast<int>(i), addSummary(ViewItem::Kind::MoreUsers, node, over));
        }
        for (size_t i = 0; i < nodeItems; ++i) {
            if (m_v.items[i].kind != ViewItem::Kind::Node) continue;
            const int32_t node = m_v.items[i].node;
            for (int32_t p : m_g.producers(node))
                if (m_v.itemOf(p) < 0) ++m_v.items[i].hiddenOperands;
            if (droppedOperands[i] > 0)
                addEdge(addSummary(ViewItem::Kind::MoreOperands, node, droppedOperands[i]),
                        static_cast<int>(i));
        }
    }

    void truncate(int64_t scope, int64_t kept, const QString& what) {
        m_v.scopeNodes = scope;
        if (kept < scope) {
            m_v.truncated = true;
            m_v.note =
                QStringLiteral(
                    "Showing %1 of %2 %3 (layout limit %4). Use a computation, "
                    "neighbourhood or skeleton view for the rest.")
                    .arg(countText(kept), countText(scope), what, countText(kMaxLayoutNodes));
        }
    }

    ViewGraph& view() { return m_v; }

private:
    const TpuGraph& m_g;
    ViewGraph m_v;
};

ViewGraph wholeView(const TpuGraph& g, const ViewSpec& spec) {
    Builder b(g, spec);
    const int64_t n = g.numNodes();
    const int64_t kept = std::min<int64_t>(n, kMaxLayoutNodes);
    for (int64_t i = 0; i < kept; ++i) b.addNode(static_cast<int32_t>(i), false);
    b.truncate(n, kept, QStringLiteral("nodes, in topological order"));
    b.connectDrawnNodes();
    return std::move(b.view());
}

ViewGraph computationsView(const TpuGraph& g, const ViewSpec& spec) {
    Builder b(g, spec);
    ViewGraph& v = b.view();
    const auto comps = computations(g);
    v.scopeNodes = g.numNodes();
    std::map<int, int> itemOfComputation;
    for (const auto& c : comps) {
        if (static_cast<int>(v.items.size()) >= vizlimits::kMaxComputationBoxes) {
            v.truncated = true;
            v.note = QStringLiteral("Showing %1 of %2 computations.")
                         .arg(countText(vizlimits::kMaxComputationBoxes),
                              countText(static_cast<int64_t>(comps.size())));
            break;
        }
        ViewItem it;
        it.kind = ViewItem::Kind::Computation;
        it.computation = c.index;
        it.count = c.end - c.first;
        for (int64_t n = c.first; n < c.end; ++n)
            if (g.isLayout() && g.isConfigurable(n)) ++it.configurable;
        it.title = QStringLiteral("computation %1").arg(c.index);
        it.subtitle = countOf(it.count, QStringLiteral("node"), QStringLiteral("nodes"));
        if (it.configurable)
            it.subtitle += QStringLiteral(" · %1 configurable").arg(countText(it.configurable));
        it.node = static_cast<int32_t>(c.first);
        sizeItem(it);
        v.items.push_back(it);
        itemOfComputation[c.index] = static_cast<int>(v.items.size()) - 1;
    }
    std::map<std::pair<int, int>, int64_t> merged;  // (producer item, consumer item) -> edges
    for (const auto& e : g.edges()) {
        const int cu = g.computationOf(e[0]);
        const int pv = g.computationOf(e[1]);
        if (cu == pv) continue;
        auto a = itemOfComputation.find(pv), c = itemOfComputation.find(cu);
        if (a == itemOfComputation.end() || c == itemOfComputation.end()) continue;
        ++merged[{a->second, c->second}];
    }
    for (const auto& [pair, count] : merged) b.addEdge(pair.first, pair.second, 0, count);
    return std::move(v);
}

ViewGraph computationView(const TpuGraph& g, const ViewSpec& spec) {
    Builder b(g, spec);
    const auto comps = computations(g);
    auto it = std::find_if(comps.begin(), comps.end(),
                           [&](const ComputationRange& c) { return c.index == spec.computation; });
    if (it == comps.end()) {
        b.view().note = QStringLiteral("This graph has no computation %1.").arg(spec.computation);
        return std::move(b.view());
    }
    const int64_t scope = it->end - it->first;
    const int64_t kept = std::min<int64_t>(scope, kMaxLayoutNodes);
    for (int64_t n = it->first; n < it->first + kept; ++n)
        b.addNode(static_cast<int32_t>(n), false);
    // Outside operands and users as context, capped per node like any fan-out.
    const int64_t inner = static_cast<int64_t>(b.view().items.size());
    for (int64_t i = 0; i < inner; ++i) {
        const int32_t node = b.view().items[static_cast<size_t>(i)].node;
        int added = 0;
        for (int32_t p : g.producers(node)) {
            if (g.computationOf(p) == spec.computation || added >= kMaxFanOut) continue;
            if (static_cast<int64_t>(b.view().items.size()) >=
                kMaxLayoutNodes + kMaxLayoutNodes / 4)
                break;
            b.addNode(p, true);
            ++added;
        }
        added = 0;
        for (int32_t u : g.consumers(node)) {
            if (g.computationOf(u) == spec.computation || added >= kMaxFanOut) continue;
            if (static_cast<int64_t>(b.view().items.size()) >=
                kMaxLayoutNodes + kMaxLayoutNodes / 4)
                break;
            b.addNode(u, true);
            ++added;
        }
    }
    b.truncate(scope, kept, QStringLiteral("nodes of computation %1").arg(spec.computation));
    b.connectDrawnNodes();
    return std::move(b.view());
}

ViewGraph neighbourhoodView(const TpuGraph& g, const ViewSpec& spec) {
    Builder b(g, spec);
    if (spec.center < 0 || spec.center >= g.numNodes()) {
        b.view().note = QStringLiteral("Node %1 is not in this graph.").arg(spec.center);
        return std::move(b.view());
    }
    // Breadth-first in both directions; each node expands at most kMaxFanOut users and operands,
    // so a hub does not pull in thousands of nodes.
    std::deque<std::pair<int32_t, int>> queue{{spec.center, 0}};
    b.addNode(spec.center, false);
    bool cut = false;
    while (!queue.empty()) {
        const auto [node, depth] = queue.front();
        queue.pop_front();
        if (depth >= spec.hops) continue;
        for (const auto& side : {g.producers(node), g.consumers(node)}) {
            int expanded = 0;
            for (int32_t other : side) {
                if (b.view().itemOf(other) >= 0) continue;
                if (expanded >= kMaxFanOut) break;
                if (static_cast<int64_t>(b.view().items.size()) >= kMaxLayoutNodes) {
                    cut = true;
                    break;
                }
                b.addNode(other, false);
                ++expanded;
                queue.emplace_back(other, depth + 1);
            }
        }
    }
    b.view().scopeNodes = static_cast<int64_t>(b.view().items.size());
    if (cut) {
        b.view().truncated = true;
        b.view().note =
            QStringLiteral("Neighbourhood cut at %1 nodes (layout limit); use fewer hops.")
                .arg(countText(kMaxLayoutNodes));
    }
    b.connectDrawnNodes();
    return std::move(b.view());
}

ViewGraph skeletonView(const TpuGraph& g, const ViewSpec& spec) {
    Builder b(g, spec);
    ViewGraph& v = b.view();
    if (!g.isLayout() || g.numConfigurable() == 0) {
        v.note =
            g.isLayout()
                ? QStringLiteral("This graph has no configurable nodes.")
                : QStringLiteral("Tile files configure the whole kernel: no configurable nodes.");
        return std::move(v);
    }
    std::vector<int32_t> configurable(g.configurableNodes().begin(), g.configurableNodes().end());
    std::sort(configurable.begin(), configurable.end());
    const int64_t scope = static_cast<int64_t>(configurable.size());
    const int64_t kept = std::min<int64_t>(scope, kMaxLayoutNodes);
    configurable.resize(static_cast<size_t>(kept));
    for (int32_t c : configurable) b.addNode(c, false);
    // For each configurable node: walk its producers through non-configurable nodes; the first
    // configurable node on each path becomes a skeleton edge carrying the path's length.
    std::vector<int32_t> stamp(static_cast<size_t>(g.numNodes()), -1);
    std::vector<int32_t> depth(static_cast<size_t>(g.numNodes()), 0);
    std::vector<int> fanIn(v.items.size(), 0), fanOut(v.items.size(), 0);
    std::vector<int64_t> overUsers(v.items.size(), 0);
    for (size_t ci = 0; ci < configurable.size(); ++ci) {
        const int32_t c = configurable[ci];
        std::deque<int32_t> queue{c};
        stamp[static_cast<size_t>(c)] = static_cast<int32_t>(ci);
        depth[static_cast<size_t>(c)] = 0;
        int walked = 0;
        while (!queue.empty() && walked < vizlimits::kMaxSkeletonWalk) {
            const int32_t node = queue.front();
            queue.pop_front();
            ++walked;
            for (int32_t p : g.producers(node)) {
                if (stamp[static_cast<size_t>(p)] == static_cast<int32_t>(ci)) continue;
                stamp[static_cast<size_t>(p)] = static_cast<int32_t>(ci);
                depth[static_cast<size_t>(p)] = depth[static_cast<size_t>(node)] + 1;
                const int pi = v.itemOf(p);
                if (pi >= 0) {
                    const int consumerItem = static_cast<int>(ci);
                    if (fanOut[static_cast<size_t>(pi)] < kMaxFanOut && fanIn[ci] < kMaxFanOut) {
                        ++fanOut[static_cast<size_t>(pi)];
                        ++fanIn[ci];
                        b.addEdge(pi, consumerItem, depth[static_cast<size_t>(p)] - 1);
                    } else {
                        ++overUsers[static_cast<size_t>(pi)];
                    }
                } else if (!g.isConfigurable(p)) {
                    queue.push_back(p);
                }
            }
        }
    }
    for (size_t i = 0; i < overUsers.size(); ++i)
        if (overUsers[i] > 0)
            b.addEdge(static_cast<int>(i),
                      b.addSummary(ViewItem::Kind::MoreUsers, v.items[i].node, overUsers[i]));
    b.truncate(scope, kept, QStringLiteral("configurable nodes"));
    return std::move(v);
}

// The groups of `h` shown under the open set: closed ones as boxes, open blocks as their nodes.
class GroupsWalk {
public:
    GroupsWalk(const NodeHierarchy& h, const std::set<int>& open) : m_h(h), m_open(open) {}

    // Calls box(id) for each closed group shown and block(id) for each open block, in id order.
    template <typename Box, typename Block>
    void walk(int id, Box&& box, Block&& block) const {
        for (int child : m_h.group(id).children) {
            if (!m_open.count(child))
                box(child);
            else if (m_h.group(child).isBlock())
                block(child);
            else
                walk(child, box, block);
        }
    }
    int64_t itemCount() const {
        int64_t n = 0;
        if (m_h.group(NodeHierarchy::root()).isBlock()) return m_h.group(NodeHierarchy::root()).size();
        walk(NodeHierarchy::root(), [&](int) { ++n; }, [&](int id) { n += m_h.group(id).size(); });
        return n;
    }

private:
    const NodeHierarchy& m_h;
    const std::set<int>& m_open;
};

// The open groups that fit the item budget: the latest opened win; a group counts only with its
// ancestors open.
std::vector<int> openWithinBudget(const NodeHierarchy& h, std::vector<int> open) {
    open.erase(std::remove_if(open.begin(), open.end(), [&](int id) { return id <= 0 || id >= h.size(); }),
               open.end());
    while (true) {
        std::set<int> set(open.begin(), open.end());
        set.insert(NodeHierarchy::root());
        if (open.empty() || GroupsWalk(h, set).itemCount() <= vizlimits::kMaxGroupViewItems) return open;
        // Close the group opened longest ago that is not an ancestor of the latest one.
        std::set<int> keep;
        for (int id = open.back(); id >= 0; id = h.group(id).parent) keep.insert(id);
        auto victim = std::find_if(open.begin(), open.end(), [&](int id) { return !keep.count(id); });
        if (victim == open.end()) victim = open.begin();
        open.erase(victim);
    }
}

ViewGraph groupsView(const TpuGraph& g, const ViewSpec& spec) {
    Builder b(g, spec);
    ViewGraph& v = b.view();
    const NodeHierarchy h(g);
    v.open = openWithinBudget(h, spec.open);
    std::set<int> open(v.open.begin(), v.open.end());
    open.insert(NodeHierarchy::root());
    std::vector<int> itemOf(static_cast<size_t>(g.numNodes()), -1);
    auto box = [&](int id) {
        const NodeGroup& grp = h.group(id);
        ViewItem it;
        it.kind = ViewItem::Kind::Group;
        it.group = id;
        it.first = grp.first;
        it.count = grp.size();
        it.configurable = grp.configurable;
        it.computation = grp.computation;
        it.title = grp.title;
        it.subtitle = h.describe(id);
        sizeItem(it);
        v.items.push_back(it);
        const int index = static_cast<int>(v.items.size()) - 1;
        std::fill(itemOf.begin() + grp.first, itemOf.begin() + grp.end, index);
    };
    auto block = [&](int id) {
        for (int64_t n = h.group(id).first; n < h.group(id).end; ++n)
            itemOf[static_cast<size_t>(n)] = b.addNode(static_cast<int32_t>(n), false);
    };
    if (h.group(NodeHierarchy::root()).isBlock())
        block(NodeHierarchy::root());
    else
        GroupsWalk(h, open).walk(NodeHierarchy::root(), box, block);
    std::map<std::pair<int, int>, int64_t> merged;  // (producer item, consumer item) -> edges
    for (const auto& e : g.edges()) {
        const int a = itemOf[static_cast<size_t>(e[1])], c = itemOf[static_cast<size_t>(e[0])];
        if (a != c) ++merged[{a, c}];
    }
    for (const auto& [pair, count] : merged) b.addEdge(pair.first, pair.second, 0, count);
    v.scopeNodes = g.numNodes();
    const auto closedForBudget = static_cast<int64_t>(spec.open.size() - v.open.size());
    if (closedForBudget > 0)
        v.note =
            QStringLiteral(
                "%1 opened earlier %2 closed to keep this drawing within %3 items; "
                "every node is drawn or inside a box (double-click a box to open it).")
                .arg(countOf(closedForBudget, QStringLiteral("group"), QStringLiteral("groups")),
                     closedForBudget == 1 ? QStringLiteral("was") : QStringLiteral("were"))
                .arg(vizlimits::kMaxGroupViewItems);
    return std::move(v);
}

}  // namespace

QString ViewSpec::key() const {
    switch (mode) {
        case ViewMode::Whole:
            return QStringLiteral("whole");
        case ViewMode::Computations:
            return QStringLiteral("computations");
        case ViewMode::Computation:
            return QStringLiteral("comp:%1").arg(computation);
        case ViewMode::Neighbourhood:
            return QStringLiteral("hood:%1:%2").arg(center).arg(hops);
        case ViewMode::Skeleton:
            return QStringLiteral("skeleton");
        case ViewMode::Groups: {
            QStringList ids;
            for (int id : open) ids << QString::number(id);
            return QStringLiteral("groups:") + ids.join(QLatin1Char(','));
        }
    }
    return {};
}

QString ViewSpec::describe() const {
    switch (mode) {
        case ViewMode::Whole:
            return QStringLiteral("Whole graph");
        case ViewMode::Computations:
            return QStringLiteral("Computations");
        case ViewMode::Computation:
            return QStringLiteral("Computation %1").arg(computation);
        case ViewMode::Neighbourhood:
            return QStringLiteral("Neighbourhood of node %1 (%2 hops)").arg(center).arg(hops);
        case ViewMode::Skeleton:
            return QStringLiteral("Configurable skeleton");
        case ViewMode::Groups:
            return open.empty()
                       ? QStringLiteral("Program")
                       : QStringLiteral("Program (%1 open)")
                             .arg(countOf(static_cast<int64_t>(open.size()),
                                          QStringLiteral("group"), QStringLiteral("groups")));
    }
    return {};
}

QString ViewSpec::fileStem() const {
    // The view as people read it, in file-name form; a program view without its count of open
    // groups, so the name stays short however many are open (its key lists them all).
    ViewSpec named = *this;
    named.open.clear();
    static const QRegularExpression separators(QStringLiteral("[^a-z0-9]+"));
    QString stem = named.describe().toLower().replace(separators, QStringLiteral("-"));
    while (stem.endsWith(QLatin1Char('-'))) stem.chop(1);
    return stem;
}

int64_t ViewGraph::nodeCount() const {
    return std::count_if(items.begin(), items.end(),
                         [](const ViewItem& i) { return i.kind == ViewItem::Kind::Node; });
}

std::vector<ComputationRange> computations(const TpuGraph& g) {
    std::vector<ComputationRange> out;
    const auto& splits = g.nodeSplits();
    int64_t first = 0;
    for (size_t i = 0; i <= splits.size(); ++i) {
        const int64_t end = i < splits.size() ? splits[i] : g.numNodes();
        if (end > first) out.push_back({static_cast<int>(i), first, end});
        first = std::max(first, end);
    }
    return out;
}

ViewSpec defaultViewSpec(const TpuGraph& g) {
    ViewSpec s;
    if (g.numNodes() <= vizlimits::kWholeGraphMaxNodes) return s;
    s.mode = ViewMode::Groups;
    // A top level of a few groups (say, two tiny computations and the program) says little: the
    // largest opens, until a level shows enough to read at once.
    const NodeHierarchy h(g);
    std::vector<int> level = h.group(NodeHierarchy::root()).children;
    while (!level.empty() && static_cast<int>(level.size()) < vizlimits::kMinWrappedGroups) {
        const int largest = *std::max_element(level.begin(), level.end(),
                                              [&](int a, int b) { return h.group(a).size() < h.group(b).size(); });
        if (h.group(largest).isBlock()) break;
        s.open.push_back(largest);
        level.erase(std::find(level.begin(), level.end(), largest));
        level.insert(level.end(), h.group(largest).children.begin(), h.group(largest).children.end());
    }
    return s;
}

ViewGraph buildViewGraph(const TpuGraph& g, const ViewSpec& spec) {
    switch (spec.mode) {
        case ViewMode::Whole:
            return wholeView(g, spec);
        case ViewMode::Computations:
            return computationsView(g, spec);
        case ViewMode::Computation:
            return computationView(g, spec);
        case ViewMode::Neighbourhood:
            return neighbourhoodView(g, spec);
        case ViewMode::Skeleton:
            return skeletonView(g, spec);
        case ViewMode::Groups:
            return groupsView(g, spec);
    }
    return {};
}

QString nodeTitle(const TpuGraph& g, int32_t node) {
    return QStringLiteral("#%1 %2").arg(node).arg(QString::fromStdString(g.opcodeName(node)));
}

QString nodeSubtitle(const TpuGraph& g, int32_t node) {
    return tensorString(g.nodeFeatures(node), g.nodeFeatureWidth());
}

}  // namespace tpg
