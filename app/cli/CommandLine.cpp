#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "Commands.h"

namespace tpg::cli {

int runCommandLine(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
        return 0;
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tpugraphs: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "tpugraphs: unexpected error\n");
    }
    return 1;
}

}  // namespace tpg::cli
