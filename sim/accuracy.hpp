#pragma once
// Golden comparison with tolerances derived from the working precision and N (see
// docs/numerics.md). Each output element gets its own bound, proportional to what the
// arithmetic can guarantee for it: the three-stage error factor times the transform of |x|
// by |C|.

#include <array>
#include <cstddef>
#include <string>

#include "kernels/tensor3.hpp"
#include "kernels/transform.hpp"

namespace torus {

// gamma(n) = n u / (1 - n u): the relative error bound of n rounded operations (Higham).
double gamma_bound(double n, double unit_roundoff);
// Relative bound of three chained length-n inner products: (1 + e)^3 - 1 with e = gamma(n) for
// real data and sqrt(2) gamma(2n) for complex data computed with real fma (each component is a
// 2n-term real dot product).
double three_stage_factor(std::size_t n, double unit_roundoff, bool complex_data);
// The same for the first `stages` stages: (1 + e)^stages - 1.
double stage_factor(std::size_t n, double unit_roundoff, bool complex_data, int stages);

// The per-stage factor e of a radix-2 FFT of length n (kernels/fft.hpp) with fma butterflies,
// rounded twiddles and, when `scaled`, a final scaling: (1 + eps)^log2(n) (1 + sigma) - 1 with
// eps = sqrt(2) (1 + u) gamma(2) + u and sigma = (1 + u)^2 - 1 (0 unscaled), so that the
// computed y satisfies |y - C^T x|_i <= e (|C||x|)_i (docs/numerics.md, "FFT tasks").
double fft_stage_factor(std::size_t n, double unit_roundoff, bool scaled);
// (1 + e_1)(1 + e_2)(1 + e_3) - 1: the factor of three chained stages with their own factors.
double chained_factor(const std::array<double, 3>& stage);

struct ErrorReport {
  double max_abs_error = 0;        // max_i |result_i - reference_i|
  double max_rel_error = 0;        // max_abs_error / max_i |reference_i|
  double max_bound_ratio = 0;      // max_i |result_i - reference_i| / tolerance_i  (<= 1 passes)
  double tolerance_factor = 0;     // the gamma the bound used
  Extents3 worst_element{0, 0, 0}; // where the bound ratio peaks
  bool has_failure = false;
  Extents3 first_failure{0, 0, 0}; // first element (canonical order) beyond its bound
  bool within_tolerance() const { return !has_failure; }
};

// Per-element bound magnitude: the transform of |x| by the entrywise |M_a|, in double (on
// `threads` threads, the same bits: golden_transform).
template <class T>
Tensor3<double> absolute_transform(const Tensor3<T>& x, const std::array<Matrix<T>, 3>& per_axis, unsigned threads = 1);
// The same for a magnitude that is already non-negative and in double (e.g. |C||x|).
template <class T>
Tensor3<double> absolute_transform_of_magnitude(const Tensor3<double>& magnitude,
                                                const std::array<Matrix<T>, 3>& per_axis, unsigned threads = 1);

// Forward or inverse result against the golden reference computed with the same rounded
// coefficients: both round, so tolerance_i = 2 F (|M| |x|)_i with F = three_stage_factor.
template <class T>
ErrorReport compare_to_golden(const Tensor3<T>& result, const Tensor3<T>& golden, const Tensor3<double>& magnitude,
                              int stages = 3);

// The same with the simulated run's stages computed each its own way (per axis, the factor of
// the dense inner product, stage_factor(n, u, complex, 1), or of the FFT, fft_stage_factor),
// `own_coefficients` of the axes (the FFT's) not with the golden's rounded matrix but with
// twiddles of their own: tolerance_i = ((1 + chained_factor(simulated) + F)(1 + 2u)^k - 1)
// (|M| |x|)_i, F the golden's dense three-stage factor, k = own_coefficients (the golden's
// coefficient rounding on those axes, |C~ - C| <= u/(1 - u) |C~| <= 2u |C~|, no longer cancels).
// With every simulated factor the dense one and k = 0 this is exactly the tolerance above.
template <class T>
ErrorReport compare_to_golden_per_stage(const Tensor3<T>& result, const Tensor3<T>& golden, const Tensor3<double>& magnitude,
                                        const std::array<double, 3>& simulated_stage, int own_coefficients);

// A matrix product C = A B (inner length k) against the golden product of the same A and B:
// both are one length-k inner product per element, so tolerance_ij = 2 e (|A||B|)_ij with
// e = gamma(k) (real) or sqrt(2) gamma(2k) (complex on real fma): stage_factor(k, u, complex, 1).
template <class T>
ErrorReport compare_product_to_golden(const Tensor3<T>& result, const Tensor3<T>& golden, const Tensor3<double>& magnitude,
                                      std::size_t inner);

// For a wrong result whose intermediate tensors are known (the accumulator of each stage, in
// execution order), the first stage (1..3) whose partial result is beyond its bound, comparing
// with the golden partial products along `modes` (the mode of each stage); 0 if none is.
template <class T>
int first_wrong_stage(const Tensor3<T>& input, const std::array<Tensor3<T>, 3>& partials,
                      const std::array<Matrix<T>, 3>& per_axis, const std::array<int, 3>& modes);

// Round trip x -> y_hat -> x_hat against x: tolerance_i = F (|D||y_hat| + |D||C||x|)_i
// + ((1+d1)(1+d2)(1+d3) - 1) (|D||C||x|)_i, where d_a is the measured defect of the rounded
// pair on axis a (inverse_defect).
template <class T>
ErrorReport compare_round_trip(const Tensor3<T>& x_hat, const Tensor3<T>& x, const Tensor3<double>& through_y_hat,
                               const Tensor3<double>& through_x, double defect_factor);

// d = max_ij |C D - I|_ij / (|C||D|)_ij for the rounded matrices, in long double.
template <class T>
double inverse_defect(const Matrix<T>& forward, const Matrix<T>& inverse);

}  // namespace torus
