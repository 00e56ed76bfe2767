#pragma once

namespace CLI {
class App;
}

// Each `tpugraphs` subcommand registers itself on the root app. A command's callback throws
// tpg::FormatError (or std::exception) for bad input; main prints it as one line and exits 1.
namespace tpg::cli {

void addInspectCommand(CLI::App& app);
void addSynthCommand(CLI::App& app);
void addTrainCommand(CLI::App& app);
void addEvalCommand(CLI::App& app);
void addPredictCommand(CLI::App& app);

}  // namespace tpg::cli
