#pragma once
// The machine's radix-2 FFT of one line, in the run's element type: the arithmetic every
// engine and executor performs for an FFT task (sim/program.hpp, FftSpec), so that values are
// bit-identical wherever a Program runs. Its rounding-error bound is derived in
// docs/numerics.md ("FFT tasks").
//
// Forward: y_k = sum_n x_n exp(-2 pi i nk/N) (the sign of kernels/transforms/dft.cpp), inverse
// the sign +i; then every word is multiplied by `scale`. Twiddles exp(-+2 pi i j/N) are
// computed in long double and rounded once to the element type. The passes are decimation in
// time after a bit-reversal permutation; a butterfly a' = a + w b, b' = a - w b forms each real
// component with two std::fma (re: fma(w_re, b_re, fma(-w_im, b_im, a_re)), and so on), eight
// real fma per butterfly.

#include <complex>
#include <cstddef>
#include <vector>

namespace torus {

// The twiddles w_j = exp(-+2 pi i j/n), j < n/2, rounded to the element type T.
template <class T>
std::vector<T> fft_twiddles(std::size_t n, bool inverse);

// Transforms line[0..n) in place (n a power of two; n = 1 leaves it unchanged but for the
// scale) with twiddles from fft_twiddles(n, inverse). scale == 1 skips the scaling; otherwise
// scale is rounded to T's real type and each component multiplied by it (one rounding).
// T must be std::complex<float> or std::complex<double>; throws std::invalid_argument when n is
// not a power of two or the twiddle table does not have n/2 entries.
template <class T>
void fft_line(T* line, std::size_t n, const std::vector<T>& twiddles, double scale);

// Whether n is a power of two (>= 1).
constexpr bool is_power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

}  // namespace torus
