#pragma once

// The scenario of "Learn: how layout affects runtime", found in the open layout graph rather than
// scripted for one file: a convolution (else a dot, else any configurable op) whose output layout,
// changed, makes the compiler insert a copy (the new layout propagates through elementwise users
// until a node that wants another layout), and the change to that node's operand layout that
// removes the copy again. Every figure is the synthetic TPU's.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graph/TpuGraph.h"
#include "synth/TpuCostModel.h"
#include "whatif/ConfigEdit.h"

namespace tpg::lesson {

// Producers tried, heaviest first: enough to find a scenario in any program.
constexpr size_t kMaxProducersTried = 48;
// Node evaluations the search may spend (an evaluation of an n-node graph costs n): every
// candidate of the sample's graphs (up to 2,000 nodes), ~90 evaluations (a few seconds on one
// core) on a 45,000-node graph.
constexpr int64_t kSearchNodeEvaluations = 4'000'000;

struct LayoutLesson {
    int32_t producer = -1;  // the node whose output layout the lesson changes
    std::vector<int> startLayout;  // its output layout in the start configuration
    std::vector<int> badLayout;    // the output layout the lesson sets
    std::vector<int32_t> propagatedTo;  // other nodes whose output layout follows the change
    synth::EdgeCost copy;  // the copy that then appears: copy.consumer wants another layout
    whatif::LayoutSlot consumerSlot = whatif::LayoutSlot::Input;  // copy.consumer's slot that fixes it
    std::vector<float> startRow, badRow, fixedRow;
    synth::CostBreakdown start, bad, fixed;
    int32_t consumer() const { return copy.consumer; }
    const std::vector<int>& fixLayout() const { return copy.fromLayout; }  // what the consumer accepts
};

// The copy `b` holds on the edge from `producer` to `consumer`, or nullptr.
const synth::EdgeCost* copyBetween(const synth::CostBreakdown& b, int32_t producer, int32_t consumer);

// `row` with every configurable node's unset operand layouts (input, kernel) written out as the
// layouts they read: the same program and runtime, but a consumer now says which layout it wants,
// so a change upstream shows as a copy rather than silently propagating into it. `row` itself when
// writing them out would change the runtime.
std::vector<float> withOperandLayoutsWritten(const TpuGraph& g, const synth::TpuCostModel& tpu,
                                             const std::vector<float>& row);

// The lesson's scenario from `startRow` (a layout row; its operand layouts written out, as above).
// Producers are tried heaviest first, within the budget; of the scenarios found, one whose fix
// removes every copy the edit added (a clean one) reads best in class, then the one whose fix wins
// back the most runtime. `keepGoing` is called before each evaluation with the fraction of the
// budget spent; false stops the search (nullopt).

std::optional<LayoutLesson> findLayoutLesson(const TpuGraph& g, const synth::TpuCostModel& tpu,
                                             const std::vector<float>& startRow,
                                             const std::function<bool(double)>& keepGoing = {});

// A configuration the lesson may start from, and what it is in words.
struct LessonStart {
    std::vector<float> row;
    std::string what;  // "the compiler's default configuration"
};

// Where to look for the scenario, in order: the compiler's default configuration (the layouts XLA
// itself would pick: a clean start), then the fastest measured one (none when the file holds no
// runtimes, as a test split's).
std::vector<LessonStart> layoutLessonStarts(const TpuGraph& g);

}  // namespace tpg::lesson
