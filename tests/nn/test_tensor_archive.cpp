// The model file's weights formats, without LibTorch: our TensorArchive (round trip, damage,
// truncation, headers that lie under a valid checksum) and the checks run on LibTorch's archives
// of older files before LibTorch reads them.
#include <zip.h>

#include <QtTest>
#include <cstring>
#include <functional>

#include "Crc32.h"
#include "NnLimits.h"
#include "Refusal.h"
#include "TensorArchive.h"
#include "TorchArchiveIntegrity.h"
#include "io/Error.h"

using namespace tpg::nn;

namespace {

std::vector<NamedTensor> sampleTensors() {
    return {{"layers.0.weight", {2, 3}, {1, -2, 3.5f, 0, 1e-30f, -0.0f}},
            {"layers.0.bias", {3}, {0.25f, 0.5f, 0.75f}},
            {"scalar", {}, {42}},
            {"empty", {0, 4}, {}}};
}

// The archive's bytes without magic and checksum, so a test can rewrite fields and re-seal them.
std::string body(const std::string& archive) {
    const size_t magic = std::strlen(kTensorArchiveMagic);
    return archive.substr(magic, archive.size() - magic - 4);
}

std::string seal(const std::string& bodyBytes) {
    std::string out = kTensorArchiveMagic + bodyBytes;
    const uint32_t crc = tpg::nn::crc32Of(out);
    out.append(reinterpret_cast<const char*>(&crc), 4);
    return out;
}

template <typename T>
std::string bytesOf(T v) {
    return std::string(reinterpret_cast<const char*>(&v), sizeof v);
}

// A zip in LibTorch's layout (one top folder with data.pkl), written by libzip to memory.
std::string torchStyleZip(const std::vector<std::pair<std::string, std::string>>& entries) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &err);
    zip_source_keep(buffer);
    zip_t* z = zip_open_from_source(buffer, ZIP_TRUNCATE, &err);
    for (const auto& [name, data] : entries) {
        zip_source_t* s = zip_source_buffer(z, data.data(), data.size(), 0);
        const zip_int64_t i = zip_file_add(z, name.c_str(), s, ZIP_FL_ENC_UTF_8);
        zip_set_file_compression(z, static_cast<zip_uint64_t>(i), ZIP_CM_STORE, 0);
    }
    zip_close(z);
    zip_source_open(buffer);
    zip_source_seek(buffer, 0, SEEK_END);
    const zip_int64_t size = zip_source_tell(buffer);
    zip_source_seek(buffer, 0, SEEK_SET);
    std::string out(static_cast<size_t>(size), '\0');
    zip_source_read(buffer, out.data(), static_cast<zip_uint64_t>(size));
    zip_source_close(buffer);
    zip_source_free(buffer);
    zip_error_fini(&err);
    return out;
}

}  // namespace

class TestTensorArchive : public QObject {
    Q_OBJECT
private slots:
    void roundTripKeepsNamesShapesAndEveryBit() {
        const auto in = sampleTensors();
        const std::string bytes = encodeTensorArchive(in);
        QVERIFY(isTensorArchive(bytes));
        const auto out = decodeTensorArchive(bytes, "m.tpgm", "weights");
        QCOMPARE(out.size(), in.size());
        for (size_t i = 0; i < in.size(); ++i) {
            QCOMPARE(out[i].name, in[i].name);
            QCOMPARE(out[i].shape, in[i].shape);
            QCOMPARE(out[i].values.size(), in[i].values.size());
            QVERIFY(std::memcmp(out[i].values.data(), in[i].values.data(),
                                in[i].values.size() * 4) == 0);
        }
    }

    void everyTruncationIsRefused() {
        const std::string bytes = encodeTensorArchive(sampleTensors());
        for (size_t n = 0; n < bytes.size(); ++n)
            QVERIFY2(
                throwsWith([&] { decodeTensorArchive(bytes.substr(0, n), "m.tpgm", "weights"); },
                           "m.tpgm: key 'weights': "),
                qPrintable(QString::number(n)));
    }

    void everyFlippedBitIsCaughtByTheChecksum() {
        const std::string bytes = encodeTensorArchive(sampleTensors());
        const size_t magic = std::strlen(kTensorArchiveMagic);
        for (size_t at = magic; at < bytes.size(); ++at)
            for (int bit = 0; bit < 8; ++bit) {
                std::string damaged = bytes;
                damaged[at] = static_cast<char>(damaged[at] ^ (1 << bit));
                QVERIFY2(throwsWith([&] { decodeTensorArchive(damaged, "m.tpgm", "weights"); },
                                    "damaged: the checksum does not match"),
                         qPrintable(QString("byte %1 bit %2").arg(at).arg(bit)));
            }
    }

