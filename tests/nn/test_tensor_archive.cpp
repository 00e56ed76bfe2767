// The model file's weights formats, without LibTorch: our TensorArchive (round trip, damage,
// truncation, headers that lie under a valid checksum) and our reader of LibTorch's archives of
// older files (the zip's checks, and pickles as LibTorch writes them, intact and edited).
#include <zip.h>

#include <QtTest>
#include <cstring>
#include <functional>
#include <limits>

#include "Crc32.h"
#include "NnLimits.h"
#include "Refusal.h"
#include "TensorArchive.h"
#include "TorchArchiveReader.h"
#include "io/Error.h"

using namespace tpg::nn;
using namespace std::string_literals;

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

// Pickle pieces as LibTorch 1.13 writes a module's data.pkl (protocol 2).
std::string unicode(const std::string& s) {
    return "X" + bytesOf<uint32_t>(s.size()) + s;
}

std::string tuple(const std::vector<int64_t>& values) {
    std::string out = "(";
    for (const int64_t v : values) out += "J" + bytesOf<int32_t>(static_cast<int32_t>(v));
    return out + "t";
}

// A tensor of `sizes` and `strides` viewing storage `key` of `count` values from `offset`.
std::string tensorPickle(const std::string& key, int64_t count, const std::vector<int64_t>& sizes,
                         const std::vector<int64_t>& strides, int64_t offset = 0,
                         const std::string& type = "FloatStorage") {
    return "ctorch._utils\n_rebuild_tensor_v2\n((" + unicode("storage") + "ctorch\n" + type + "\n" +
           unicode(key) + unicode("cpu") + "J" + bytesOf<int32_t>(static_cast<int32_t>(count)) +
           "tQJ" + bytesOf<int32_t>(static_cast<int32_t>(offset)) + tuple(sizes) + tuple(strides) +
           "\x89"
           "ccollections\nOrderedDict\n)RtR";
}

// A module whose attributes are `attributes`: name, value, name, value, ... already pickled.
std::string modulePickle(const std::string& attributes) {
    return "c__torch__\nModule\n)\x81}(" + attributes + "ub";
}

