#include "WhatIfSession.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "io/Error.h"
#include "io/ReplacingFile.h"

namespace tpg::session {

namespace {

nlohmann::json parseDocument(const std::string& text, const std::string& path) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throwFormatError(path, "",
                         "not JSON (a syntax error at byte " + std::to_string(e.byte) + ")");
    } catch (const nlohmann::json::exception& e) {  // a number beyond a double's range
        const std::string what = e.what();          // "[json.exception.out_of_range.406] ..."
        throwFormatError(path, "", "not readable JSON: " + what.substr(what.find(']') + 2));
    }
}

std::string textOr(const nlohmann::json& object, const char* key, std::string fallback) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::move(fallback);
}

WhatIfEntry readEntry(const nlohmann::json& item, size_t index, const std::string& path,
                      const TpuGraph& g) {
    const std::string key = "configurations[" + std::to_string(index) + "].config";
    const auto values = item.is_object() ? item.find("config") : item.end();
    if (!item.is_object() || values == item.end() || !values->is_array())
        throwFormatError(path, key,
                         "expected a list of " + std::to_string(g.configRowWidth()) + " numbers");
    WhatIfEntry e;
    for (const auto& v : *values) {
        const double d = v.is_number() ? v.get<double>() : 0.0;
        if (!v.is_number() || std::fabs(d) > std::numeric_limits<float>::max())
            throwFormatError(path, key,
                             "value " + std::to_string(e.config.size()) + " is " + v.dump() +
                                 " (expected a number within float range)");
        e.config.push_back(static_cast<float>(d));
    }
    if (const std::string problem = g.configRowProblem(e.config); !problem.empty())
        throwFormatError(path, key, problem);
    e.label = textOr(item, "label", "entry " + std::to_string(index));
    const auto pinned = item.find("pinned");
    e.pinned = pinned != item.end() && pinned->is_boolean() && pinned->get<bool>();
    return e;
}

}  // namespace

WhatIfSession readWhatIfSession(const std::string& path, const TpuGraph& g) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throwFormatError(path, "", "cannot open");
    std::ostringstream text;
    text << in.rdbuf();
    return parseWhatIfSession(text.str(), path, g);
}

WhatIfSession parseWhatIfSession(const std::string& text, const std::string& path,
                                 const TpuGraph& g) {
    const nlohmann::json doc = parseDocument(text, path);
    const auto format = doc.is_object() ? doc.find("format") : doc.end();
    if (!doc.is_object() || format == doc.end() || *format != kWhatIfFormat)
        throwFormatError(path, "format",
                         std::string("expected a what-if session (\"") + kWhatIfFormat + "\")");
    const auto configs = doc.find("configurations");
    if (configs == doc.end() || !configs->is_array() || configs->empty())
        throwFormatError(path, "configurations", "expected at least one configuration");
    WhatIfSession s;
    s.file = textOr(doc, "file", "");
    s.collection = textOr(doc, "collection", "");
    s.model = textOr(doc, "model", "");
    for (size_t i = 0; i < configs->size(); ++i)
        s.entries.push_back(readEntry((*configs)[i], i, path, g));
    return s;
}

std::string otherFileNote(const WhatIfSession& session, const std::string& sessionPath,
                          const std::string& openFile) {
    namespace fs = std::filesystem;
    const fs::path saved = fs::path(session.file).filename();
    const fs::path open = fs::path(openFile).filename();
    if (saved.empty() || saved == open) return "";
    return sessionPath + " was saved for " + saved.string() +
           "; its configurations are applied to " + open.string();
}

nlohmann::json whatIfDocument(const std::string& file, const std::string& collection,
                              const std::string& model) {
    return {{"format", kWhatIfFormat},
            {"version", kWhatIfFormatVersion},
            {"file", file},
            {"collection", collection},
            {"model", model},
            {"configurations", nlohmann::json::array()}};
}

void writeWhatIfSession(const std::string& path, const nlohmann::json& doc) {
    // A label or path that is not UTF-8 is written with replacement characters, not refused.
    writeFileWhole(path, doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace tpg::session
