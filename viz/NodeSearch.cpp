#include "NodeSearch.h"

#include "ViewGraph.h"

namespace tpg {

namespace {

constexpr int64_t kCancelCheckNodes = 4096;  // nodes between two cancellation checks

}  // namespace

NodeQuery parseNodeQuery(const QString& text) {
    NodeQuery q;
    const QString t = text.trimmed();
    if (t.isEmpty()) return q;
    static const QRegularExpression id(QStringLiteral("^#?(\\d+)$"));
    if (const auto m = id.match(t); m.hasMatch()) {
        bool ok = false;
        q.id = m.captured(1).toLongLong(&ok);
        q.kind = ok ? NodeQuery::Kind::Id : NodeQuery::Kind::Substring;
        q.text = t;
        return q;
    }
    if (t.size() >= 2 && t.startsWith(QLatin1Char('/')) && t.endsWith(QLatin1Char('/'))) {
        q.kind = NodeQuery::Kind::Regex;
        q.text = t.mid(1, t.size() - 2);
        q.regex = QRegularExpression(q.text, QRegularExpression::CaseInsensitiveOption);
        if (!q.regex.isValid())
            q.error = QObject::tr("Not a regular expression: %1 (at character %2)")
                          .arg(q.regex.errorString())
                          .arg(q.regex.patternErrorOffset());
        return q;
    }
    q.kind = NodeQuery::Kind::Substring;
    q.text = t;
    return q;
}

QString nodeSearchText(const TpuGraph& g, int32_t node) {
    return nodeTitle(g, node) + QLatin1Char(' ') + nodeSubtitle(g, node);
}

NodeMatches findNodes(const TpuGraph& g, const NodeQuery& query, size_t maxListed,
                      const std::function<bool()>& keepGoing) {
    NodeMatches out;
    out.query = query.kind == NodeQuery::Kind::Regex ? QLatin1Char('/') + query.text + QLatin1Char('/') : query.text;
    out.error = query.error;
    if (g.isNull() || query.kind == NodeQuery::Kind::Empty || !query.error.isEmpty()) return out;
    if (query.kind == NodeQuery::Kind::Id) {
        if (query.id >= 0 && query.id < g.numNodes()) {
            out.nodes.push_back(static_cast<int32_t>(query.id));
            out.total = 1;
        } else {
            out.error = QObject::tr("No node %1: the graph has %2 nodes").arg(query.id).arg(g.numNodes());
        }
        return out;
    }
    for (int64_t n = 0; n < g.numNodes(); ++n) {
        if (n % kCancelCheckNodes == 0 && keepGoing && !keepGoing()) break;
        const QString text = nodeSearchText(g, static_cast<int32_t>(n));
        const bool hit = query.kind == NodeQuery::Kind::Regex ? query.regex.match(text).hasMatch()
                                                              : text.contains(query.text, Qt::CaseInsensitive);
        if (!hit) continue;
        ++out.total;
        if (out.nodes.size() < maxListed) out.nodes.push_back(static_cast<int32_t>(n));
    }
    return out;
}

}  // namespace tpg
