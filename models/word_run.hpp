#pragma once
// A run of a block's words: word k of the run is first + step k of its buffer, and its value is
// the k-th of `parts` doubles each. A message's words move as such runs (a link queue, the
// scoreboard, the datapath); the formulas live here once so that the three cannot drift.

#include <complex>
#include <cstddef>
#include <cstdint>

namespace torus {

inline std::uint32_t run_word(std::uint32_t first, std::int32_t step, std::size_t k) {
  return first + static_cast<std::uint32_t>(step * static_cast<std::int64_t>(k));
}

// parts: 0 (no values: zero), 1 (real) or 2 (real and imaginary, interleaved).
inline std::complex<double> run_value(const double* values, std::size_t parts, std::size_t k) {
  if (parts == 0) return {};
  return parts == 1 ? std::complex<double>(values[k]) : std::complex<double>(values[2 * k], values[2 * k + 1]);
}

}  // namespace torus
