// tpugraphs-explorer [FILE|DIR]: opens what it is given; with nothing, the last session, or on
// first launch the embedded sample.
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include "MainWindow.h"
#include "TensorMemory.h"

int main(int argc, char** argv) {
    tpg::nn::keepFreedTensorMemory();
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("tpugraphs"));
    QCoreApplication::setApplicationName(QStringLiteral("tpugraphs-explorer"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TPG_VERSION));
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
    parser.addOption(node);
    parser.addOption(config);
    parser.process(app);
    tpg::MainWindow window;
    if (parser.isSet(node) || parser.isSet(config))
        window.setInitialSelection(parser.isSet(node) ? parser.value(node).toInt() : -1,
                                   parser.isSet(config) ? parser.value(config).toLongLong() : -1);
    window.show();
    window.startSession(parser.positionalArguments().value(0));
    return app.exec();
}
