#include "WhatIfSessionFile.h"

#include <cstdio>
#include <fstream>

#include "io/Error.h"

namespace tpg::cli {

SessionEntry readSessionEntry(const std::string& path, int entry, int64_t width, const std::string& graphPath) {
    std::ifstream in(path);
    if (!in) throwFormatError(path, "", "cannot open");
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (!doc.is_object() || doc.value("format", "") != kWhatIfFormat)
        throwFormatError(path, "format", std::string("expected a what-if session (\"") + kWhatIfFormat + "\")");
    const auto& configs = doc.value("configurations", nlohmann::json::array());
    if (!configs.is_array() || configs.empty()) throwFormatError(path, "configurations", "expected at least one");
    const int n = static_cast<int>(configs.size());
    if (entry < 0 || entry >= n)
        throwFormatError(path, "configurations",
                         "has " + std::to_string(n) + " entries; entry " + std::to_string(entry) + " does not exist");
    const std::string key = "configurations[" + std::to_string(entry) + "].config";
    const auto& item = configs[static_cast<size_t>(entry)];
    const auto& values = item.is_object() ? item.value("config", nlohmann::json::array()) : nlohmann::json::array();
    if (!values.is_array() || static_cast<int64_t>(values.size()) != width)
        throwFormatError(path, key, "expected " + std::to_string(width) + " values for " + graphPath);
    SessionEntry e;
    for (const auto& v : values) {
        if (!v.is_number()) throwFormatError(path, key, "expected numbers");
        e.config.push_back(v.get<float>());
    }
    e.label = item.value("label", "entry " + std::to_string(entry));
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
