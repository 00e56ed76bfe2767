#pragma once

#include <QMetaType>
#include <QRegularExpression>
#include <QString>
#include <cstdint>
#include <functional>
#include <vector>

#include "graph/TpuGraph.h"

namespace tpg {

// A search over every node of a graph, drawn or not. The forms:
//   12 or #12      the node with that id
//   /regex/        a regular expression (case-insensitive) over the node's label text
//   anything else  a case-insensitive substring of the label text
// where the label text is "#12 convolution f32[8,56,56,64]{1,0,3,2}": id, opcode and shape.
struct NodeQuery {
    enum class Kind { Empty, Id, Substring, Regex };
    Kind kind = Kind::Empty;
    int64_t id = -1;
    QString text;
    QRegularExpression regex;
    QString error;  // a bad regular expression, with the reason
};
NodeQuery parseNodeQuery(const QString& text);

struct NodeMatches {
    QString query;               // the text searched for
    std::vector<int32_t> nodes;  // in id order, at most the limit asked for
    int64_t total = 0;           // every match
    QString error;
};

// The text a node's label shows, which a search matches.
QString nodeSearchText(const TpuGraph& g, int32_t node);

// Pure: any thread. `keepGoing` is asked every few thousand nodes; false stops (partial result).
NodeMatches findNodes(const TpuGraph& g, const NodeQuery& query, size_t maxListed,
                      const std::function<bool()>& keepGoing = {});

}  // namespace tpg

Q_DECLARE_METATYPE(tpg::NodeMatches)
