#include "io/ReplacingFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/Error.h"

namespace tpg {

ReplacingFile::ReplacingFile(std::string path) : m_path(std::move(path)), m_temp(m_path + ".tmp") {}

ReplacingFile::~ReplacingFile() {
    if (!m_committed) std::remove(m_temp.c_str());
}

void ReplacingFile::commit() {
    std::error_code ec;
    std::filesystem::rename(m_temp, m_path, ec);
    if (ec) throwFormatError(m_path, "", "cannot replace the file: " + ec.message());
    m_committed = true;
}

void writeFileWhole(const std::string& path, const std::string& bytes) {
    ReplacingFile file(path);
    {
        std::ofstream out(file.tempPath(), std::ios::binary | std::ios::trunc);
        if (!out)
            throwFormatError(path, "", "cannot write (" + std::string(std::strerror(errno)) + ")");
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.close();
        if (!out) throwFormatError(path, "", "write failed (disk full?)");
    }
    file.commit();
}

}  // namespace tpg
