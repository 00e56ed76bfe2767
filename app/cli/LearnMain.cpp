// `tpugraphs-learn`: the learning commands of `tpugraphs` (LearnCommands.h), in an executable of
// their own because they link LibTorch. Users run them as `tpugraphs train ...`.
#include <CLI/CLI.hpp>

#include "Commands.h"

int main(int argc, char** argv) {
    CLI::App app{"tpugraphs: train on and predict TpuGraphs files", "tpugraphs"};
    app.require_subcommand(1);
    tpg::cli::addTrainCommand(app);
    tpg::cli::addEvalCommand(app);
    tpg::cli::addPredictCommand(app);
    return tpg::cli::runCommandLine(app, argc, argv);
}
