#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "Commands.h"

namespace {

int run(int argc, char** argv) {
    CLI::App app{"tpugraphs: inspect, generate, train on and predict TpuGraphs files"};
    app.require_subcommand(1);
    app.set_help_all_flag("--help-all", "Help for every command");
    tpg::cli::addInspectCommand(app);
    tpg::cli::addSynthCommand(app);
    tpg::cli::addTrainCommand(app);
    tpg::cli::addEvalCommand(app);
    tpg::cli::addPredictCommand(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    return 0;
}

}  // namespace

// Exit codes: 0 success, 1 bad input (one line on stderr), 2 usage error.
int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tpugraphs: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "tpugraphs: unexpected error\n");
    }
    return 1;
}
