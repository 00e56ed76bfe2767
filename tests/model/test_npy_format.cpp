#include <QtTest>

#include <cstring>

#include "io/CompactMatrix.h"
#include "io/Error.h"
#include "io/NpyFormat.h"

using namespace tpg;

namespace {

std::vector<uint8_t> rawHeader(int major, const std::string& dict) {
    std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
    const auto len = static_cast<uint32_t>(dict.size());
    out.push_back(len & 0xff);
    out.push_back((len >> 8) & 0xff);
    if (major >= 2) {
        out.push_back((len >> 16) & 0xff);
        out.push_back((len >> 24) & 0xff);
    }
    out.insert(out.end(), dict.begin(), dict.end());
    return out;
}

NpyHeader parse(const std::vector<uint8_t>& b) { return parseNpyHeader(b.data(), b.size(), "t.npy"); }

QString refusal(const std::vector<uint8_t>& b) {
    try {
        parse(b);
    } catch (const FormatError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace

class TestNpyFormat : public QObject {
    Q_OBJECT
private slots:
    void parsesEveryVersion_data() {
        QTest::addColumn<int>("major");
        QTest::newRow("1.0") << 1;
        QTest::newRow("2.0") << 2;
        QTest::newRow("3.0") << 3;
    }
    void parsesEveryVersion() {
        QFETCH(int, major);
        auto h = parse(rawHeader(major, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }\n"));
        QCOMPARE(h.dtype, DType::I64);
        QCOMPARE(h.shape, (std::vector<int64_t>{3, 4}));
        QCOMPARE(h.elementCount(), uint64_t{12});
        QCOMPARE(h.dataBytes(), uint64_t{96});
        QCOMPARE(h.majorVersion, major);
    }
    void parsesScalarsAndPython2Longs() {
        auto h = parse(rawHeader(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }"));
        QCOMPARE(h.elementCount(), uint64_t{1});
        QCOMPARE(QString::fromStdString(h.shapeString()), QString("()"));
        h = parse(rawHeader(1, "{'shape': (5L,), 'fortran_order': False, 'descr': '>f8'}"));
        QCOMPARE(h.dtype, DType::F64);
        QVERIFY(h.bigEndian);
        QCOMPARE(QString::fromStdString(h.shapeString()), QString("(5,)"));
    }
    void everyDtype_data() {
        QTest::addColumn<QString>("descr");
        QTest::addColumn<int>("dtype");
        QTest::newRow("bool") << "|b1" << int(DType::Bool);
        QTest::newRow("i1") << "|i1" << int(DType::I8);
        QTest::newRow("i2") << "<i2" << int(DType::I16);
        QTest::newRow("i4") << "<i4" << int(DType::I32);
        QTest::newRow("i8") << "<i8" << int(DType::I64);
        QTest::newRow("u1") << "|u1" << int(DType::U8);
        QTest::newRow("u2") << "<u2" << int(DType::U16);
        QTest::newRow("u4") << "<u4" << int(DType::U32);
        QTest::newRow("u8") << "<u8" << int(DType::U64);
        QTest::newRow("f2") << "<f2" << int(DType::F16);
        QTest::newRow("f4") << "<f4" << int(DType::F32);
        QTest::newRow("f8") << "<f8" << int(DType::F64);
    }
    void everyDtype() {
        QFETCH(QString, descr);
        QFETCH(int, dtype);
        auto h = parse(rawHeader(1, "{'descr': '" + descr.toStdString() + "', 'fortran_order': False, 'shape': (2,), }"));
        QCOMPARE(int(h.dtype), dtype);
        QCOMPARE(QString::fromStdString(dtypeDescr(h.dtype)).mid(1), descr.mid(1));
    }
    void refusals_data() {
        QTest::addColumn<QString>("dict");
        QTest::addColumn<QString>("expected");
        QTest::newRow("object") << "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }" << "pickled";
        QTest::newRow("complex") << "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }" << "unsupported dtype '<c8'";
        QTest::newRow("unicode") << "{'descr': '<U4', 'fortran_order': False, 'shape': (2,), }" << "unsupported dtype";
        QTest::newRow("structured") << "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,), }" << "structured";
        QTest::newRow("not a dict") << "[1, 2, 3]" << "header dict";
        QTest::newRow("missing shape") << "{'descr': '<f4', 'fortran_order': False, }" << "must have";
        QTest::newRow("negative dim") << "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }" << "non-negative";
        QTest::newRow("overflow") << "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }" << "impossibly large";
        QTest::newRow("unterminated") << "{'descr': '<f4" << "unterminated";
    }
    void refusals() {
        QFETCH(QString, dict);
        QFETCH(QString, expected);
        const QString msg = refusal(rawHeader(1, dict.toStdString()));
        QVERIFY2(msg.contains(expected), qPrintable(msg));
        QVERIFY2(msg.startsWith("t.npy: "), qPrintable(msg));
    }
    void refusesBadMagicVersionAndLength() {
        std::vector<uint8_t> junk(16, 'x');
        QVERIFY(refusal(junk).contains("magic"));
        auto v9 = rawHeader(1, "{}");
        v9[6] = 9;
        QVERIFY(refusal(v9).contains("version 9.0"));
        auto huge = rawHeader(2, "{}");
        huge[11] = 0x7f;  // header length ~2 GB
        QVERIFY(refusal(huge).contains("header claims"));
    }
    void writtenHeadersRoundTripAligned() {
        for (auto shape : {std::vector<int64_t>{}, {7}, {3, 140}, {100000, 500, 18}}) {
            auto b = makeNpyHeader(DType::F32, shape);
            QCOMPARE(b.size() % 64, size_t{0});
            auto h = parse(b);
            QCOMPARE(h.shape, shape);
            QCOMPARE(h.headerBytes, b.size());
        }
    }
    void convertsBigEndianAndHalf() {
        const uint8_t be[] = {0, 0, 0, 0, 0, 0, 1, 2};  // >i8 258
        int64_t v = 0;
        convertToInt64(be, DType::I64, true, 1, &v);
        QCOMPARE(v, int64_t{258});
        QCOMPARE(halfToFloat(0x3c00), 1.0f);
        QCOMPARE(halfToFloat(0xc000), -2.0f);
        QCOMPARE(halfToFloat(0x0001), std::ldexp(1.0f, -24));
        QVERIFY(std::isinf(halfToFloat(0x7c00)));
        const uint8_t u8[] = {255, 0, 7};
        float f[3];
        convertToFloat(u8, DType::U8, false, 3, f);
        QCOMPARE(f[0], 255.0f);
        QCOMPARE(f[2], 7.0f);
    }
    void compactMatrixPicksTheSmallestEncoding() {
        CompactMatrix m(5);
        const float small[] = {-1, 0, 1, 2, 5, 5, 4, 3, -1, 0};
        m.appendRows(small, 2);
        QCOMPARE(m.encoding(), CompactMatrix::Encoding::Nibble);
        const float mid[] = {-100, 0, 1, 2, 100};
        m.appendRows(mid, 1);
        QCOMPARE(m.encoding(), CompactMatrix::Encoding::Int8);
        const float frac[] = {0.5f, 0, 1, 2, 1000};
        m.appendRows(frac, 1);
        QCOMPARE(m.encoding(), CompactMatrix::Encoding::Float32);
        float out[20];
        m.readRows(0, 4, out);
        QCOMPARE(std::memcmp(out, small, sizeof small), 0);
        QCOMPARE(std::memcmp(out + 10, mid, sizeof mid), 0);
        QCOMPARE(std::memcmp(out + 15, frac, sizeof frac), 0);
        QCOMPARE(m.rowHash(0) == m.rowHash(1), false);
        m.appendRows(small, 1);
        QVERIFY(m.rowHash(0) == m.rowHash(4));
    }
    void fortranOrderIsReadAsNumpyDoes() {
        auto h = parse(rawHeader(1, "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3, 4), }"));
        QVERIFY(h.fortranOrder);
        // Column-major (2, 3, 4): source offset i + 2 * (j + 3 * k) holds the value 100i + 10j + k.
        std::vector<int16_t> src(24);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < 4; ++k) src[i + 2 * (j + 3 * k)] = static_cast<int16_t>(100 * i + 10 * j + k);
        auto bytes = fortranToCOrder(reinterpret_cast<const uint8_t*>(src.data()), h.shape, 2);
        std::vector<int16_t> c(24);
        std::memcpy(c.data(), bytes.data(), bytes.size());
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < 4; ++k) QCOMPARE(c[(i * 3 + j) * 4 + k], static_cast<int16_t>(100 * i + 10 * j + k));
        // Rank 0 and 1, and empty arrays, are their own C order.
        const int16_t one[] = {7, 8, 9};
        auto same = fortranToCOrder(reinterpret_cast<const uint8_t*>(one), {3}, 2);
        QCOMPARE(std::memcmp(same.data(), one, 6), 0);
        QCOMPARE(fortranToCOrder(nullptr, {0, 5}, 4).size(), size_t{0});
        QCOMPARE(fortranToCOrder(reinterpret_cast<const uint8_t*>(one), {}, 2).size(), size_t{2});
    }
    void compactMatrixFillsByColumns() {
        // 3 rows x 4 columns, written in two blocks of columns out of order, widening on the way.
        CompactMatrix m(4);
        m.resizeRows(3);
        const int64_t first[] = {2, 0};
        const float a[] = {1, 2, 3, /* column 0: */ -1, 0, 4};
        m.writeColumns(first, 2, a);
        QCOMPARE(m.encoding(), CompactMatrix::Encoding::Nibble);
        const int64_t second[] = {3, 1};
        const float b[] = {5, 6, 7, /* column 1: */ 200.5f, 0, 1};
        m.writeColumns(second, 2, b);
        QCOMPARE(m.encoding(), CompactMatrix::Encoding::Float32);
        float out[12];
        m.readRows(0, 3, out);
        const float expected[] = {-1, 200.5f, 1, 5, 0, 0, 2, 6, 4, 1, 3, 7};
        QCOMPARE(std::memcmp(out, expected, sizeof expected), 0);
        // Equal rows hash equal whichever way they were filled.
        CompactMatrix byRows(4);
        byRows.appendRows(expected, 3);
        QVERIFY(byRows.rowHash(2) == m.rowHash(2));
    }
    void nibblePackingIsAnEighthOfFloat() {
        CompactMatrix m(18 * 500);
        m.reserveRows(100);
        std::vector<float> row(18 * 500, 3.0f);
        for (int i = 0; i < 100; ++i) m.appendRows(row.data(), 1);
        QCOMPARE(m.residentBytes(), size_t{100 * 18 * 500 / 2});
    }
};

QTEST_GUILESS_MAIN(TestNpyFormat)
#include "test_npy_format.moc"
