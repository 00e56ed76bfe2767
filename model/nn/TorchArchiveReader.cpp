#include "TorchArchiveReader.h"

#include <zip.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <set>
#include <string_view>
#include <vector>

#include "NnLimits.h"
#include "io/Error.h"

namespace tpg::nn {

namespace {

struct ZipCloser {
    void operator()(zip_t* z) const { zip_discard(z); }
};
struct ZipFileCloser {
    void operator()(zip_file_t* f) const { zip_fclose(f); }
};

std::string hexByte(uint8_t v) {
    const char* digits = "0123456789abcdef";
    return {digits[v >> 4], digits[v & 15]};
}

// Text from the file for a message: bytes outside printable ASCII as \xNN.
std::string printable(const std::string& text) {
    std::string out;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        out += u >= 0x20 && u < 0x7f ? std::string(1, c) : "\\x" + hexByte(u);
    }
    return out;
}

std::unique_ptr<zip_t, ZipCloser> openFromMemory(const std::string& bytes, const std::string& label,
                                                 const std::string& key) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
    zip_t* archive =
        source ? zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &err) : nullptr;
    if (!archive) {
        const std::string why = zip_error_strerror(&err);
        zip_error_fini(&err);
        if (source) zip_source_free(source);
        throwFormatError(label, key, "damaged: not a readable LibTorch archive (" + why + ")");
    }
    zip_error_fini(&err);
    return std::unique_ptr<zip_t, ZipCloser>(archive);
}

// Reads one entry to its end, which makes libzip compare its CRC-32; keeps the bytes in `kept`
// when given. Returns the number of bytes read.
uint64_t readWholeEntry(zip_t* archive, zip_uint64_t index, const std::string& name,
                        uint64_t budget, std::string* kept, const std::string& label,
                        const std::string& key) {
    std::unique_ptr<zip_file_t, ZipFileCloser> entry(zip_fopen_index(archive, index, 0));
    if (!entry)
        throwFormatError(
            label, key,
            "damaged: entry '" + name + "' cannot be opened (" + zip_strerror(archive) + ")");
    std::array<char, size_t{64} << 10> chunk{};
    uint64_t total = 0;
    for (;;) {
        const zip_int64_t got = zip_fread(entry.get(), chunk.data(), chunk.size());
        if (got < 0)
            throwFormatError(
                label, key,
                "damaged: entry '" + name + "' (" + zip_file_strerror(entry.get()) + ")");
        if (got == 0) return total;
        total += static_cast<uint64_t>(got);
        if (total > budget)
            throwFormatError(label, key,
                             "unpacks to more than " +
                                 std::to_string(limits::kMaxWeightsArchiveBytes >> 20) +
                                 " MiB, far more than any cost model");
        if (kept) kept->append(chunk.data(), static_cast<size_t>(got));
    }
}

TorchArchiveEntries readEntries(const std::string& bytes, const std::string& label,
                                const std::string& key) {
    auto archive = openFromMemory(bytes, label, key);
    const zip_int64_t n = zip_get_num_entries(archive.get(), 0);
    if (n <= 0) throwFormatError(label, key, "damaged: an empty archive");
    TorchArchiveEntries entries;
    bool hasPickle = false;
    uint64_t unpacked = 0;
    for (zip_int64_t i = 0; i < n; ++i) {
        const auto index = static_cast<zip_uint64_t>(i);
        const char* raw = zip_get_name(archive.get(), index, 0);
        const std::string name = printable(raw ? raw : "");
        const size_t slash = name.find('/');
        if (slash == std::string::npos || slash == 0)
            throwFormatError(label, key,
                             "damaged: entry '" + name + "' lies outside the archive's folder");
        if (entries.folder.empty()) entries.folder = name.substr(0, slash);
        if (name.compare(0, slash, entries.folder) != 0 || slash != entries.folder.size())
            throwFormatError(
                label, key, "damaged: entry '" + name + "' lies outside '" + entries.folder + "/'");
        const std::string inside = name.substr(slash + 1);
        std::string* kept = nullptr;
        if (inside == "data.pkl") {
            if (hasPickle) throwFormatError(label, key, "damaged: two '" + name + "' entries");
            hasPickle = true;
            kept = &entries.pickle;
        } else if (inside.rfind("data/", 0) == 0) {
            kept = &entries.storages[inside.substr(5)];
        }
        unpacked += readWholeEntry(archive.get(), index, name,
                                   limits::kMaxWeightsArchiveBytes - unpacked, kept, label, key);
    }
    if (!hasPickle)
        throwFormatError(label, key, "damaged: no '" + entries.folder + "/data.pkl' entry");
    return entries;
}

