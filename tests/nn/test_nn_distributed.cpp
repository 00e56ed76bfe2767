// Data-parallel training on c10d/Gloo: the group's collectives in-process, the environment
// torchrun describes, and `tpugraphs train --world-size` end to end on loopback (equal to one
// process with the same global batch, resumable with another world size, failing fast and saying
// which rank stopped).
// Torch before Qt: Qt's `slots` macro breaks c10 and torch's headers.
#include <torch/torch.h>
#ifndef TPG_DISTRIBUTED_MISSING
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif

#include <QtTest>
#include <csignal>
#include <functional>
#include <map>
#include <thread>

#include "CostModel.h"
#include "DataParallelGroup.h"
#include "DataParallelTraining.h"
#include "LocalLauncher.h"
#include "TinyGraphs.h"
#include "WorkerEnvironment.h"
#include "graph/GraphFile.h"
#include "io/Error.h"

using namespace tpg;

namespace {

// Bounds every wait on a worker: far above the seconds these runs take, so only a hang trips it.
constexpr int kProcessTimeoutMs = 120000;

nn::WorkerEnvironment worker(int rank, int worldSize, int port) {
    nn::WorkerEnvironment e;
    e.rank = rank;
    e.worldSize = worldSize;
    e.localRank = rank;
    e.localWorldSize = worldSize;
    e.masterPort = port;
    return e;
}

// Runs `body` as every rank of a `worldSize` group in this process (one thread per rank); returns
// each rank's error message ("" when it succeeded).
std::vector<std::string> asGroup(int worldSize, int joining, int joinSeconds,
                                 const std::function<void(nn::DataParallelGroup&)>& body) {
    const int port = nn::freeLoopbackPort();
    std::vector<std::string> errors(static_cast<size_t>(joining));
    std::vector<std::thread> threads;
    threads.reserve(static_cast<size_t>(joining));
    for (int r = 0; r < joining; ++r)
        threads.emplace_back([&, r] {
            try {
                auto group = nn::DataParallelGroup::join(worker(r, worldSize, port), std::chrono::seconds(joinSeconds));
                body(*group);
                group->barrier("the test's last barrier");
            } catch (const std::exception& e) {
                errors[static_cast<size_t>(r)] = e.what();
            }
        });
    for (auto& t : threads) t.join();
    return errors;
}

struct Run {
    int code = -1;
    QString out, err;
};

QProcess* startCli(const QStringList& args, const std::map<QString, QString>& env = {}) {
    auto* p = new QProcess;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const auto& [k, v] : env) e.insert(k, v);
    p->setProcessEnvironment(e);
    p->start(QStringLiteral(TPG_CLI_PATH), args);
    return p;
}

Run finish(QProcess* p) {
    Run r;
    if (p->waitForFinished(kProcessTimeoutMs) && p->exitStatus() == QProcess::NormalExit) r.code = p->exitCode();
    r.out = QString::fromUtf8(p->readAllStandardOutput());
    r.err = QString::fromUtf8(p->readAllStandardError());
    delete p;
    return r;
}

Run tpugraphs(const QStringList& args) { return finish(startCli(args)); }

// torchrun's variables for a worker started by hand.
std::map<QString, QString> torchrunEnvironment(int rank, int worldSize, int port) {
    return {{"RANK", QString::number(rank)},         {"WORLD_SIZE", QString::number(worldSize)},
            {"LOCAL_RANK", QString::number(rank)},   {"LOCAL_WORLD_SIZE", QString::number(worldSize)},
            {"MASTER_ADDR", QStringLiteral("127.0.0.1")}, {"MASTER_PORT", QString::number(port)}};
}

// What torchrun's default (static) rendezvous gives its workers: its agent already hosts the
// store at MASTER_ADDR:MASTER_PORT, and says which restart of the workers this is.
std::map<QString, QString> torchrunAgentEnvironment(int rank, int worldSize, int port, int restart) {
    auto env = torchrunEnvironment(rank, worldSize, port);
    env["TORCHELASTIC_USE_AGENT_STORE"] = QStringLiteral("True");
    env["TORCHELASTIC_RESTART_COUNT"] = QString::number(restart);
    return env;
}

// Reads `p`'s standard output until it contains `text` (kept in `seen`).
bool waitForOutput(QProcess* p, const QString& text, QString& seen) {
    QElapsedTimer t;
    t.start();
    while (!seen.contains(text) && t.elapsed() < kProcessTimeoutMs) {
        if (p->state() == QProcess::NotRunning) return false;
        p->waitForReadyRead(200);
        seen += QString::fromUtf8(p->readAllStandardOutput());
    }
    return seen.contains(text);
}

}  // namespace

