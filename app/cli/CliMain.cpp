// `tpugraphs`: the command line. Runs the commands that need no model itself and hands the
// learning commands (LearnCommands.h) to `tpugraphs-learn`, so `inspect` starts instantly.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "Commands.h"
#include "LearnCommands.h"

namespace {

namespace fs = std::filesystem;

// Beside this executable (the build tree, a bin/ install), else in ../libexec/tpugraphs/.
std::vector<fs::path> learnCandidates() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    const fs::path dir = self.parent_path();
    return {dir / tpg::cli::kLearnExecutable,
            dir.parent_path() / "libexec" / "tpugraphs" / tpg::cli::kLearnExecutable};
}

int runLearnCommand(char** argv) {
    std::string tried;
    for (const fs::path& p : learnCandidates()) {
        argv[0] = const_cast<char*>(p.c_str());
        execv(p.c_str(), argv);  // returns only on failure
        tried += (tried.empty() ? "" : ", ") + p.string() + " (" + std::strerror(errno) + ")";
    }
    std::fprintf(stderr, "tpugraphs: '%s' needs %s, which could not be started: %s\n", argv[1],
                 tpg::cli::kLearnExecutable, tried.empty() ? "no location known" : tried.c_str());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && tpg::cli::findLearnCommand(argv[1])) return runLearnCommand(argv);
    return tpg::cli::runCommandLine(
        "tpugraphs: inspect, generate, train on and predict TpuGraphs files",
        [](CLI::App& app) {
            tpg::cli::addInspectCommand(app);
            tpg::cli::addSynthCommand(app);
            tpg::cli::addExplainCommand(app);
            // Listed for --help; never parsed here (main hands them over above).
            for (const auto& c : tpg::cli::kLearnCommands)
                app.add_subcommand(c.name, c.description)->allow_extras();
        },
        argc, argv);
}