// The element types of LibTorch's storages, as its pickles name them ("torch FloatStorage").
enum class Element : uint8_t { Float, Double, Long, Int, Short, Char, Byte, Bool };
struct StorageType {
    const char* global;
    Element element;
    int bytes;
};
constexpr std::array<StorageType, 8> kStorageTypes{{{"torch FloatStorage", Element::Float, 4},
                                                    {"torch DoubleStorage", Element::Double, 8},
                                                    {"torch LongStorage", Element::Long, 8},
                                                    {"torch IntStorage", Element::Int, 4},
                                                    {"torch ShortStorage", Element::Short, 2},
                                                    {"torch CharStorage", Element::Char, 1},
                                                    {"torch ByteStorage", Element::Byte, 1},
                                                    {"torch BoolStorage", Element::Bool, 1}}};

template <typename T>
float elementOf(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<float>(v);
}

float elementAt(const char* p, Element e) {
    switch (e) {
        case Element::Float:
            return elementOf<float>(p);
        case Element::Double:
            return elementOf<double>(p);
        case Element::Long:
            return elementOf<int64_t>(p);
        case Element::Int:
            return elementOf<int32_t>(p);
        case Element::Short:
            return elementOf<int16_t>(p);
        case Element::Char:
            return elementOf<int8_t>(p);
        case Element::Byte:
            return elementOf<uint8_t>(p);
        case Element::Bool:
            return *p != 0 ? 1.0F : 0.0F;
    }
    return 0;
}

constexpr std::string_view kRebuildTensor = "torch._utils _rebuild_tensor_v2";
constexpr std::string_view kOrderedDict = "collections OrderedDict";
constexpr std::string_view kModuleClassPrefix = "__torch__";

// A pickle machine for the opcodes LibTorch 1.13's pickler writes for modules (protocol 2). Its
// values live in one vector and refer to each other by index, so a pickle whose memo makes a
// dict hold itself cannot make a reference cycle.
class ModulePickle {
public:
    ModulePickle(const TorchArchiveEntries& entries, std::string label, std::string key)
        : m_entries(entries), m_label(std::move(label)), m_key(std::move(key)) {
        for (const auto& [name, bytes] : entries.storages)
            m_valueBudget += 2 * static_cast<int64_t>(bytes.size());
    }

    TorchArchiveContents read() {
        const size_t top = run();
        if (m_values[top].kind != Kind::Object) fail("data.pkl holds no module at its top");
        TorchArchiveContents out;
        collect(top, "", 0, out);
        return out;
    }

private:
    enum class Kind : uint8_t {
        None,
        Bool,
        Int,
        Float,
        String,
        Tuple,
        List,
        Dict,
        Object,
        Global,
        Storage,
        Tensor
    };
    struct Value {
        Kind kind = Kind::None;
        int64_t integer = 0;  // Int, Bool; Storage: its element count; Object: 1 once built
        std::string text;     // String; Global: "module name"; Object: its class; Storage: its key
        std::vector<size_t> items;  // Tuple, List; Dict: key, value, key, value, ...
        // Storage: its type in kStorageTypes; Tensor: in m_tensors; Object: its dict
        size_t index = 0;
    };

    [[noreturn]] void fail(const std::string& what) const {
        throwFormatError(m_label, m_key, "damaged: " + what);
    }

