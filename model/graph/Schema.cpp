#include "graph/Schema.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace tpg::schema_data {
extern const char* const kOpcodes;
extern const char* const kNodeFeatures;
extern const char* const kLayoutConfigFeatures;
extern const char* const kTileConfigFeatures;
}  // namespace tpg::schema_data

namespace tpg::schema {

namespace {

struct Table {
    std::vector<std::vector<std::string>> rows;  // header dropped
};

Table parseTsv(const char* text) {
    Table t;
    std::istringstream in(text);
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (header) {
            header = false;
            continue;
        }
        std::vector<std::string> cells;
        std::istringstream ls(line);
        std::string cell;
        while (std::getline(ls, cell, '\t')) cells.push_back(cell);
        t.rows.push_back(std::move(cells));
    }
    return t;
}

std::vector<std::string> nameColumn(const char* text) {
    std::vector<std::string> names;
    for (auto& r : parseTsv(text).rows) names.push_back(r.size() > 1 ? r[1] : "");
    return names;
}

struct Opcodes {
    std::map<int, std::string> names;
    std::map<int, bool> active;
    std::map<std::string, int> ids;
    int maxId = 0;
    Opcodes() {
        for (auto& r : parseTsv(schema_data::kOpcodes).rows) {
            if (r.size() < 2) continue;
            const int id = std::stoi(r[0]);
            names[id] = r[1];
            active[id] = r.size() < 3 || r[2] != "removed";
            ids[r[1]] = id;
            maxId = std::max(maxId, id);
        }
    }
};

const Opcodes& opcodes() {
    static const Opcodes o;
    return o;
}

}  // namespace

int shapeRank(const float* nodeFeatureRow, int shapeDimColumn) {
    int rank = 0;
    for (int d = 0; d < kMaxRank; ++d)
        if (nodeFeatureRow[shapeDimColumn + d] > 0) rank = d + 1;
    return rank;
}

std::string opcodeName(int id) {
    const auto& o = opcodes();
    auto it = o.names.find(id);
    return it != o.names.end() ? it->second : "unknown(" + std::to_string(id) + ")";
}

int opcodeId(const std::string& name) {
    const auto& o = opcodes();
    auto it = o.ids.find(name);
    return it != o.ids.end() ? it->second : -1;
}

bool opcodeKnown(int id) {
    const auto& o = opcodes();
    auto it = o.active.find(id);
    return it != o.active.end() && it->second;
}

int maxOpcodeId() { return opcodes().maxId; }

const std::vector<std::string>& nodeFeatureNames() {
    static const auto names = nameColumn(schema_data::kNodeFeatures);
    return names;
}

const std::vector<std::string>& layoutConfigFeatureNames() {
    static const auto names = nameColumn(schema_data::kLayoutConfigFeatures);
    return names;
}

const std::vector<std::string>& tileConfigFeatureNames() {
    static const auto names = nameColumn(schema_data::kTileConfigFeatures);
    return names;
}

int tileConfigColumn(const std::string& name) {
    const auto& names = tileConfigFeatureNames();
    const auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

std::string featureName(const std::vector<std::string>& names, int width, int col) {
    if (width == static_cast<int>(names.size()) && col >= 0 && col < width) return names[col];
    return "col_" + std::to_string(col);
}

}  // namespace tpg::schema
