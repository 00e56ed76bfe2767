#pragma once

// How the synthetic TPU sees an opcode: which class of work it does and how it treats layouts.
// Internal to model/synth.
#include <cstdint>
#include <string>

namespace tpg::synth::detail {

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
// Ops the vector unit spends several instructions per element on (exp, log, divide, ...).
bool transcendental(const std::string& name);

}  // namespace tpg::synth::detail
