#pragma once

// How an HLO opcode treats layouts and which class of work it does: the synthetic TPU costs by it,
// and the cost model's layout flow features (nn/LayoutSlotShapes) follow layouts by it.
#include <cstdint>
#include <string>

namespace tpg {

// How an opcode behaves for layouts and cost.
enum class OpClass : uint8_t {
    Free,   // tuple, get-tuple-element, bitcast...: no work, no layout of their own
    Tuple,  // like Free, but its operands are the program's outputs: they keep their default layout
    Parameter,     // its layout is fixed by the caller
    Constant,      // materialised at compile time in whatever layout its user wants
    Generated,     // broadcast, iota: produced on the fly by their users, no memory read
    Elementwise,   // memory-bound, takes its layout from its first (non-generated) operand
    ReduceWindow,  // like Elementwise, plus window work
    Convolution,
    Dot,
    Reshape,
    Transpose,
    Reduce,
    Other,  // memory-bound, keeps its default layout
};

OpClass classify(const std::string& name);
OpClass classifyOpcode(int opcodeId);  // by the schema's opcode id; Other when unknown
// Ops the vector unit spends several instructions per element on (exp, log, divide, ...).
bool transcendental(const std::string& name);

}  // namespace tpg
