#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "io/Error.h"
#include "graph/GraphFile.h"

using namespace tpg;

// Every malformation gets exactly one clear message naming the file, the key and what was
// expected; nothing crashes, aborts or allocates what a lying header claims.
class TestBadInputs : public QObject {
    Q_OBJECT
private slots:
    void refusedWithMessage_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        auto row = [](const char* f, const char* e) { QTest::newRow(f) << QString(f) << QString(e); };
        row("not_a_zip.npz", "not a readable .npz (zip) archive");
        row("empty.npz", "empty file (0 bytes): not a .npz archive");
        row("truncated_zip.npz", "truncated: the zip's central directory is missing");
        row("missing_node_feat.npz", "key 'node_feat': missing");
        row("no_config_keys.npz", "neither 'node_config_feat' (layout) nor 'config_feat' (tile)");
        row("missing_normalizers.npz", "key 'config_runtime_normalizers': missing");
        row("node_feat_1d.npz", "key 'node_feat': expected shape (n, 140), got (1680,)");
        row("opcode_count_mismatch.npz", "key 'node_opcode': expected shape (12,) to match node_feat, got (10,)");
        row("edge_width_3.npz", "key 'edge_index': expected shape (m, 2), got (4, 3)");
        row("edge_out_of_range.npz", "key 'edge_index': value 99 at position 1 outside [0, 12)");
        row("edge_negative.npz", "key 'edge_index': value -1 at position 2 outside [0, 12)");
        row("edge_float.npz", "key 'edge_index': expected an integer dtype, got float32");
        row("duplicate_config_ids.npz", "key 'node_config_ids': node 2 is listed twice");
        row("config_id_out_of_range.npz", "key 'node_config_ids': value 40 at position 2 outside [0, 12)");
        row("config_feat_wrong_nc.npz", "key 'node_config_feat': expected shape (6, 3, 18)");
        row("config_feat_wrong_c.npz", "key 'node_config_feat': expected shape (6, 3, 18)");
        row("config_feat_2d.npz", "key 'node_config_feat': expected shape (c, nc, 18), got (3, 18)");
        row("tile_config_rows.npz", "key 'config_feat': expected 5 rows");
        row("runtime_nan.npz", "key 'config_runtime': value 2 is not finite");
        row("runtime_negative.npz", "key 'config_runtime': value 3 is negative");
        row("runtime_2d.npz", "key 'config_runtime': expected shape (c,), got (2, 3)");
        row("normalizers_short.npz", "key 'config_runtime_normalizers': expected shape (5,) to match config_runtime");
        row("normalizer_zero.npz", "key 'config_runtime_normalizers': value 1 is 0 for a known runtime");
        row("splits_out_of_range.npz", "key 'node_splits': split 60 outside [0, 12]");
        row("splits_bad_shape.npz", "key 'node_splits': expected shape (k,) or (1, k), got (2, 2)");
        row("node_feat_inf.npz", "key 'node_feat': value at node 3 is not finite");
        row("opcode_negative.npz", "key 'node_opcode': node 0 has opcode -3");
        row("pickled_object.npz", "key 'node_opcode': pickled Python objects are not supported");
        row("complex_dtype.npz", "key 'node_feat': unsupported dtype '<c8'");
        row("string_dtype.npz", "key 'node_opcode': unsupported dtype '<U4'");
        row("structured_dtype.npz", "key 'node_opcode': structured dtypes are not supported");
        row("entry_not_npy.npz", "key 'node_feat': not a numpy .npy array");
        row("npy_version_9.npz", "key 'node_feat': unsupported .npy format version 9.0");
        row("npy_header_malformed.npz", "key 'node_feat': malformed .npy header");
        row("lying_shape.npz", "key 'node_feat': header says float32 (1000000000000, 140)");
        row("lying_header_length.npz", "key 'node_feat': .npy header claims 4294967280 bytes");
        row("overflowing_shape.npz", "key 'node_feat': shape dimension too large");
        row("deflate_bomb_claim.npz", "key 'node_opcode': entry claims 4294967040 bytes from");
        row("corrupt_deflate.npz", "key 'node_feat': corrupt data");
        row("layout_config_99.npz",
            "key 'node_config_feat': configuration 4, configurable node 1, feature 7 holds 99 "
            "(expected a layout value: a whole number from -1 to 5)");
        row("layout_config_half_fortran.npz",
            "key 'node_config_feat': configuration 5, configurable node 2, feature 17 holds 0.5 "
            "(expected a layout value");
        row("tile_config_inf.npz",
            "key 'config_feat': configuration 3, column output_bounds_1 holds inf (expected a tile "
            "size, sum or product");
        row("tile_config_negative.npz",
            "key 'config_feat': configuration 1, column kernel_bounds_0 holds -4");
    }
    void refusedWithMessage() {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        const std::string path = std::string(TPG_FIXTURE_DIR) + "/bad/" + file.toStdString();
        QString msg;
        try {
            auto g = loadTpuGraph(path, LoadOptions{false});
        } catch (const FormatError& e) {
            msg = QString::fromStdString(e.what());
        }
        QVERIFY2(!msg.isEmpty(), "the file was accepted");
        QVERIFY2(msg.startsWith(QString::fromStdString(path) + ": "), qPrintable(msg));
        QVERIFY2(msg.contains(expected), qPrintable(msg));
        QVERIFY2(!msg.contains('\n'), "one line");
    }
    // A stored config tensor is read on demand: the file opens, and the first read of the bad
    // configuration is refused (never a NaN handed to the model).
    void aStoredBadConfigValueIsRefusedWhenRead() {
        const std::string path = std::string(TPG_FIXTURE_DIR) + "/bad/layout_config_nan_stored.npz";
        const TpuGraph g = loadTpuGraph(path, LoadOptions{false});
        QCOMPARE(g.layoutConfigs()->mode(), LayoutConfigTable::Mode::OnDemand);
        QCOMPARE(g.layoutConfigs()->config(1).size(), size_t{54});
        QString msg;
        try {
            g.layoutConfigs()->config(2);
        } catch (const FormatError& e) {
            msg = QString::fromStdString(e.what());
        }
        QCOMPARE(msg, QString::fromStdString(path) +
                          ": key 'node_config_feat': configuration 2, configurable node 0, feature "
                          "3 holds nan "
                          "(expected a layout value: a whole number from -1 to 5)");
        QVERIFY_THROWS_EXCEPTION(FormatError, g.layoutConfigs()->readColumns(0, 18));
        QCOMPARE(g.layoutConfigs()->readColumns(18, 18).size(), size_t{6 * 18});
    }
    // Files that are not archives at all say what they are: empty, cut short, a lone .npy, a
    // folder.
    void emptyTruncatedAndNpyFilesSaySo() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto write = [&](const QString& name, const QByteArray& bytes) {
            QFile f(dir.filePath(name));
            if (!f.open(QIODevice::WriteOnly)) return std::string();
            f.write(bytes);
            return dir.filePath(name).toStdString();
        };
        QFile good(QString::fromStdString(std::string(TPG_FIXTURE_DIR) + "/good/layout_c_order.npz"));
        QVERIFY2(good.open(QIODevice::ReadOnly), qPrintable(good.fileName()));
        const QByteArray whole = good.readAll();
        const std::pair<std::string, QString> cases[] = {
            {write(QStringLiteral("empty.npz"), QByteArray()),
             QStringLiteral("empty file (0 bytes)")},
            {write(QStringLiteral("half.npz"), whole.left(whole.size() / 2)),
             QStringLiteral(
                 "truncated: the zip's central directory is missing (the file has %1 bytes")
                 .arg(whole.size() / 2)},
            {write(QStringLiteral("array.npz"),
                   QByteArray("\x93NUMPY\x01\x00", 8) + QByteArray(120, ' ')),
             QStringLiteral("a single .npy array")},
            // libzip had said "not a readable .npz (zip) archive: Operation not supported".
            {dir.path().toStdString(), QStringLiteral("a folder, not a .npz file")}};
        for (const auto& [path, expected] : cases) {
            QVERIFY(!path.empty());
            try {
                loadTpuGraph(path);
                QFAIL("accepted");
            } catch (const FormatError& e) {
                const QString msg = QString::fromStdString(e.what());
                QVERIFY2(msg.startsWith(QString::fromStdString(path) + ": ") && msg.contains(expected), qPrintable(msg));
            }
        }
    }

    void missingFileIsAClearMessage() {
        try {
            loadTpuGraph("/nonexistent/graph.npz");
            QFAIL("accepted a missing file");
        } catch (const FormatError& e) {
            QVERIFY(QString(e.what()).startsWith("/nonexistent/graph.npz: cannot open file"));
        }
    }
};

QTEST_GUILESS_MAIN(TestBadInputs)
#include "test_bad_inputs.moc"
