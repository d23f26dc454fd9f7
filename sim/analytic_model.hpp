#pragma once
// Closed-form cycle counts for the regimes where one exists (docs/timing-model.md derives
// them). The cycle-accurate model must agree exactly wherever `exact` is true; elsewhere the
// prediction is a guide and the regime says what it ignores.

#include <cstddef>
#include <string>
#include <vector>

#include "sim/machine_config.hpp"
#include "sim/program.hpp"
#include "sim/timing_report.hpp"

namespace torus {

// A stage as the closed forms see it: steps, each a compute of `rounds` updates of `width`
// accumulator words (the largest kernel of the stage), then a roll of `rolled` words.
struct StageShape {
  std::uint64_t steps = 1;
  std::uint64_t reduction = 1;  // updates per accumulator word
  std::uint64_t words = 1;      // accumulator words
  std::uint64_t rolled = 0;     // words of the largest message a node sends in a step (0: nothing moves)
  std::uint64_t hops = 1;       // of the longest route in the stage (a roll round a mesh edge: P_a - 1)
};

struct AnalyticInputs {
  std::size_t p = 1;
  std::size_t b = 1;
  std::size_t transforms = 1;   // 1, or 2 for a forward-inverse round trip
  bool inverse_last = false;    // the last transform is an inverse (its stage III accumulator stays put)
  bool split_complex = false;   // complex data on a real fma unit
  // Other Programs than the orbital one on P x P x P nodes with b x b x b blocks: every stage of
  // every transform in order, and why the closed forms above are not exact for them (empty: they are).
  std::vector<StageShape> stages;
  std::string approximate_because;
};

// The inputs for a Program: the orbital schedule with b x b x b blocks on a P x P x P torus
// gets the closed forms of docs/timing-model.md; any other Program its stages' largest kernels
// and blocks (an estimate, marked approximate).
AnalyticInputs analytic_inputs(const Program& program, bool inverse_last, bool split_complex);

// Cycles from a step's first fma to the first cycle its last result is usable, with every
// input present: the micro-program alone.
std::uint64_t compute_span(const MachineConfig& machine, std::size_t b, bool split_complex);

AnalyticPrediction predict_cycles(const MachineConfig& machine, const AnalyticInputs& inputs);

}  // namespace torus
