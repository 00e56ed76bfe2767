#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <optional>
#include <string_view>
#include <vector>

#include "Commands.h"
#include "graph/DatasetIndex.h"
#include "io/Error.h"

namespace tpg::cli {

namespace {

// Optimal string alignment distance: typos are mostly one insertion, deletion, change or swap.
std::size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t change = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + change});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.size()][b.size()];
}

// The name nearest `word`, if near enough to be the one meant (a third of its letters, at least 2).
std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& names) {
    std::optional<std::string> best;
    std::size_t bestDistance = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const std::string& name : names) {
        const std::size_t distance = editDistance(word, name);
        if (distance < bestDistance) {
            bestDistance = distance;
            best = name;
        }
    }
    return best;
}

std::vector<std::string> commandNames(const CLI::App& root) {
    std::vector<std::string> names;
    for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(sub->get_name());
    return names;
}

std::vector<std::string> longOptions(const CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::Option* option : app.get_options())
        for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    return names;
}

std::string join(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
}

constexpr const char* kSeeHelp = "Run tpugraphs --help for more information.";

// A first word that names no command, with the command probably meant.
std::optional<std::string> unknownCommand(const CLI::App& root, const std::string& word) {
    const std::vector<std::string> names = commandNames(root);
    if (std::find(names.begin(), names.end(), word) != names.end()) return std::nullopt;
    const auto guess = nearest(word, names);
    return "'" + word + "' is not a command; " +
           (guess ? "did you mean '" + *guess + "'?" : "one of " + join(names)) + "\n" + kSeeHelp;
}

// The first of argv[first...] that is no long option of `app`, with the option probably meant.
std::optional<std::string> unknownOption(const CLI::App& app, const std::string& command, int first,
                                         int argc, char** argv) {
    const std::vector<std::string> known = longOptions(app);
    for (int i = first; i < argc; ++i) {
        const std::string_view token = argv[i];
        if (token == "--") break;  // what follows is positional
        if (token.size() < 3 || token.substr(0, 2) != "--") continue;
        const std::string name(token.substr(0, token.find('=')));
        if (std::find(known.begin(), known.end(), name) != known.end()) continue;
        std::string text = command.empty() ? "" : command + ": ";
        text += "unknown option " + name;
        if (const auto guess = nearest(name, known)) text += "; did you mean " + *guess + "?";
        text += "\nRun tpugraphs " + (command.empty() ? "" : command + " ");
        text += "--help for more information.";
        return text;
    }
    return std::nullopt;
}

// A missing or mistyped command or option, named with the one probably meant (the text after
// "tpugraphs: "). CLI11 reports an unknown command as a missing one, and a missing required
// option before an unknown one, which hides the typo behind it.
std::optional<std::string> mistypedWord(const CLI::App& root, int argc, char** argv) {
    if (argc < 2) return "no command given; one of " + join(commandNames(root)) + "\n" + kSeeHelp;
    const std::string word = argv[1];
    if (!word.empty() && word[0] == '-') return unknownOption(root, "", 1, argc, argv);
    if (auto problem = unknownCommand(root, word)) return problem;
    const auto subs =
        root.get_subcommands([&](const CLI::App* s) { return s->get_name() == word; });
    return unknownOption(*subs.front(), word, 2, argc, argv);
}

// CLI11's message about a command's arguments, named by the command, with where its help is.
std::string usageError(const CLI::App& root, const std::string& message, int argc, char** argv) {
    const std::string word = argc >= 2 ? argv[1] : "";
    const std::vector<std::string> names = commandNames(root);
    if (std::find(names.begin(), names.end(), word) == names.end())
        return message + "\n" + kSeeHelp;
    return word + ": " + message + "\nRun tpugraphs " + word + " --help for more information.";
}

// LibTorch's exceptions carry a backtrace after their message ("Exception raised from ..." or at
// once "frame #0: ..."): a user gets the message, one line, as for every other error.
std::string withoutBacktrace(std::string what) {
    for (const char* start : {"\nException raised from ", "\nframe #0: "})
        if (const auto at = what.find(start); at != std::string::npos) what.erase(at);
    return what;
}

}  // namespace

std::string collectionProblem(std::string& name) {
    std::vector<std::string> accepted;
    for (const std::string& c : knownCollections()) {
        for (std::size_t colon = c.find(':'); colon != std::string::npos;
             colon = c.find(':', colon + 1))
            accepted.push_back(c.substr(0, colon));
        accepted.push_back(c);
    }
    if (std::find(accepted.begin(), accepted.end(), name) != accepted.end()) return {};
    std::string text = "'" + name + "' is no collection; expected one of " +
                       join(knownCollections()) + " or a prefix of them (layout, layout:xla, ...)";
    if (const auto guess = nearest(name, accepted)) text += "; did you mean " + *guess + "?";
    return text;
}

std::string outputFileProblem(std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return "'" + path + "' is a folder; expected the path of the file to write";
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
        return "the folder '" + folder.string() + "' does not exist (it is not created)";
    return {};
}

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
        app.add_flag_callback(
            "--version",
            [] {
                std::printf("tpugraphs %s\n", TPG_VERSION);
                throw CLI::Success();
            },
            "Print the version and exit");
        addCommands(app);
        if (const auto problem = mistypedWord(app, argc, argv)) {
            std::fprintf(stderr, "tpugraphs: %s\n", problem->c_str());
            return 2;
        }
        try {
            app.parse(argc, argv);
            return 0;
        } catch (const CLI::ParseError& e) {
            if (e.get_exit_code() == 0) return app.exit(e);  // --help, --help-all
            std::fprintf(stderr, "tpugraphs: %s\n", usageError(app, e.what(), argc, argv).c_str());
            return 2;
        }
    } catch (const std::bad_alloc&) {  // its what() is "std::bad_alloc"
        std::fprintf(
            stderr, "tpugraphs: out of memory: the command asked for more than this machine has\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tpugraphs: %s\n", withoutBacktrace(e.what()).c_str());
    } catch (...) {
        std::fprintf(stderr, "tpugraphs: unexpected error\n");
    }
    return 1;
}

}  // namespace tpg::cli
