#pragma once
// Closed-form cycle counts for the regimes where one exists (docs/timing-model.md derives
// them). The cycle-accurate model must agree exactly wherever `exact` is true; elsewhere the
// prediction is a guide and the regime says what it ignores.

#include <cstddef>

#include "sim/machine_config.hpp"
#include "sim/timing_report.hpp"

namespace torus {

struct AnalyticInputs {
  std::size_t p = 1;
  std::size_t b = 1;
  std::size_t transforms = 1;   // 1, or 2 for a forward-inverse round trip
  bool inverse_last = false;    // the last transform is an inverse (its stage III accumulator stays put)
  bool split_complex = false;   // complex data on a real fma unit
};

// Cycles from a step's first fma to the first cycle its last result is usable, with every
// input present: the micro-program alone.
std::uint64_t compute_span(const MachineConfig& machine, std::size_t b, bool split_complex);

AnalyticPrediction predict_cycles(const MachineConfig& machine, const AnalyticInputs& inputs);

}  // namespace torus
