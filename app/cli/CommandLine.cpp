#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "Commands.h"
#include "io/Error.h"

namespace tpg::cli {

bool parseOnOff(const std::string& value, const char* option) {
    if (value == "on") return true;
    if (value == "off") return false;
    throw FormatError(std::string(option) + ": expected 'on' or 'off', got '" + value + "'");
}

int runCommandLine(const char* description, const std::function<void(CLI::App&)>& addCommands,
                   int argc, char** argv) {
    try {
        CLI::App app{description, "tpugraphs"};
        app.require_subcommand(1);
        app.set_help_all_flag("--help-all", "Help for every command");
        addCommands(app);
        try {
            app.parse(argc, argv);
            return 0;
        } catch (const CLI::ParseError& e) {
            return app.exit(e) == 0 ? 0 : 2;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tpugraphs: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "tpugraphs: unexpected error\n");
    }
    return 1;
}

}  // namespace tpg::cli
