#pragma once
// The values of an FFT task (sim/program.hpp, FftSpec) on a node's buffers: the one function
// every engine and executor calls, so the bits agree wherever a Program runs. The working array
// is gathered from the input buffers first and scattered to the outputs last, so an input and
// an output may be the same buffer whatever the two cuts.

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/program.hpp"

namespace torus {

template <class T>
class FftPlan {
 public:
  // Throws std::invalid_argument for a real element type (the DFT is complex) or a length
  // that is not a power of two, naming the task's spec.
  explicit FftPlan(const FftSpec& spec);
  // inputs[i] holds input block i (spec.inputs of them, input_extents() each, first index
  // fastest); outputs[i] receives output block i.
  void run(const std::vector<const T*>& inputs, const std::vector<T*>& outputs) const;
  const FftSpec& spec() const { return spec_; }

 private:
  FftSpec spec_;
  std::vector<T> twiddles_;
};

// What is wrong with an FFT spec on its own (empty when nothing): axis and cuts 1..3, every
// extent at least 1, the counts dividing the extents they cut, the length a power of two.
std::vector<std::string> fft_spec_problems(const FftSpec& spec);

// Per axis of the Program's tensor, how its FFT tasks transform it, for the golden check's
// tolerance (docs/numerics.md, "FFT tasks"): `fft` when an FFT task runs along it over whole
// lines (length N_a), `scaled` when one of them scales. Throws std::logic_error for an FFT along
// an axis over lines of another length (no derived bound covers a transform split that way).
struct FftAxis {
  bool fft = false;
  bool scaled = false;
};
std::array<FftAxis, 3> fft_axes(const Program& program);

// Why an FFT task cannot run in element type T ("" when it can): the DFT is complex.
template <class T>
std::string fft_type_problem();

}  // namespace torus
