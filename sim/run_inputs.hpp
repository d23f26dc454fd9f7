#pragma once
// What both engines (functional and cycle-accurate) share for one run: the input tensor, the
// rounded coefficient matrices, and the golden checks of each result.

#include <algorithm>
#include <array>
#include <complex>
#include <random>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/mode_product.hpp"
#include "kernels/npy.hpp"
#include "kernels/scalar.hpp"
#include "kernels/text.hpp"
#include "sim/accuracy.hpp"
#include "sim/fft_task.hpp"
#include "sim/host_data.hpp"
#include "sim/program.hpp"
#include "sim/run.hpp"

namespace torus {

// Uniform in [-1, 1) from the top 53 bits, so the input is the same on every platform.
inline double uniform_pm1(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; }

template <class T>
Tensor3<T> random_tensor(const Extents3& n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor3<T> x(n);
  for (T& v : x.values()) {
    if constexpr (is_complex_v<T>) {
      const double re = uniform_pm1(rng);
      v = T(static_cast<real_t<T>>(re), static_cast<real_t<T>>(uniform_pm1(rng)));
    } else {
      v = static_cast<T>(uniform_pm1(rng));
    }
  }
  return x;
}

template <class T>
Tensor3<T> random_tensor(std::size_t n, std::uint64_t seed) {
  return random_tensor<T>(Extents3{n, n, n}, seed);
}

template <class T>
Tensor3<T> make_input(const RunConfig& config) {
  const Extents3 n = config.tensor_extents();
  if (config.input.empty()) return random_tensor<T>(n, config.seed);
  Tensor3<T> x = with_parameter("input", [&] { return read_npy_tensor<T>(config.input); });
  if (x.extents() != n)
    throw std::invalid_argument("input: '" + config.input + "' is not " + std::to_string(n[0]) + " x " + std::to_string(n[1]) +
                                " x " + std::to_string(n[2]) + " (N = " + extents_text(config.n) + ")");
  return x;
}

template <class T>
struct CoefficientSet {
  std::array<Matrix<T>, 3> forward;
  std::array<Matrix<T>, 3> inverse;
  std::vector<double> defects;  // per axis, see inverse_defect
};

template <class T>
CoefficientSet<T> make_coefficients(const RunConfig& config) {
  const AxisTransforms transforms = parse_axis_transforms(config.transform, config.transform_options());
  CoefficientSet<T> set;
  for (std::size_t a = 0; a < 3; ++a) {
    const CoefficientMatrices wide = transforms.axis[a]->matrices(static_cast<std::size_t>(config.n[a]));
    set.forward[a] = round_coefficients<T>(wide.forward);
    set.inverse[a] = round_coefficients<T>(wide.inverse);
    // An axis with the same pair as an earlier one has its defect (an N^3 product in long
    // double, a third of a second at N = 256); a cube's three axes usually do.
    const auto equal = [](const Matrix<T>& x, const Matrix<T>& y) { return x.rows() == y.rows() && x.cols() == y.cols() && x == y; };
    std::size_t same = 0;
    while (same < a && !(equal(set.forward[same], set.forward[a]) && equal(set.inverse[same], set.inverse[a]))) ++same;
    set.defects.push_back(same < a ? set.defects[same] : inverse_defect(set.forward[a], set.inverse[a]));
  }
  return set;
}

// The golden comparison of a run whose Program has FFT tasks: per axis the factor of the dense
// product or of the FFT that computed it (docs/numerics.md, "FFT tasks").
template <class T>
ErrorReport compare_to_golden_with_ffts(const Tensor3<T>& result, const Tensor3<T>& golden, const Tensor3<double>& magnitude,
                                        const Program& program) {
  const std::array<FftAxis, 3> axes = fft_axes(program);
  const Extents3& n = golden.extents();
  const double u = unit_roundoff<T>();
  const std::size_t dense_length = std::max({n[0], n[1], n[2]});  // as compare_to_golden's stages
  std::array<double, 3> stages{};
  int own = 0;
  for (std::size_t a = 0; a < 3; ++a) {
    stages[a] = axes[a].fft ? fft_stage_factor(n[a], u, axes[a].scaled) : stage_factor(dense_length, u, is_complex_v<T>, 1);
    own += axes[a].fft ? 1 : 0;
  }
  return compare_to_golden_per_stage(result, golden, magnitude, stages, own);
}

// A finite input whose transform overflows the working precision has no golden value to check
// against: an input problem (exit 2), not a mismatch of the simulated machine.
// `what` names the golden result and `allowed` what may be given instead.
template <class T>
void require_finite_golden(const Tensor3<T>& golden, const std::string& what = "transform",
                           const std::string& allowed = "an input and transform (user_matrix) whose result") {
  const Extents3& n = golden.extents();
  for (std::size_t k = 0; k < n[2]; ++k)
    for (std::size_t j = 0; j < n[1]; ++j)
      for (std::size_t i = 0; i < n[0]; ++i) {
        const auto value = static_cast<std::complex<double>>(golden(i, j, k));
        if (std::isfinite(value.real()) && std::isfinite(value.imag())) continue;
        throw std::invalid_argument(
            "input: the golden " + what + " of this input overflows the working precision (element (" + std::to_string(i) + "," +
            std::to_string(j) + "," + std::to_string(k) + ") is not finite); allowed: " + allowed + " stays within the range of " +
            (sizeof(real_t<T>) == sizeof(float) ? "float (3.4e38)" : "double (1.8e308)"));
      }
}

// The bound an element is checked against is a multiple of a magnitude (|M| |x|, or |D| |C| |x|
// for a round trip). Where that magnitude overflows, the bound is infinite (every error passes)
// or, times a zero, not a number (every error fails): neither checks anything, so such an input
// is refused like one whose golden value overflows. `what` names the magnitude.
inline void require_finite_bound(const Tensor3<double>& magnitude, const char* what) {
  const Extents3& n = magnitude.extents();
  for (std::size_t k = 0; k < n[2]; ++k)
    for (std::size_t j = 0; j < n[1]; ++j)
      for (std::size_t i = 0; i < n[0]; ++i) {
        if (std::isfinite(magnitude(i, j, k))) continue;
        throw std::invalid_argument(std::string("input: the error bound of this input overflows double: ") + what + " at element (" +
                                    std::to_string(i) + "," + std::to_string(j) + "," + std::to_string(k) +
                                    ") is not finite, so no bound can be checked there; allowed: an input whose magnitudes "
                                    "through the transform stay within 1.8e308 (scale it down)");
      }
}

// Compares one simulated transform of `input` with the golden reference and names the first
// output block beyond its bound and the node that holds it, and every affected block: the
// layout gives each output block's node and tag, printed as the Program names them ("first
// mismatching output block Y(0,1,2) at node (0,1,1), element (...)").
// The golden transform and the magnitudes' each run on `threads` threads (the same bits on
// any number: golden_transform). `magnitude_out` gets the magnitudes' transform |M| |input|
// (the round trip's bound reuses it).
template <class T>
void check_against_golden(TransformOutcome& outcome, const Tensor3<T>& input, const Tensor3<T>& result,
                          const Program& program, const std::vector<OutputBlock>& layout,
                          const std::array<Matrix<T>, 3>& matrices, unsigned threads = 1,
                          Tensor3<double>* magnitude_out = nullptr) {
  const Tensor3<T> golden = golden_transform(input, matrices, threads);
  require_finite_golden(golden);
  const Tensor3<double> magnitude = absolute_transform(input, matrices, threads);
  require_finite_bound(magnitude, "|M| |x|");
  if (magnitude_out) *magnitude_out = magnitude;
  outcome.error = program.ffts.empty() ? compare_to_golden(result, golden, magnitude)
                                       : compare_to_golden_with_ffts(result, golden, magnitude, program);
  outcome.mismatch.clear();
  if (outcome.error.within_tolerance()) return;
  std::set<std::array<int, 3>> affected;  // block indices with an element beyond its bound
  const Extents3& n = result.extents();
  const auto block_at = [&](std::size_t axis, std::size_t i) { return static_cast<int>(program.grid.axis[axis].block_of(i)); };
  for (std::size_t k = 0; k < n[2]; ++k)
    for (std::size_t j = 0; j < n[1]; ++j)
      for (std::size_t i = 0; i < n[0]; ++i)
        if (!(static_cast<double>(std::abs(result(i, j, k) - golden(i, j, k))) <=
              outcome.error.tolerance_factor * magnitude(i, j, k)))
          affected.insert({block_at(0, i), block_at(1, j), block_at(2, k)});
  const auto& e = outcome.error.first_failure;
  const std::array<int, 3> first{block_at(0, e[0]), block_at(1, e[1]), block_at(2, e[2])};
  std::string list;
  std::size_t listed = 0;
  for (const OutputBlock& block : layout) {
    const std::string name = program.describe(block.tag), node = program.describe_node(block.node);
    if (block.tag.index == first)
      outcome.mismatch = "first mismatching output block " + name + " at node " + node + ", element (" +
                         std::to_string(e[0]) + "," + std::to_string(e[1]) + "," + std::to_string(e[2]) + ")";
    if (affected.count(block.tag.index) && listed++ < 16) list += " " + name + "@" + node;
  }
  outcome.mismatch += "; " + std::to_string(affected.size()) + " of " + std::to_string(layout.size()) +
                      " output blocks beyond their bounds:" + list + (affected.size() > 16 ? " ..." : "");
}

// inverse(forward(x)) against x, with the round-trip bound of docs/numerics.md.
template <class T>
ErrorReport round_trip_error(const Tensor3<T>& x_hat, const Tensor3<T>& x, const Tensor3<double>& forward_magnitude,
                             const Tensor3<double>& inverse_magnitude, const CoefficientSet<T>& c, unsigned threads = 1) {
  double defect = 1.0;
  for (double d : c.defects) defect *= 1.0 + d;
  const Tensor3<double> through_x = absolute_transform_of_magnitude(forward_magnitude, c.inverse, threads);
  // The bound is a multiple of the sum: two finite terms may add up past the largest double.
  Tensor3<double> sum = through_x;
  for (std::size_t i = 0; i < sum.size(); ++i) sum.data()[i] += inverse_magnitude.data()[i];
  require_finite_bound(sum, "the round trip's |D| |y_hat| + |D| |C| |x|");
  return compare_round_trip(x_hat, x, inverse_magnitude, through_x, defect - 1.0);
}

// The same when the magnitudes are not at hand: |C| |x| and |D| |y_hat| are computed here.
template <class T>
ErrorReport round_trip_error(const Tensor3<T>& x_hat, const Tensor3<T>& x, const Tensor3<T>& y_hat,
                             const CoefficientSet<T>& c) {
  return round_trip_error(x_hat, x, absolute_transform(x, c.forward), absolute_transform(y_hat, c.inverse), c);
}

}  // namespace torus