    size_t push(Value v) {
        m_values.push_back(std::move(v));
        m_stack.push_back(m_values.size() - 1);
        return m_values.size() - 1;
    }
    size_t pop() {
        if (m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back()))
            fail("data.pkl takes a value from an empty stack at byte " + std::to_string(m_at));
        const size_t v = m_stack.back();
        m_stack.pop_back();
        return v;
    }
    Value& top() {
        if (m_stack.empty()) fail("data.pkl uses an empty stack at byte " + std::to_string(m_at));
        return m_values[m_stack.back()];
    }
    // The values pushed since the last MARK, which is dropped.
    std::vector<size_t> popToMark() {
        if (m_marks.empty()) fail("data.pkl closes a MARK it never opened");
        const size_t from = m_marks.back();
        m_marks.pop_back();
        std::vector<size_t> items(m_stack.begin() + static_cast<std::ptrdiff_t>(from),
                                  m_stack.end());
        m_stack.resize(from);
        return items;
    }

    const char* take(size_t n) {
        const std::string& p = m_entries.pickle;
        if (n > p.size() - m_at) fail("data.pkl ends inside an opcode");
        const char* at = p.data() + m_at;
        m_at += n;
        return at;
    }
    template <typename T>
    T little() {
        T v;
        std::memcpy(&v, take(sizeof v), sizeof v);
        return v;
    }
    std::string line() {
        const std::string& p = m_entries.pickle;
        const size_t end = p.find('\n', m_at);
        if (end == std::string::npos || end - m_at > 256)
            fail("data.pkl has a GLOBAL without its name");
        std::string s = p.substr(m_at, end - m_at);
        m_at = end + 1;
        return s;
    }
    void memoPut(uint32_t at) {
        if (m_stack.empty()) fail("data.pkl memoises an empty stack");
        m_memo[at] = m_stack.back();
    }
    void memoGet(uint32_t at) {
        const auto it = m_memo.find(at);
        if (it == m_memo.end())
            fail("data.pkl refers to memo entry " + std::to_string(at) + ", never stored");
        m_stack.push_back(it->second);
    }
    void pushInt(int64_t v) { push({Kind::Int, v, {}, {}, 0}); }
    void pushString(uint64_t length) {
        const char* p = take(length);
        push({Kind::String, 0, std::string(p, length), {}, 0});
    }

    // The pickle opcodes LibTorch 1.13 writes for a module, by their names in pickletools.
    enum class Op : uint8_t {
        Proto = 0x80,
        Stop = '.',
        Mark = '(',
        None = 'N',
        NewTrue = 0x88,
        NewFalse = 0x89,
        BinInt1 = 'K',
        BinInt2 = 'M',
        BinInt = 'J',
        Long1 = 0x8a,
        BinFloat = 'G',
        BinUnicode = 'X',
        ShortBinUnicode = 0x8c,
        Global = 'c',
        BinPut = 'q',
        LongBinPut = 'r',
        BinGet = 'h',
        LongBinGet = 'j',
        EmptyTuple = ')',
        Tuple = 't',
        Tuple1 = 0x85,
        Tuple2 = 0x86,
        Tuple3 = 0x87,
        EmptyList = ']',
        EmptyDict = '}',
        Append = 'a',
        Appends = 'e',
        SetItem = 's',
        SetItems = 'u',
        NewObj = 0x81,
        Build = 'b',
        Reduce = 'R',
        BinPersId = 'Q',
    };

    // Runs data.pkl to its STOP; returns the value it leaves.
    size_t run() {
        for (;;) {
            const auto op = static_cast<uint8_t>(*take(1));
            if (static_cast<Op>(op) == Op::Stop) return pop();
            if (!pushesConstant(static_cast<Op>(op)) && !changesStack(static_cast<Op>(op)))
                fail("data.pkl holds pickle opcode 0x" + hexByte(op) + " at byte " +
                     std::to_string(m_at - 1) + ", which LibTorch does not write for a module");
        }
    }

    // The opcodes that push one value read from the pickle.
    bool pushesConstant(Op op) {
        switch (op) {
            case Op::None:
                push({});
                return true;
            case Op::NewTrue:
                push({Kind::Bool, 1, {}, {}, 0});
                return true;
            case Op::NewFalse:
                push({Kind::Bool, 0, {}, {}, 0});
                return true;
            case Op::BinInt1:
                pushInt(little<uint8_t>());
                return true;
            case Op::BinInt2:
                pushInt(little<uint16_t>());
                return true;
            case Op::BinInt:
                pushInt(little<int32_t>());
                return true;
            case Op::Long1:
                long1();
                return true;
            case Op::BinFloat:
                take(8);
                push({Kind::Float, 0, {}, {}, 0});
                return true;
            case Op::BinUnicode:
                pushString(little<uint32_t>());
                return true;
            case Op::ShortBinUnicode:
                pushString(little<uint8_t>());
                return true;
            case Op::Global:
                global();
                return true;
            case Op::EmptyTuple:
                push({Kind::Tuple, 0, {}, {}, 0});
                return true;
            case Op::EmptyList:
                push({Kind::List, 0, {}, {}, 0});
                return true;
            case Op::EmptyDict:
                push({Kind::Dict, 0, {}, {}, 0});
                return true;
            default:
                return false;
        }
    }

    // The opcodes that combine, store or recall values on the stack.
    bool changesStack(Op op) {
        switch (op) {
            case Op::Proto:
                take(1);
                return true;
            case Op::Mark:
                m_marks.push_back(m_stack.size());
                return true;
            case Op::BinPut:
                memoPut(little<uint8_t>());
                return true;
            case Op::LongBinPut:
                memoPut(little<uint32_t>());
                return true;
            case Op::BinGet:
                memoGet(little<uint8_t>());
                return true;
            case Op::LongBinGet:
                memoGet(little<uint32_t>());
                return true;
            case Op::Tuple:
                push({Kind::Tuple, 0, {}, popToMark(), 0});
                return true;
            case Op::Tuple1:
                tupleOf(1);
                return true;
            case Op::Tuple2:
                tupleOf(2);
                return true;
            case Op::Tuple3:
                tupleOf(3);
                return true;
            case Op::Append:
                append(Kind::List, {pop()});
                return true;
            case Op::Appends:
                append(Kind::List, popToMark());
                return true;
            case Op::SetItem:
                setItem();
                return true;
            case Op::SetItems:
                append(Kind::Dict, popToMark());
                return true;
            case Op::NewObj:
                newObject();
                return true;
            case Op::Build:
                build();
                return true;
            case Op::Reduce:
                reduce();
                return true;
            case Op::BinPersId:
                storage();
                return true;
            default:
                return false;
        }
    }

    void long1() {
        const uint8_t n = little<uint8_t>();
        if (n > 8) fail("data.pkl holds an integer wider than 64 bits");
        const char* p = take(n);
        uint64_t v = 0;
        for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
        if (n > 0 && n < 8 && (static_cast<uint8_t>(p[n - 1]) & 0x80) != 0)
            v |= ~uint64_t{0} << (8 * n);  // sign-extend
        pushInt(static_cast<int64_t>(v));
    }

    void tupleOf(size_t n) {
        std::vector<size_t> items(n);
        for (size_t i = n; i-- > 0;) items[i] = pop();
        push({Kind::Tuple, 0, {}, std::move(items), 0});
    }

    void append(Kind kind, const std::vector<size_t>& items) {
        Value& target = top();
        if (target.kind != kind || (kind == Kind::Dict && items.size() % 2 != 0))
            fail("data.pkl adds items to a value that cannot hold them");
        const size_t at = m_stack.back();
        m_values[at].items.insert(m_values[at].items.end(), items.begin(), items.end());
    }

    void setItem() {
        const size_t value = pop();
        const size_t key = pop();
        append(Kind::Dict, {key, value});
    }

    void global() {
        std::string name = line();
        name += ' ' + line();
        const bool known = name == kRebuildTensor || name == kOrderedDict ||
                           name.rfind(kModuleClassPrefix, 0) == 0 ||
                           std::any_of(kStorageTypes.begin(), kStorageTypes.end(),
                                       [&](const StorageType& t) { return name == t.global; });
        if (!known)
            fail("data.pkl calls '" + printable(name) + "', which no cost model's archive holds");
        push({Kind::Global, 0, std::move(name), {}, 0});
    }

    const Value& globalOf(size_t v) {
        if (m_values[v].kind != Kind::Global) fail("data.pkl calls something that is not a class");
        return m_values[v];
    }

    void newObject() {
        pop();  // the arguments: a module's class takes none
        const Value& cls = globalOf(pop());
        if (cls.text.rfind(kModuleClassPrefix, 0) != 0)
            fail("data.pkl makes an object of '" + printable(cls.text) + "', not a module");
        push({Kind::Object, 0, cls.text, {}, 0});
    }

    void build() {
        const size_t state = pop();
        if (m_values[state].kind != Kind::Dict || top().kind != Kind::Object)
            fail("data.pkl sets a module's attributes from something other than a dict");
        top().integer = 1;
        top().index = state;  // not a copy: a pickle could build many modules from one big dict
    }

    void reduce() {
        const size_t args = pop();
        const std::string name = globalOf(pop()).text;
        if (m_values[args].kind != Kind::Tuple)
            fail("data.pkl calls '" + printable(name) + "' without a tuple");
        if (name == kOrderedDict) {
            push({Kind::Dict, 0, {}, {}, 0});
        } else if (name == kRebuildTensor) {
            const size_t t = tensor(m_values[args].items);
            push({Kind::Tensor, 0, {}, {}, t});
        } else {
            fail("data.pkl calls '" + printable(name) + "', which no cost model's archive holds");
        }
    }

    const Value& expect(size_t v, Kind kind, const char* what) {
        if (m_values[v].kind != kind) fail(std::string("data.pkl: ") + what);
        return m_values[v];
    }

    // ('storage', torch.<Type>Storage, key, device, element count): the bytes of data/<key>.
    void storage() {
        const std::vector<size_t> id =
            expect(pop(), Kind::Tuple, "a storage id that is not a tuple").items;
        if (id.size() != 5 || m_values[id[0]].kind != Kind::String ||
            m_values[id[0]].text != "storage")
            fail("data.pkl: a persistent id that is not a tensor storage");
        const std::string& typeName = globalOf(id[1]).text;
        const auto type = std::find_if(kStorageTypes.begin(), kStorageTypes.end(),
                                       [&](const StorageType& t) { return typeName == t.global; });
        if (type == kStorageTypes.end())
            fail("data.pkl: a storage of '" + printable(typeName) + "'");
        const std::string& key = expect(id[2], Kind::String, "a storage key that is not text").text;
        if (expect(id[3], Kind::String, "a storage device that is not text").text != "cpu")
            fail("data.pkl: storage '" + printable(key) + "' lies on device '" +
                 printable(m_values[id[3]].text) + "', not the CPU");
        const int64_t count =
            expect(id[4], Kind::Int, "a storage size that is not a number").integer;
        const auto record = m_entries.storages.find(key);
        const std::string entry = "'" + printable(m_entries.folder + "/data/" + key) + "'";
        if (record == m_entries.storages.end()) fail("storage " + entry + " is missing");
        if (count < 0 || count > limits::kMaxTensorValues ||
            static_cast<uint64_t>(count) * static_cast<uint64_t>(type->bytes) !=
                record->second.size())
            fail("entry " + entry + " holds " + std::to_string(record->second.size()) +
                 " bytes, where data.pkl gives it " + std::to_string(count) + " values of " +
                 std::to_string(type->bytes) + " bytes");
        push({Kind::Storage, count, key, {}, static_cast<size_t>(type - kStorageTypes.begin())});
    }

    std::vector<int64_t> dims(size_t tuple, const char* what) {
        std::vector<int64_t> out;
        for (const size_t v : expect(tuple, Kind::Tuple, what).items) {
            const int64_t d = expect(v, Kind::Int, what).integer;
            if (d < 0 || d > limits::kMaxTensorValues) fail(std::string("data.pkl: ") + what);
            out.push_back(d);
        }
        if (out.size() > limits::kMaxTensorRank) fail(std::string("data.pkl: ") + what);
        return out;
    }

    // _rebuild_tensor_v2(storage, offset, sizes, strides, requires_grad, hooks): the tensor's
    // elements gathered row-major, each inside its storage.
    size_t tensor(const std::vector<size_t>& args) {
        if (args.size() < 4) fail("data.pkl rebuilds a tensor from fewer than 4 values");
        const Value& store = expect(args[0], Kind::Storage, "a tensor without a storage");
        const int64_t offset =
            expect(args[1], Kind::Int, "a tensor offset that is not a number").integer;
        NamedTensor t;
        t.shape = dims(args[2], "a tensor's sizes are not small whole numbers");
        const std::vector<int64_t> strides =
            dims(args[3], "a tensor's strides are not small whole numbers");
        if (strides.size() != t.shape.size())
            fail("data.pkl: a tensor's sizes and strides differ in rank");
        const std::string storageName = printable(m_entries.folder + "/data/" + store.text);
        if (offset < 0 || offset > store.integer)  // checked first: the sum below must not overflow
            fail("a tensor of storage '" + storageName + "' (" + std::to_string(store.integer) +
                 " values) starts at element " + std::to_string(offset));
        int64_t count = 1;
        int64_t last = offset;  // the highest element index read
        for (size_t d = 0; d < t.shape.size(); ++d) {
            if (t.shape[d] == 0) count = 0;
            if (count > 0 && t.shape[d] > limits::kMaxTensorValues / count)
                fail("data.pkl: a tensor of more than " + std::to_string(limits::kMaxTensorValues) +
                     " values");
            count *= t.shape[d];
            if (t.shape[d] > 0) last += (t.shape[d] - 1) * strides[d];
        }
        spendValues(count);
        if (count > 0 && last >= store.integer)
            fail("a tensor of storage '" + storageName + "' (" + std::to_string(store.integer) +
                 " values) reads element " + std::to_string(last));
        const StorageType& type = kStorageTypes[store.index];
        const std::string& bytes = m_entries.storages.at(store.text);
        t.values.reserve(static_cast<size_t>(count));
        std::vector<int64_t> at(t.shape.size(), 0);
        for (int64_t i = 0; i < count; ++i) {
            int64_t element = offset;
            for (size_t d = 0; d < at.size(); ++d) element += at[d] * strides[d];
            t.values.push_back(elementAt(bytes.data() + element * type.bytes, type.element));
            for (size_t d = at.size(); d-- > 0;) {  // the next index, row-major
                if (++at[d] < t.shape[d]) break;
                at[d] = 0;
            }
        }
        m_tensors.push_back(std::move(t));
        return m_tensors.size() - 1;
    }

    // Tensors may view one storage many times, and a pickle may name one tensor at many places;
    // a module's tensors are each read once and kept once, never more values than their storages
    // hold bytes, twice: a small file cannot make this reader allocate much more than its size.
    void spendValues(int64_t count) {
        m_spentValues += count;
        if (m_spentValues > m_valueBudget)
            fail("data.pkl's tensors hold more values than its storages hold bytes");
    }

    // A module's attributes by dot-joined path: tensors, whole numbers and text; submodules
    // followed to a bounded depth (a pickle can make a module its own attribute).
    void collect(size_t object, const std::string& prefix, int depth, TorchArchiveContents& out) {
        if (depth > limits::kMaxTorchModuleDepth)
            fail("data.pkl nests modules more than " +
                 std::to_string(limits::kMaxTorchModuleDepth) + " deep");
        if (!m_collected.insert(object).second) fail("data.pkl holds one module at two places");
        if (m_values[object].integer == 0) return;  // never built: no attributes
        const std::vector<size_t>& items = m_values[m_values[object].index].items;
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
            const std::string& name =
                expect(items[i], Kind::String, "a module attribute without a name").text;
            std::string path = prefix;
            if (!path.empty()) path += '.';
            path += name;
            const Value& v = m_values[items[i + 1]];
            bool fresh = true;
            if (v.kind == Kind::Tensor) {
                spendValues(static_cast<int64_t>(m_tensors[v.index].values.size()));
                NamedTensor t = m_tensors[v.index];
                t.name = path;
                fresh = out.tensors.emplace(path, std::move(t)).second;
            } else if (v.kind == Kind::Int) {
                fresh = out.integers.emplace(path, v.integer).second;
            } else if (v.kind == Kind::String) {
                fresh = out.strings.emplace(path, v.text).second;
            } else if (v.kind == Kind::Object) {
                collect(items[i + 1], path, depth + 1, out);
            }
            if (!fresh) fail("data.pkl gives attribute '" + printable(path) + "' twice");
        }
    }

    const TorchArchiveEntries& m_entries;
    std::string m_label;
    std::string m_key;
    size_t m_at = 0;
    std::vector<Value> m_values;
    std::vector<size_t> m_stack;
    std::vector<size_t> m_marks;
    std::map<uint32_t, size_t> m_memo;
    std::vector<NamedTensor> m_tensors;
    std::set<size_t> m_collected;
    int64_t m_valueBudget = 0;
    int64_t m_spentValues = 0;
};

}  // namespace

TorchArchiveContents readTorchArchive(const std::string& bytes, const std::string& label,
                                      const std::string& key) {
    return readTorchPickle(readEntries(bytes, label, key), label, key);
}

TorchArchiveContents readTorchPickle(const TorchArchiveEntries& entries, const std::string& label,
                                     const std::string& key) {
    if (entries.pickle.size() > limits::kMaxTorchPickleBytes)
        throwFormatError(label, key,
                         "damaged: '" + printable(entries.folder + "/data.pkl") + "' holds " +
                             std::to_string(entries.pickle.size()) +
                             " bytes, far more than any cost model's");
    return ModulePickle(entries, label, key).read();
}

}  // namespace tpg::nn
