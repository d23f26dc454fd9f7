#include "kernels/fft.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/transforms/factories.hpp"

namespace torus {

template <class T>
std::vector<T> fft_twiddles(std::size_t n, bool inverse) {
  using R = typename T::value_type;
  std::vector<T> out(n / 2);
  for (std::size_t j = 0; j < n / 2; ++j) {
    const long double angle = twiddle_angle(j, 1, n);
    const long double im = inverse ? std::sin(angle) : -std::sin(angle);
    out[j] = T(static_cast<R>(std::cos(angle)), static_cast<R>(im));
  }
  return out;
}

namespace {

template <class T>
void bit_reverse(T* line, std::size_t n) {
  const int bits = std::countr_zero(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t r = 0;
    for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1U) << (bits - 1 - b);
    if (i < r) std::swap(line[i], line[r]);
  }
}

// a' = a + w b, b' = a - w b: two fma per real component, the inner one adding the cross term.
template <class T>
void butterfly(T& a, T& b, const T& w) {
  using R = typename T::value_type;
  const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag(), wr = w.real(), wi = w.imag();
  a = T(std::fma(wr, br, std::fma(-wi, bi, ar)), std::fma(wr, bi, std::fma(wi, br, ai)));
  b = T(std::fma(-wr, br, std::fma(wi, bi, ar)), std::fma(-wr, bi, std::fma(-wi, br, ai)));
}

}  // namespace

template <class T>
void fft_line(T* line, std::size_t n, const std::vector<T>& twiddles, double scale) {
  using R = typename T::value_type;
  if (!is_power_of_two(n)) throw std::invalid_argument("fft: length " + std::to_string(n) + " is not a power of two");
  if (twiddles.size() != n / 2)
    throw std::invalid_argument("fft: " + std::to_string(twiddles.size()) + " twiddles for length " + std::to_string(n));
  bit_reverse(line, n);
  for (std::size_t half = 1; half < n; half *= 2) {
    const std::size_t stride = n / (2 * half);  // twiddle index step of this pass
    for (std::size_t group = 0; group < n; group += 2 * half)
      for (std::size_t j = 0; j < half; ++j) butterfly(line[group + j], line[group + j + half], twiddles[j * stride]);
  }
  if (scale == 1) return;
  const R s = static_cast<R>(scale);
  for (std::size_t i = 0; i < n; ++i) line[i] = T(line[i].real() * s, line[i].imag() * s);
}

template std::vector<std::complex<float>> fft_twiddles(std::size_t, bool);
template std::vector<std::complex<double>> fft_twiddles(std::size_t, bool);
template void fft_line(std::complex<float>*, std::size_t, const std::vector<std::complex<float>>&, double);
template void fft_line(std::complex<double>*, std::size_t, const std::vector<std::complex<double>>&, double);

}  // namespace torus
