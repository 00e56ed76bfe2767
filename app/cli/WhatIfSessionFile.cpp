#include "WhatIfSessionFile.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "io/Error.h"

namespace tpg::cli {

SessionEntry readSessionEntry(const std::string& path, int entry, const TpuGraph& g) {
    std::ifstream in(path);
    if (!in) throwFormatError(path, "", "cannot open");
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    const auto format = doc.is_object() ? doc.find("format") : doc.end();
    if (!doc.is_object() || format == doc.end() || *format != kWhatIfFormat)
        throwFormatError(path, "format", std::string("expected a what-if session (\"") + kWhatIfFormat + "\")");
    const auto configs = doc.find("configurations");
    if (configs == doc.end() || !configs->is_array() || configs->empty())
        throwFormatError(path, "configurations", "expected at least one");
    const int n = static_cast<int>(configs->size());
    if (entry < 0 || entry >= n)
        throwFormatError(path, "configurations",
                         "has " + std::to_string(n) + " entries; entry " + std::to_string(entry) + " does not exist");
    const std::string key = "configurations[" + std::to_string(entry) + "]";
    const auto& item = (*configs)[static_cast<size_t>(entry)];
    const auto values = item.is_object() ? item.find("config") : item.end();
    if (!item.is_object() || values == item.end() || !values->is_array())
        throwFormatError(path, key + ".config",
                         "expected a list of " + std::to_string(g.configRowWidth()) + " numbers");
    SessionEntry e;
    for (const auto& v : *values) {
        const double d = v.is_number() ? v.get<double>() : 0.0;
        if (!v.is_number() || std::fabs(d) > std::numeric_limits<float>::max())
            throwFormatError(path, key + ".config",
                             "value " + std::to_string(e.config.size()) + " is " + v.dump() +
                                 " (expected a number within float range)");
        e.config.push_back(static_cast<float>(d));
    }
    if (const std::string problem = g.configRowProblem(e.config); !problem.empty())
        throwFormatError(path, key + ".config", problem);
    const auto label = item.find("label");
    e.label = label != item.end() && label->is_string() ? label->get<std::string>()
                                                        : "entry " + std::to_string(entry);
    return e;
}

nlohmann::json sessionDocument(const std::string& file, const std::string& collection, const std::string& model) {
    return {{"format", kWhatIfFormat},
            {"version", kWhatIfFormatVersion},
            {"file", file},
            {"collection", collection},
            {"model", model},
            {"configurations", nlohmann::json::array()}};
}

void writeSessionFile(const std::string& path, const nlohmann::json& doc) {
    const std::string temp = path + ".part";
    {
        std::ofstream out(temp, std::ios::trunc);
        if (!out) throwFormatError(path, "", "cannot write");
        out << doc.dump(2) << "\n";
        if (!out) throwFormatError(path, "", "cannot write (disk full?)");
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        std::remove(temp.c_str());
        throwFormatError(path, "", "cannot replace the file");
    }
}

}  // namespace tpg::cli
