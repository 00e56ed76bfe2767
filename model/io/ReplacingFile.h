#pragma once

#include <string>

namespace tpg {

// A file written whole or not at all: the bytes go to PATH.tmp, which takes PATH's place only on
// commit(). Destroyed uncommitted (a failed write, an exception on the way), it removes PATH.tmp,
// so PATH keeps its old contents and nothing is left beside it.
class ReplacingFile {
public:
    explicit ReplacingFile(std::string path);
    ~ReplacingFile();
    ReplacingFile(const ReplacingFile&) = delete;
    ReplacingFile& operator=(const ReplacingFile&) = delete;

    const std::string& tempPath() const { return m_temp; }  // where to write
    // Renames the temporary file over PATH; throws FormatError naming PATH when it cannot.
    void commit();

private:
    std::string m_path;
    std::string m_temp;
    bool m_committed = false;
};

// Writes `bytes` to `path` through a ReplacingFile; throws FormatError naming `path` when the file
// cannot be opened, written (a full disk) or put in place.
void writeFileWhole(const std::string& path, const std::string& bytes);

}  // namespace tpg
