#include "graph/OpClass.h"

#include <unordered_map>
#include <vector>

#include "graph/Schema.h"

namespace tpg {

OpClass classify(const std::string& name) {
    static const std::unordered_map<std::string, OpClass> table = [] {
        std::unordered_map<std::string, OpClass> t;
        for (const char* n :
             {"get-tuple-element", "bitcast", "after-all", "partition-id", "replica-id",
              "opt-barrier", "domain", "add-dependency", "get-dimension-size"})
            t[n] = OpClass::Free;
        t["tuple"] = OpClass::Tuple;
        t["parameter"] = OpClass::Parameter;
        t["constant"] = OpClass::Constant;
        t["broadcast"] = OpClass::Generated;
        t["iota"] = OpClass::Generated;
        for (const char* n : {"abs",
                              "add",
                              "and",
                              "atan2",
                              "cbrt",
                              "ceil",
                              "clamp",
                              "compare",
                              "complex",
                              "convert",
                              "cosine",
                              "divide",
                              "exponential",
                              "exponential-minus-one",
                              "floor",
                              "imag",
                              "is-finite",
                              "log",
                              "log-plus-one",
                              "logistic",
                              "maximum",
                              "minimum",
                              "multiply",
                              "negate",
                              "not",
                              "or",
                              "popcnt",
                              "power",
                              "real",
                              "reduce-precision",
                              "remainder",
                              "round-nearest-afz",
                              "round-nearest-even",
                              "rsqrt",
                              "select",
                              "shift-left",
                              "shift-right-arithmetic",
                              "shift-right-logical",
                              "sign",
                              "sine",
                              "sqrt",
                              "subtract",
                              "tan",
                              "tanh",
                              "xor",
                              "count-leading-zeros",
                              "bitcast-convert",
                              "stochastic-convert",
                              "map",
                              "pad",
                              "slice",
                              "dynamic-slice",
                              "dynamic-update-slice",
                              "reverse",
                              "concatenate"})
            t[n] = OpClass::Elementwise;
        t["reduce-window"] = OpClass::ReduceWindow;
        t["convolution"] = OpClass::Convolution;
        t["dot"] = OpClass::Dot;
        t["reshape"] = OpClass::Reshape;
        t["dynamic-reshape"] = OpClass::Reshape;
        t["transpose"] = OpClass::Transpose;
        t["reduce"] = OpClass::Reduce;
        return t;
    }();
    auto it = table.find(name);
    return it == table.end() ? OpClass::Other : it->second;
}

bool transcendental(const std::string& name) {
    for (const char* n : {"exponential", "exponential-minus-one", "log", "log-plus-one", "logistic",
                          "tanh", "rsqrt", "sqrt", "cbrt", "divide", "power", "sine", "cosine",
                          "tan", "atan2", "remainder"})
        if (name == n) return true;
    return false;
}

OpClass classifyOpcode(int opcodeId) {
    // Per id once: graphs ask for every node, and a name lookup builds a string.
    static const std::vector<OpClass> byId = [] {
        std::vector<OpClass> t(static_cast<size_t>(schema::maxOpcodeId()) + 1);
        for (size_t id = 0; id < t.size(); ++id) t[id] = classify(schema::opcodeName(static_cast<int>(id)));
        return t;
    }();
    return opcodeId >= 0 && static_cast<size_t>(opcodeId) < byId.size() ? byId[static_cast<size_t>(opcodeId)]
                                                                         : OpClass::Other;
}

}  // namespace tpg
