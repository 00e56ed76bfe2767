// `tpugraphs-learn`: the learning commands of `tpugraphs` (LearnCommands.h), in an executable of
// their own because they link LibTorch. Users run them as `tpugraphs train ...`.
#include <CLI/CLI.hpp>

#include "Commands.h"
#include "TensorMemory.h"

int main(int argc, char** argv) {
    tpg::nn::keepFreedTensorMemory();
    return tpg::cli::runCommandLine("tpugraphs: train on and predict TpuGraphs files",
                                    [](CLI::App& app) {
                                        tpg::cli::addTrainCommand(app);
                                        tpg::cli::addEvalCommand(app);
                                        tpg::cli::addPredictCommand(app);
                                        tpg::cli::addWhatIfCommand(app);
                                        tpg::cli::addTuneCommand(app);
                                    },
                                    argc, argv);
}
