#pragma once

#include <functional>
#include <string>

namespace CLI {
class App;
}

// Each `tpugraphs` subcommand registers itself on the root app. A command's callback throws
// tpg::FormatError (or std::exception) for bad input; main prints it as one line and exits 1.
namespace tpg::cli {

// Commands that need no model, run by `tpugraphs` itself (which links no LibTorch).
void addInspectCommand(CLI::App& app);
void addSynthCommand(CLI::App& app);
void addExplainCommand(CLI::App& app);

// Commands that need the learned model, run by `tpugraphs-learn` (see LearnCommands.h).
void addTrainCommand(CLI::App& app);
void addEvalCommand(CLI::App& app);
void addPredictCommand(CLI::App& app);
void addWhatIfCommand(CLI::App& app);
void addTuneCommand(CLI::App& app);

// Builds the root app (`addCommands` registers the subcommands), parses and runs. Exit codes:
// 0 success, 1 bad input (one line on stderr, prefixed "tpugraphs: "), 2 usage error. Never throws.
int runCommandLine(const char* description, const std::function<void(CLI::App&)>& addCommands,
                   int argc, char** argv);

// A --collection value's problem ("" when it is one): a collection of the real dataset, or a prefix
// of them at a ':' ("layout", "layout:xla"), else what was expected and the name probably meant.
// A CLI::Validator's function (hence the non-const reference).
std::string collectionProblem(std::string& name);

// A file-to-write option's problem ("" when it has none): a folder at the path, or no folder to
// put it in, would fail the final write after work that can take minutes or hours, so parsing
// says it. A CLI::Validator's function.
std::string outputFileProblem(std::string& path);

// An "on" / "off" option's value; anything else throws FormatError naming the option.
bool parseOnOff(const std::string& value, const char* option);

}  // namespace tpg::cli