class TestNnDistributed : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString data() const { return m_dir.path() + "/data"; }
    QString file(const QString& f) const { return m_dir.path() + "/" + f; }

    // Every config of every train graph in one step (so config sampling cannot differ), 1 thread.
    QStringList trainArgs(const QString& out) const {
        return {"train", "--data", data(), "--collection", "layout:xla:random", "--out", file(out), "--threads", "1",
                "--hidden", "16", "--configs-per-step", "64", "--seed", "5"};
    }

    std::vector<double> scores(const QString& model) const {
        const nn::CostModel m = nn::CostModel::load(file(model).toStdString());
        std::vector<double> all;
        for (const auto& e : std::filesystem::directory_iterator(data().toStdString() + "/npz/layout/xla/random/valid")) {
            const auto s = m.scoreAll(loadTpuGraph(e.path().string()));
            all.insert(all.end(), s.begin(), s.end());
        }
        return all;
    }

    static double maxDifference(const std::vector<double>& a, const std::vector<double>& b) {
        double d = a.size() == b.size() ? 0.0 : 1e9;
        for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = std::max(d, std::abs(a[i] - b[i]));
        return d;
    }

private slots:
    void initTestCase() {
        std::string why;
        if (!nn::distributedTrainingAvailable(why)) QSKIP(why.c_str());
        QVERIFY(m_dir.isValid());
        tiny::writeDataset(data().toStdString(), 6, 2, 0, 40, 8);
    }

    void environmentAsTorchrunSetsIt() {
        std::map<std::string, std::string> vars;
        const nn::EnvironmentLookup lookup = [&](const char* name) -> const char* {
            auto it = vars.find(name);
            return it == vars.end() ? nullptr : it->second.c_str();
        };
        QVERIFY(!nn::workerEnvironment(lookup));  // no RANK: not a worker
        vars = {{"RANK", "1"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"},
                {"MASTER_ADDR", "10.0.0.5"}, {"MASTER_PORT", "29500"}};
        const auto e = nn::workerEnvironment(lookup);
        QVERIFY(e);
        QCOMPARE(e->rank, 1);
        QCOMPARE(e->worldSize, 4);
        QCOMPARE(e->localWorldSize, 2);
        QCOMPARE(e->masterAddr, std::string("10.0.0.5"));
        QCOMPARE(e->masterPort, 29500);
        QVERIFY(!e->agentStore);
        QCOMPARE(e->attempt, 0);
        vars["TORCHELASTIC_USE_AGENT_STORE"] = "True";
        vars["TORCHELASTIC_RESTART_COUNT"] = "2";
        QVERIFY(nn::workerEnvironment(lookup)->agentStore);
        QCOMPARE(nn::workerEnvironment(lookup)->attempt, 2);
        QCOMPARE(nn::workerThreads(3, *e), 3);
        QVERIFY(nn::workerThreads(0, *e) >= 1);
        const auto fails = [&](const char* name, const char* value, const char* expected) {
            auto saved = vars;
            if (value) vars[name] = value;
            else vars.erase(name);
            bool threw = false;
            try {
                nn::workerEnvironment(lookup);
            } catch (const FormatError& err) {
                threw = std::string(err.what()).find(expected) != std::string::npos;
            }
            vars = saved;
            return threw;
        };
        QVERIFY(fails("WORLD_SIZE", nullptr, "WORLD_SIZE must be"));
        QVERIFY(fails("RANK", "4", "RANK='4'"));
        QVERIFY(fails("MASTER_PORT", "http", "MASTER_PORT='http'"));
        QVERIFY(fails("MASTER_ADDR", nullptr, "MASTER_ADDR"));
        QVERIFY(fails("TORCHELASTIC_RESTART_COUNT", "-1", "TORCHELASTIC_RESTART_COUNT='-1'"));
    }

    void collectivesAgreeAcrossRanks() {
        std::vector<std::vector<float>> sums(2);
        std::vector<std::string> received(2);
        std::vector<int> same(2), differ(2);
        const auto errors = asGroup(2, 2, 30, [&](nn::DataParallelGroup& g) {
            const auto r = static_cast<size_t>(g.rank());
            std::vector<float> v = {1.0f + static_cast<float>(r), 10.0f * static_cast<float>(r), -2.0f};
            g.allReduceSum(v.data(), 3, "test sum");
            sums[r] = v;
            double d[2] = {0.5, static_cast<double>(r)};
            g.allReduceSum(d, 2, "test sum");
            QCOMPARE(d[0], 1.0);
            std::string bytes = r == 0 ? std::string("rank 0's state\0with a zero", 26) : std::string("stale");
            g.broadcast(bytes, "test broadcast");
            received[r] = bytes;
            same[r] = g.sameOnAllRanks(0xfeedfacecafebeefull, "test check");
            differ[r] = g.sameOnAllRanks(0xfeedfacecafebeefull + r, "test check");
        });
        QCOMPARE(errors, std::vector<std::string>(2));
        QCOMPARE(sums[0], (std::vector<float>{3.0f, 10.0f, -4.0f}));
        QCOMPARE(sums[1], sums[0]);
        QCOMPARE(received[0], std::string("rank 0's state\0with a zero", 26));
        QCOMPARE(received[1], received[0]);
        QCOMPARE(same, (std::vector<int>{1, 1}));
        QCOMPARE(differ, (std::vector<int>{0, 0}));
    }

    // A step's all-reduce time splits into waiting for the slowest worker and the exchange once
    // the last has arrived: with rank 1 always 150 ms late, rank 0 waits and the exchange stays
    // short.
    void theAllReduceTimeSeparatesWaitingFromTheExchange() {
        constexpr int kSteps = 4;
        constexpr double kLate = 0.15;
        std::vector<double> total(2), settled(2);
        std::vector<int64_t> settledSteps(2);
        const auto errors = asGroup(2, 2, 30, [&](nn::DataParallelGroup& g) {
            nn::TrainSettings s;
            s.dataDir = data().toStdString();
            s.collection = "layout:xla:random";
            s.outPath = file("split" + QString::number(g.rank()) + ".tpgm").toStdString();
            nn::TrainingRun run(s, nn::loadTrainingData(s, [](const std::string&) {}));
            nn::DataParallelTraining dp(g);
            // The timed steps start together: a rank that reached them late (a thread descheduled
            // on a loaded machine) would otherwise count in the other's first all-reduce time.
            g.barrier("the test's start barrier");
            for (int step = 0; step < kSteps; ++step) {
                if (g.rank() == 1)
                    std::this_thread::sleep_for(std::chrono::duration<double>(kLate));
                nn::StepTally tally;
                double rate = 1e-3;
                dp.allReduceGradients(run, tally, false, rate);
            }
            const auto r = static_cast<size_t>(g.rank());
            total[r] = dp.allReduceSeconds();
            settled[r] = dp.settledSeconds();
            settledSteps[r] = dp.settledSteps();
        });
        QCOMPARE(errors, std::vector<std::string>(2));
        QCOMPARE(settledSteps,
                 (std::vector<int64_t>{kSteps - 1, kSteps - 1}));  // learnt a step late
        QVERIFY2(total[0] > 0.6 * kLate * kSteps, qPrintable(QString::number(total[0])));
        QVERIFY2(total[1] < 0.3 * kLate * kSteps, qPrintable(QString::number(total[1])));
        QCOMPARE(settled[1], settled[0]);  // every rank learns the same least time
        QVERIFY2(settled[0] > 0 && settled[0] < 0.3 * kLate * (kSteps - 1),
                 qPrintable(QString::number(settled[0])));
    }

    void aRankThatNeverJoinsIsNamed() {
        const auto errors = asGroup(3, 2, 2, [](nn::DataParallelGroup&) {});
        // Rank 0 gives up at its deadline; rank 1 at its own, or when rank 0's store closes first.
        QVERIFY2(errors[0].find("rank 0: rank 2 of 3 never joined within 2 s") != std::string::npos, errors[0].c_str());
        QVERIFY2(errors[1].find("rank 1: rank 2 of 3 never joined") != std::string::npos, errors[1].c_str());
    }

    void aMissingGlooInterfaceIsNamed() {
        qputenv("GLOO_SOCKET_IFNAME", "tpgnosuch0");
        const auto errors = asGroup(2, 2, 10, [](nn::DataParallelGroup&) {});
        qunsetenv("GLOO_SOCKET_IFNAME");
        for (const auto& e : errors)
            QVERIFY2(e.find("GLOO_SOCKET_IFNAME='tpgnosuch0': this machine has no interface 'tpgnosuch0'") !=
                         std::string::npos,
                     e.c_str());
    }

    void twoWorkersTrainLikeOneProcessWithTheSameGlobalBatch() {
        // One process, two graphs per step; two workers of one graph each, by the launcher and
        // by hand as torchrun starts them. Without a time budget the learning rate follows the
        // steps alone: with one, its first steps followed the wall clock, and under load the runs
        // differed by more than the tolerance.
        const auto byStepsOnly = [this](const QString& out) {
            return trainArgs(out) << "--minutes"
                                  << "0"
                                  << "--epochs"
                                  << "2";
        };
        Run one = tpugraphs(byStepsOnly("one.tpgm") << "--graphs-per-step"
                                                    << "2"
                                                    << "--size-matched-steps"
                                                    << "on");
        QVERIFY2(one.code == 0, qPrintable(one.err));
        Run launched = tpugraphs(byStepsOnly("launched.tpgm") << "--world-size"
                                                              << "2");
        QVERIFY2(launched.code == 0, qPrintable(launched.err + launched.out));
        QVERIFY2(launched.out.contains("started 2 workers on 127.0.0.1:"), qPrintable(launched.out));
        QVERIFY2(launched.out.contains("replicas bit-identical at all 2 epoch-end checks"), qPrintable(launched.out));
        const QRegularExpression split(
            R"(all-reduce ([\d.]+) ms per step \([\d.]+% of the run\): ([\d.]+) ms once the last worker arrived, ([\d.]+) ms)");
        const QRegularExpressionMatch m = split.match(launched.out);
        QVERIFY2(m.hasMatch(), qPrintable(launched.out));
        const double all = m.captured(1).toDouble(), exchange = m.captured(2).toDouble(),
                     waiting = m.captured(3).toDouble();
        // Per step, the exchange (the least of the ranks' times) is at most rank 0's whole time,
        // but it is averaged over one step fewer (learnt a step late): so at most n / (n - 1)
        // times the whole mean, plus the output's rounding to 0.01 ms (twice, scaled).
        const QRegularExpressionMatch counted = QRegularExpression(R"(epochs, (\d+) steps)").match(launched.out);
        QVERIFY2(counted.hasMatch(), qPrintable(launched.out));
        const double steps = counted.captured(1).toDouble();
        QVERIFY2(steps >= 2 && exchange > 0 && exchange <= all * steps / (steps - 1) + 0.02, qPrintable(launched.out));
        QVERIFY(waiting == 0 || std::abs(exchange + waiting - all) <= 0.016);  // three values rounded

        const int port = nn::freeLoopbackPort();
        QProcess* rank1 = startCli(byStepsOnly("byhand.tpgm"), torchrunEnvironment(1, 2, port));
        QProcess* rank0 = startCli(byStepsOnly("byhand.tpgm"), torchrunEnvironment(0, 2, port));
        const Run r0 = finish(rank0), r1 = finish(rank1);
        QVERIFY2(r0.code == 0 && r1.code == 0, qPrintable(r0.err + r1.err));
        QVERIFY2(r1.out.isEmpty(), qPrintable(r1.out));  // rank 0 speaks for the run

        const std::vector<double> base = scores("one.tpgm");
        QVERIFY(!base.empty());
        QVERIFY2(maxDifference(base, scores("launched.tpgm")) < 1e-5, "launched run differs");
        QVERIFY2(maxDifference(base, scores("byhand.tpgm")) < 1e-5, "torchrun-style run differs");
        // The comparison can tell runs apart: steps not matched by size, or half the global batch,
        // end elsewhere.
        Run unmatched = tpugraphs(byStepsOnly("unmatched.tpgm") << "--graphs-per-step"
                                                                << "2");
        QVERIFY2(unmatched.code == 0, qPrintable(unmatched.err));
        QVERIFY(maxDifference(base, scores("unmatched.tpgm")) > 1e-4);
        Run half = tpugraphs(byStepsOnly("half.tpgm"));
        QVERIFY2(half.code == 0, qPrintable(half.err));
        QVERIFY(maxDifference(base, scores("half.tpgm")) > 1e-4);
    }

    // torchrun's default launch: the agent hosts the store (rank 0 must join it, not host its own)
    // and keeps it across restarts (a restarted attempt must not count the last one's ranks).
    void workersJoinTorchrunsAgentStore() {
#ifdef TPG_DISTRIBUTED_MISSING
        QSKIP("no c10d here to host the agent's store");
#else
        const int port = nn::freeLoopbackPort();
        c10d::TCPStoreOptions o;
        o.port = static_cast<uint16_t>(port);
        o.isServer = true;
        o.waitWorkers = false;
        c10d::TCPStore agent("127.0.0.1", o);
        for (int r = 0; r < 2; ++r) agent.set("tpg/attempt0/joined/" + std::to_string(r), {'x'});

        QProcess* lone = startCli(trainArgs("agent.tpgm") << "--epochs" << "1" << "--join-seconds" << "2",
                                  torchrunAgentEnvironment(0, 2, port, 1));
        const Run alone = finish(lone);
        QVERIFY(alone.code != 0);
        QVERIFY2(alone.err.contains("rank 1 of 2 never joined within 2 s"), qPrintable(alone.err));

        QProcess* rank0 = startCli(trainArgs("agent.tpgm") << "--epochs" << "1", torchrunAgentEnvironment(0, 2, port, 2));
        QProcess* rank1 = startCli(trainArgs("agent.tpgm") << "--epochs" << "1", torchrunAgentEnvironment(1, 2, port, 2));
        const Run r0 = finish(rank0), r1 = finish(rank1);
        QVERIFY2(r0.code == 0 && r1.code == 0, qPrintable(r0.err + r1.err));
        QVERIFY2(r0.out.contains("replicas bit-identical"), qPrintable(r0.out));
#endif
    }

    // The budget is read on each rank's clock; the ranks agree in the step's all-reduce, so all
    // stop after the same step, validate together and end cleanly.
    void theTimeBudgetStopsEveryRankTogether() {
        Run r = tpugraphs(trainArgs("budget.tpgm") << "--minutes" << "0.05" << "--epochs" << "1000" << "--patience"
                                                   << "1000" << "--world-size" << "2");
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains("time budget reached"), qPrintable(r.out));
        QVERIFY2(r.out.contains("replicas bit-identical"), qPrintable(r.out));
    }

    void resumesWithAnotherWorldSize() {
        Run two = tpugraphs(trainArgs("resumed.tpgm") << "--epochs" << "1" << "--world-size" << "2");
        QVERIFY2(two.code == 0, qPrintable(two.err));
        Run one = tpugraphs(trainArgs("resumed.tpgm") << "--epochs" << "2" << "--resume");
        QVERIFY2(one.code == 0, qPrintable(one.err));
        QVERIFY2(one.out.contains("resuming after"), qPrintable(one.out));
        QVERIFY(one.out.contains("epoch   2/2"));
        Run three = tpugraphs(trainArgs("resumed.tpgm") << "--epochs" << "3" << "--resume" << "--world-size" << "3");
        QVERIFY2(three.code == 0, qPrintable(three.err));
        QVERIFY2(three.out.contains("replicas bit-identical at all 1 epoch-end checks"), qPrintable(three.out));
    }

    void aKilledWorkerStopsTheLauncherPromptly() {
        QProcess* launcher = startCli(trainArgs("killed.tpgm") << "--minutes" << "2" << "--patience" << "1000"
                                                               << "--world-size" << "2");
        QString seen;
        QVERIFY2(waitForOutput(launcher, "epoch   1", seen), qPrintable(seen));
        const QRegularExpressionMatch m = QRegularExpression("rank 1 pid (\\d+)").match(seen);
        QVERIFY2(m.hasMatch(), qPrintable(seen));
        QElapsedTimer t;
        t.start();
        QCOMPARE(::kill(static_cast<pid_t>(m.captured(1).toLongLong()), SIGKILL), 0);
        const Run r = finish(launcher);
        QVERIFY2(t.elapsed() < 30000, qPrintable(QString::number(t.elapsed())));
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("worker rank 1 was killed by signal 9"), qPrintable(r.err));
    }

    void theOthersNameAWorkerThatDied() {
        const int port = nn::freeLoopbackPort();
        const QStringList args = trainArgs("died.tpgm") << "--minutes" << "2" << "--patience" << "1000";
        QProcess* rank0 = startCli(args, torchrunEnvironment(0, 2, port));
        QProcess* rank1 = startCli(args, torchrunEnvironment(1, 2, port));
        QString seen;
        QVERIFY2(waitForOutput(rank0, "epoch   1", seen), qPrintable(seen));
        QElapsedTimer t;
        t.start();
        rank1->kill();
        finish(rank1);
        const Run r = finish(rank0);
        QVERIFY2(t.elapsed() < 30000, qPrintable(QString::number(t.elapsed())));
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("rank 1 stopped"), qPrintable(r.err));
    }

    void aWorkerAloneSaysWhoNeverCame() {
        const int port = nn::freeLoopbackPort();
        QProcess* rank0 = startCli(trainArgs("alone.tpgm") << "--epochs" << "1" << "--join-seconds" << "2",
                                   torchrunEnvironment(0, 2, port));
        const Run r = finish(rank0);
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("rank 1 of 2 never joined within 2 s"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestNnDistributed)
#include "test_nn_distributed.moc"
