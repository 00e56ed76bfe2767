// tpugraphs-explorer [FILE|DIR] [--model FILE]: opens what it is given; with nothing, the last
// session, or on first launch the embedded sample.
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include "MainWindow.h"
#include "TensorMemory.h"

namespace {

// What is wrong with the command line ("" when nothing): one path at most (a file manager's
// selection of several had opened the first alone), ids that are numbers (`--node x` had chosen 0).
QString usageProblem(const QCommandLineParser& parser, const QCommandLineOption& node,
                     const QCommandLineOption& config) {
    const QStringList paths = parser.positionalArguments();
    if (paths.size() > 1)
        return QStringLiteral("opens one FILE or DIR at a time, not %1").arg(paths.size());
    for (const QCommandLineOption* option : {&node, &config}) {
        if (!parser.isSet(*option)) continue;
        bool ok = false;
        const qlonglong value = parser.value(*option).toLongLong(&ok);
        if (!ok || value < 0 || (option == &node && value > std::numeric_limits<int>::max()))
            return QStringLiteral("--%1: expected a %2 (a whole number from 0), got '%3'")
                .arg(option->names().constFirst(),
                     option == &node ? QStringLiteral("node id")
                                     : QStringLiteral("configuration index"),
                     parser.value(*option));
    }
    return {};
}

// Whether Qt will find a display. Without one QApplication aborts (SIGABRT, "could not connect
// to display"); --help, --version and a usage error need none, and otherwise a user gets one line
// saying what to set. A platform chosen (QT_QPA_PLATFORM, -platform) is Qt's to check.
bool displayAvailable(int argc, char** argv) {
    if (!qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) return true;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "-platform") == 0 || std::strncmp(argv[i], "-platform=", 10) == 0)
            return true;
#ifdef Q_OS_LINUX
    return !qEnvironmentVariableIsEmpty("DISPLAY") ||
           !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
#else
    return true;
#endif
}

}  // namespace

int main(int argc, char** argv) {
    tpg::nn::keepFreedTensorMemory();
    const bool display = displayAvailable(argc, argv);
    // Without a display the command line is still read (help, version, usage errors) by a
    // QCoreApplication, which needs none.
    const std::unique_ptr<QCoreApplication> app =
        display ? std::make_unique<QApplication>(argc, argv)
                : std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("tpugraphs"));
    QCoreApplication::setApplicationName(QStringLiteral("tpugraphs-explorer"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TPG_VERSION));
    if (display)
        QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/tpugraphs-explorer.svg")));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Explore TpuGraphs files: XLA HLO graphs and their compiler configurations."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("path"),
                                 QStringLiteral("A .npz file or a dataset folder to open."),
                                 QStringLiteral("[FILE|DIR]"));
    QCommandLineOption node(QStringLiteral("node"),
                            QStringLiteral("Select node <id> in the graph opened."),
                            QStringLiteral("id"));
    QCommandLineOption config(QStringLiteral("config"),
                              QStringLiteral("Choose configuration <index> in the graph opened."),
                              QStringLiteral("index"));
    QCommandLineOption model(
        QStringLiteral("model"),
        QStringLiteral("Score with the model in <file> (a .tpgm of `tpugraphs "
                       "train` or the Training tab) instead of the built-in one."),
        QStringLiteral("file"));
    parser.addOption(node);
    parser.addOption(config);
    parser.addOption(model);
    // parse first: process() exits with 1 on an unknown option, where every other usage error here
    // (and the command line's) is 2, with its one message and the pointer to --help. Once the
    // arguments parse, process() answers --help, --help-all and --version.
    const bool parsed = parser.parse(QCoreApplication::arguments());
    if (parsed) parser.process(*app);
    const QString problem = parsed ? usageProblem(parser, node, config) : parser.errorText();
    if (!problem.isEmpty()) {
        std::fprintf(
            stderr, "tpugraphs-explorer: %s\nRun tpugraphs-explorer --help for more information.\n",
            qPrintable(problem));
        return 2;
    }
    if (!display) {
        std::fprintf(
            stderr,
            "tpugraphs-explorer: no display to open a window on (DISPLAY and WAYLAND_DISPLAY "
            "are not set); to run without one, set QT_QPA_PLATFORM=offscreen\n");
        return 1;
    }
    tpg::MainWindow window;
    if (parser.isSet(node) || parser.isSet(config))
        window.setInitialSelection(parser.isSet(node) ? parser.value(node).toInt() : -1,
                                   parser.isSet(config) ? parser.value(config).toLongLong() : -1);
    if (parser.isSet(model)) window.setInitialModel(parser.value(model));
    window.show();
    window.startSession(parser.positionalArguments().value(0));
    return QCoreApplication::exec();
}
