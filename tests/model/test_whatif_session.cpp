// What-if session files: one reader and writer for the explorer and the command line.
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "SmallLayout.h"
#include "graph/TpuGraph.h"
#include "io/Error.h"
#include "session/WhatIfSession.h"

using namespace tpg;
using namespace tpg::session;

namespace {

// One configurable node (node 1) of a four-node program, three configurations.
TpuGraph smallLayout(const std::string& name) {
    TpuGraphData d = testing::smallLayout();
    d.name = name;
    return TpuGraph(std::move(d));
}

std::string refusal(const std::string& path, const TpuGraph& g) {
    try {
        readWhatIfSession(path, g);
    } catch (const FormatError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

class TestWhatIfSession : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string file(const char* name) const {
        return m_dir.filePath(QLatin1String(name)).toStdString();
    }
    std::string write(const char* name, const std::string& text) const {
        std::ofstream(file(name)) << text;
        return file(name);
    }

private slots:
    // What the explorer and `tune` write reads back: labels, rows, pins and the file it was for.
    void writtenSessionsReadBack() {
        const TpuGraph g = smallLayout("small");
        std::vector<float> row(18, -1.0f);
        row[0] = 1;
        nlohmann::json doc = whatIfDocument("/data/small.npz", "layout:xla:random", "built-in");
        doc["configurations"].push_back(
            {{"label", "start"}, {"config", row}, {"pinned", true}, {"score", 0.5}});
        row[1] = 0;
        doc["configurations"].push_back({{"config", row}});
        const std::string path = file("s.json");
        writeWhatIfSession(path, doc);
        QVERIFY(!QFile::exists(QString::fromStdString(path + ".tmp")));
        const WhatIfSession s = readWhatIfSession(path, g);
        QCOMPARE(s.file, std::string("/data/small.npz"));
        QCOMPARE(s.collection, std::string("layout:xla:random"));
        QCOMPARE(s.model, std::string("built-in"));
        QCOMPARE(s.entries.size(), size_t{2});
        QCOMPARE(s.entries[0].label, std::string("start"));
        QVERIFY(s.entries[0].pinned);
        QCOMPARE(s.entries[1].label, std::string("entry 1"));  // it has none
        QVERIFY(!s.entries[1].pinned);
        QVERIFY(s.entries[1].config == row);
    }

    // A label that is not UTF-8 (a Latin-1 file name, say) is written with replacement
    // characters rather than refused.
    void aLabelThatIsNotUtf8IsWritten() {
        nlohmann::json doc = whatIfDocument("caf\xe9.npz", "layout:xla:random", "");
        doc["configurations"].push_back(
            {{"label", "caf\xe9"}, {"config", std::vector<float>(18, -1.0f)}});
        writeWhatIfSession(file("latin1.json"), doc);
        const WhatIfSession s = readWhatIfSession(file("latin1.json"), smallLayout("small"));
        QCOMPARE(s.entries[0].label, std::string("caf\xef\xbf\xbd"));
    }

    void badSessionsAreRefusedNamingTheKey() {
        const TpuGraph g = smallLayout("small");
        const std::string row = "[1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1]";
        auto session = [](const std::string& configs) {
            return R"({"format": "tpugraphs-whatif", "configurations": )" + configs + "}";
        };
        QCOMPARE(refusal(file("missing.json"), g), file("missing.json") + ": cannot open");
        QVERIFY(refusal(write("text.json", "{\"format\": "), g)
                    .find("not JSON (a syntax error at byte") != std::string::npos);
        // A number JSON can write but a double cannot hold had escaped as nlohmann's own
        // exception, naming no file.
        QCOMPARE(refusal(write("huge.json", session("[{\"config\": [1e400]}]")), g),
                 file("huge.json") + ": not readable JSON: number overflow parsing '1e400'");
        QVERIFY(
            refusal(write("other.json", R"({"format": "something"})"), g).find("key 'format'") !=
            std::string::npos);
        QVERIFY(refusal(write("array.json", "[1]"), g).find("key 'format'") != std::string::npos);
        QVERIFY(refusal(write("none.json", session("[]")), g)
                    .find("key 'configurations': expected at least one") != std::string::npos);
        QVERIFY(refusal(write("notobj.json", session("[3]")), g)
                    .find("key 'configurations[0].config': expected a list of 18 numbers") !=
                std::string::npos);
        QVERIFY(refusal(write("short.json", session(R"([{"config": [1, 2]}])")), g)
                    .find("key 'configurations[0].config'") != std::string::npos);
        std::string big = row;
        big.replace(1, 1, "1e300");
        QVERIFY(refusal(write("big.json",
                              session(R"([{"config": )" + row + R"(}, {"config": )" + big + "}]")),
                        g)
                    .find("key 'configurations[1].config': value 0 is 1e+300 (expected a number "
                          "within float range)") != std::string::npos);
        std::string text = row;
        text.replace(1, 1, "\"x\"");
        QVERIFY(refusal(write("text2.json", session(R"([{"config": )" + text + "}]")), g)
                    .find("value 0 is \"x\"") != std::string::npos);
        std::string bad = row;
        bad.replace(1, 1, "99");
        QVERIFY(refusal(write("v99.json", session(R"([{"config": )" + bad + "}]")), g)
                    .find("holds 99 (expected a layout value") != std::string::npos);
    }

    // A session saved for another file says so (a tile session's rows fit any kernel); one for
    // this file, in another folder, or one that does not say, does not.
    void aSessionForAnotherFileIsNoted() {
        WhatIfSession s;
        s.file = "/elsewhere/small.npz";
        QCOMPARE(otherFileNote(s, "s.json", "/data/small.npz"), std::string());
        s.file = "";
        QCOMPARE(otherFileNote(s, "s.json", "/data/small.npz"), std::string());
        s.file = "/data/other.npz";
        QCOMPARE(
            otherFileNote(s, "s.json", "/data/small.npz"),
            std::string(
                "s.json was saved for other.npz; its configurations are applied to small.npz"));
    }

    // A write that cannot happen says so and leaves no temporary file.
    void anUnwritablePathIsRefused() {
        const std::string path = file("no-such-folder/s.json");
        try {
            writeWhatIfSession(path, whatIfDocument("", "", ""));
            QFAIL("no FormatError");
        } catch (const FormatError& e) {
            QCOMPARE(std::string(e.what()), path + ": cannot write (No such file or directory)");
        }
    }
};

QTEST_APPLESS_MAIN(TestWhatIfSession)
#include "test_whatif_session.moc"