std::string floats(const std::vector<float>& values) {
    return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

// A model archive: data.pkl over storages data/0 ... as LibTorch lays them out.
std::string moduleArchive(const std::string& pickle, const std::vector<std::string>& storages) {
    std::vector<std::pair<std::string, std::string>> entries{
        {"archive/data.pkl", "\x80\x02" + pickle + "."},
        {"archive/code/__torch__.py", "class Module(Module):\n"},
        {"archive/version", "3\n"}};
    for (size_t i = 0; i < storages.size(); ++i)
        entries.emplace_back("archive/data/" + std::to_string(i), storages[i]);
    return torchStyleZip(entries);
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
            // Bit for bit (NaN payloads too); memcmp must not see an empty vector's null data().
            QVERIFY(in[i].values.empty() || std::memcmp(out[i].values.data(), in[i].values.data(),
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
    // weights or crashed its script parser. Our reader checks every entry first.
    void torchArchivesAreCheckedEntryByEntry() {
        const std::string zip =
            moduleArchive(modulePickle(unicode("w") + tensorPickle("0", 1024, {1024}, {1})),
                          {std::string(4096, '\1')});
        QCOMPARE(readTorchArchive(zip, "old.tpgm", "weights").tensors.size(), size_t{1});
        const size_t data = zip.find(std::string(64, '\1'));
        QVERIFY(data != std::string::npos);
        std::string damaged = zip;
        damaged[data + 100] = '\2';
        QVERIFY(throwsWith([&] { readTorchArchive(damaged, "old.tpgm", "weights"); },
                           "old.tpgm: key 'weights': damaged: entry 'archive/data/0'"));
        const size_t code = zip.find("class Module");
        damaged = zip;
        damaged[code] = 'k';
        QVERIFY(throwsWith([&] { readTorchArchive(damaged, "old.tpgm", "weights"); },
                           "damaged: entry 'archive/code/__torch__.py'"));
        QVERIFY(throwsWith([&] { readTorchArchive("not a zip at all", "old.tpgm", "weights"); },
                           "damaged: not a readable LibTorch archive"));
        QVERIFY(throwsWith(
            [&] { readTorchArchive(zip.substr(0, zip.size() / 2), "old.tpgm", "weights"); },
            "damaged: not a readable LibTorch archive"));
        QVERIFY(throwsWith(
            [&] {
                readTorchArchive(torchStyleZip({{"archive/data/0", "x"}}), "old.tpgm", "weights");
            },
            "no 'archive/data.pkl' entry"));
        QVERIFY(throwsWith(
            [&] {
                readTorchArchive(torchStyleZip({{"archive/data.pkl", "p"}, {"other/x", "x"}}),
                                 "old.tpgm", "weights");
            },
            "entry 'other/x' lies outside 'archive/'"));
    }

    // What LibTorch pickles for a module: tensors by attribute path (submodules dot-joined, as
    // named_parameters names them), each gathered through its sizes and strides, converted to
    // float; whole numbers and text beside them (Adam's step counts, its parameters' ids).
    void torchArchivesReadAsLibTorchWroteThem() {
        const std::string pickle = modulePickle(
            unicode("weight") + tensorPickle("0", 6, {2, 3}, {1, 2}) +  // a transposed view
            unicode("layers") +
            modulePickle(
                unicode("0") +
                modulePickle(unicode("bias") + tensorPickle("1", 4, {2}, {2}, 1, "LongStorage"))) +
            unicode("step") + "K\x07" + unicode("id") + unicode("0x55d0") + unicode("lr") + "G" +
            std::string(8, '\0') + unicode("scalar") + tensorPickle("0", 6, {}, {}, 5));
        const std::vector<int64_t> longs{10, 11, -12, 13};
        const TorchArchiveContents c = readTorchArchive(
            moduleArchive(pickle, {floats({0, 1, 2, 3, 4, 5}),
                                   std::string(reinterpret_cast<const char*>(longs.data()), 32)}),
            "old.tpgm", "weights");
        QCOMPARE(c.tensors.size(), size_t{3});
        const NamedTensor& w = c.tensors.at("weight");
        QCOMPARE(w.name, std::string("weight"));
        QCOMPARE(w.shape, (std::vector<int64_t>{2, 3}));
        QCOMPARE(w.values, (std::vector<float>{0, 2, 4, 1, 3, 5}));
        QCOMPARE(c.tensors.at("layers.0.bias").values, (std::vector<float>{11, 13}));
        QCOMPARE(c.tensors.at("scalar").values, (std::vector<float>{5}));
        QVERIFY(c.tensors.at("scalar").shape.empty());
        QCOMPARE(c.integers.at("step"), int64_t{7});
        QCOMPARE(c.strings.at("id"), std::string("0x55d0"));
        QVERIFY(c.integers.count("lr") == 0);  // a float: nothing of ours reads one
    }

    // An archive edited with valid CRCs reached LibTorch's reader, which trusted it: a storage
    // cut short crashed `train --resume` (segmentation fault). Each lie is refused, named.
    void editedTorchArchivesAreRefused() {
        auto read = [](const std::string& pickle, const std::vector<std::string>& storages) {
            return
                [=] { readTorchArchive(moduleArchive(pickle, storages), "old.state", "weights"); };
        };
        const std::string six = floats({0, 1, 2, 3, 4, 5});
        const std::string w = unicode("w");
        QVERIFY(
            throwsWith(read(modulePickle(w + tensorPickle("0", 6, {6}, {1})), {six.substr(0, 8)}),
                       "entry 'archive/data/0' holds 8 bytes, where data.pkl gives it 6 values "
                       "of 4 bytes"));
        QVERIFY(throwsWith(read(modulePickle(w + tensorPickle("0", 6, {3, 3}, {3, 1})), {six}),
                           "a tensor of storage 'archive/data/0' (6 values) reads element 8"));
        QVERIFY(throwsWith(read(modulePickle(w + tensorPickle("0", 6, {2}, {1}, 5)), {six}),
                           "reads element 6"));
        std::string farOffset = tensorPickle("0", 6, {2}, {1});  // an offset of 2^63 - 1
        const std::string zeroOffset = "tQJ" + bytesOf<int32_t>(0);
        farOffset.replace(farOffset.find(zeroOffset), zeroOffset.size(),
                          "tQ\x8a\x08" + bytesOf<int64_t>(std::numeric_limits<int64_t>::max()));
        QVERIFY(throwsWith(read(modulePickle(w + farOffset), {six}),
                           "(6 values) starts at element 9223372036854775807"));
        QVERIFY(throwsWith(read(modulePickle(w + tensorPickle("1", 6, {6}, {1})), {six}),
                           "storage 'archive/data/1' is missing"));
        QVERIFY(throwsWith(
            read(modulePickle(w + tensorPickle("0", 6, {2}, {1}, 0, "HalfStorage")), {six}),
            "calls 'torch HalfStorage'"));
        QVERIFY(throwsWith(read("cos\nsystem\n(" + unicode("ls") + "tR", {}),
                           "data.pkl calls 'os system', which no cost model's archive holds"));
        QVERIFY(throwsWith(read(modulePickle(w + "\x95"), {}), "pickle opcode 0x95"));
        QVERIFY(throwsWith(read(modulePickle(w + "h\x09"), {}), "memo entry 9, never stored"));
        QVERIFY(throwsWith(read(modulePickle(w + "X\xff\xff\xff\x7f"), {}),
                           "data.pkl ends inside an opcode"));
        QVERIFY(throwsWith(read("K\x01", {}), "data.pkl holds no module at its top"));
        QVERIFY(throwsWith(read("u", {}), "closes a MARK it never opened"));
        // A module that is its own attribute (a cycle through the memo), and one at two places.
        QVERIFY(throwsWith(read("c__torch__\nModule\n)\x81q\x00}("s + w + "h\x00ub"s, {}),
                           "one module at two places"));
        const std::string shared = "c__torch__\nModule\n)\x81q\x00}b"s;
        QVERIFY(throwsWith(read(modulePickle(unicode("a") + shared + unicode("b") + "h\x00"s), {}),
                           "one module at two places"));
        QVERIFY(
            throwsWith(read(modulePickle(w + "K\x01" + w + "K\x02"), {}), "attribute 'w' twice"));
        // One storage read through many tensors: no more values than the file holds bytes, twice.
        std::string many;
        for (int i = 0; i < 5; ++i)
            many += unicode("t" + std::to_string(i)) + tensorPickle("0", 6, {6}, {1});
        QVERIFY(throwsWith(read(modulePickle(many), {six}),
                           "tensors hold more values than its storages hold bytes"));
        std::string deep = modulePickle(w + "K\x01");
        for (int i = 0; i < 40; ++i) deep = modulePickle(unicode("m").append(deep));
        QVERIFY(throwsWith(read(deep, {}), "nests modules more than"));
    }

    // The pickle step alone (the fuzz harness's way in) reads as the whole archive does, and keeps
    // its size limit: a data.pkl of more than 1 MiB is refused, zipped or not.
    void aPickleAloneReadsAsItsArchive() {
        const std::string six = floats({0, 1, 2, 3, 4, 5});
        const std::string pickle = modulePickle(unicode("w") + tensorPickle("0", 6, {2, 3}, {3, 1}));
        TorchArchiveEntries entries{"archive", "\x80\x02" + pickle + ".", {{"0", six}}};
        const TorchArchiveContents alone = readTorchPickle(entries, "old.tpgm", "weights");
        const TorchArchiveContents zipped =
            readTorchArchive(moduleArchive(pickle, {six}), "old.tpgm", "weights");
        QCOMPARE(alone.tensors.at("w").values, zipped.tensors.at("w").values);
        QCOMPARE(alone.tensors.at("w").shape, (std::vector<int64_t>{2, 3}));
        const std::string large = modulePickle(
            unicode("w") + unicode(std::string(limits::kMaxTorchPickleBytes, 'x')));
        entries.pickle = "\x80\x02" + large + ".";
        const char* expected = "damaged: 'archive/data.pkl' holds 1048614 bytes, far more than";
        QVERIFY(throwsWith([&] { readTorchPickle(entries, "old.tpgm", "weights"); }, expected));
        QVERIFY(throwsWith(
            [&] { readTorchArchive(moduleArchive(large, {}), "old.tpgm", "weights"); }, expected));
    }
};

QTEST_APPLESS_MAIN(TestTensorArchive)
#include "test_tensor_archive.moc"