    // Fields that lie under a valid checksum (an edited file) are refused before any allocation.
    void lyingHeadersAreRefusedWithoutAllocating() {
        const std::string huge = bytesOf<uint32_t>(4) + "name" + bytesOf<uint32_t>(2) +
                                 bytesOf<int64_t>(int64_t{1} << 27) +
                                 bytesOf<int64_t>(int64_t{1} << 27);
        QVERIFY(throwsWith(
            [&] { decodeTensorArchive(seal(bytesOf<uint64_t>(1) + huge), "m", "weights"); },
            "tensor 'name' would hold more than"));
        const std::string big = bytesOf<uint32_t>(4) + "name" + bytesOf<uint32_t>(1) +
                                bytesOf<int64_t>(int64_t{1} << 26);
        QVERIFY(throwsWith(
            [&] { decodeTensorArchive(seal(bytesOf<uint64_t>(1) + big), "m", "weights"); },
            "more than the archive's remaining bytes"));
        QVERIFY(throwsWith(
            [&] { decodeTensorArchive(seal(bytesOf<uint64_t>(~uint64_t{0})), "m", "weights"); },
            "tensors (expected at most 4096)"));
        QVERIFY(throwsWith(
            [&] {
                decodeTensorArchive(seal(bytesOf<uint64_t>(1) + bytesOf<uint32_t>(~0u)), "m",
                                    "weights");
            },
            "a tensor name of 4294967295 bytes"));
        const std::string rank = bytesOf<uint32_t>(1) + "x" + bytesOf<uint32_t>(99);
        QVERIFY(throwsWith(
            [&] { decodeTensorArchive(seal(bytesOf<uint64_t>(1) + rank), "m", "weights"); },
            "tensor 'x' has rank 99"));
        const std::string negative =
            bytesOf<uint32_t>(1) + "x" + bytesOf<uint32_t>(1) + bytesOf<int64_t>(-3);
        QVERIFY(throwsWith(
            [&] { decodeTensorArchive(seal(bytesOf<uint64_t>(1) + negative), "m", "weights"); },
            "tensor 'x' has a dimension of -3"));
    }

    void repeatedNamesAndTrailingBytesAreRefused() {
        const std::string one = body(encodeTensorArchive({{"w", {1}, {1}}}));
        const std::string tensor = one.substr(8);
        QVERIFY(throwsWith(
            [&] {
                decodeTensorArchive(seal(bytesOf<uint64_t>(2) + tensor + tensor), "m", "weights");
            },
            "tensor 'w' appears twice"));
        QVERIFY(throwsWith([&] { decodeTensorArchive(seal(one + "x"), "m", "weights"); },
                           "unexpected bytes after the last tensor"));
    }

    // LibTorch 1.13 reads its archives without checking a CRC: a damaged entry loaded wrong
    // weights or crashed its script parser. Older model files get these checks first.
    void torchArchivesAreCheckedEntryByEntry() {
        const std::string zip =
            torchStyleZip({{"archive/data.pkl", std::string(300, 'p')},
                           {"archive/code/__torch__.py", "class Module(Module):\n"},
                           {"archive/data/0", std::string(4096, '\1')}});
        requireIntactTorchArchive(zip, "old.tpgm", "weights");
        const size_t data = zip.find(std::string(64, '\1'));
        QVERIFY(data != std::string::npos);
        std::string damaged = zip;
        damaged[data + 100] = '\2';
        QVERIFY(throwsWith([&] { requireIntactTorchArchive(damaged, "old.tpgm", "weights"); },
                           "old.tpgm: key 'weights': damaged: entry 'archive/data/0'"));
        const size_t code = zip.find("class Module");
        damaged = zip;
        damaged[code] = 'k';
        QVERIFY(throwsWith([&] { requireIntactTorchArchive(damaged, "old.tpgm", "weights"); },
                           "damaged: entry 'archive/code/__torch__.py'"));
        QVERIFY(throwsWith(
            [&] { requireIntactTorchArchive("not a zip at all", "old.tpgm", "weights"); },
            "damaged: not a readable LibTorch archive"));
        QVERIFY(throwsWith(
            [&] {
                requireIntactTorchArchive(zip.substr(0, zip.size() / 2), "old.tpgm", "weights");
            },
            "damaged: not a readable LibTorch archive"));
        QVERIFY(throwsWith(
            [&] {
                requireIntactTorchArchive(torchStyleZip({{"archive/data/0", "x"}}), "old.tpgm",
                                          "weights");
            },
            "no 'archive/data.pkl' entry"));
        QVERIFY(throwsWith(
            [&] {
                requireIntactTorchArchive(
                    torchStyleZip({{"archive/data.pkl", "p"}, {"other/x", "x"}}), "old.tpgm",
                    "weights");
            },
            "entry 'other/x' lies outside 'archive/'"));
    }
};

QTEST_APPLESS_MAIN(TestTensorArchive)
#include "test_tensor_archive.moc"
