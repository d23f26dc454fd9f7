#pragma once
// Constructors of the built-in transforms, one per file; the registry in transform.cpp maps
// names to these. Also the scaling rule the unnormalised transforms share.

#include <cmath>
#include <memory>

#include "kernels/transform.hpp"

namespace torus {

std::unique_ptr<Transform> make_dft(const TransformOptions& options);
std::unique_ptr<Transform> make_dct(const TransformOptions& options);
std::unique_ptr<Transform> make_dst(const TransformOptions& options);
std::unique_ptr<Transform> make_dht(const TransformOptions& options);
std::unique_ptr<Transform> make_wht(const TransformOptions& options);
std::unique_ptr<Transform> make_identity(const TransformOptions& options);
std::unique_ptr<Transform> make_user(const TransformOptions& options);

// none: forward unscaled, inverse scaled by 1/n. ortho: both scaled by 1/sqrt(n).
struct ScalePair {
  long double forward;
  long double inverse;
};
inline ScalePair scales_for(Normalisation normalisation, std::size_t n) {
  const long double size = static_cast<long double>(n);
  if (normalisation == Normalisation::Ortho) return {1.0L / std::sqrt(size), 1.0L / std::sqrt(size)};
  return {1.0L, 1.0L / size};
}

// Angle 2*pi*(n*k mod size)/size: reducing the integer product first keeps the argument
// small, so the long double sine and cosine stay accurate for large n*k.
inline long double twiddle_angle(std::size_t n, std::size_t k, std::size_t size) {
  constexpr long double two_pi = 6.283185307179586476925286766559005768L;
  return two_pi * static_cast<long double>((n * k) % size) / static_cast<long double>(size);
}

// C(n,k) = s_f forward(n,k) and D(k,n) = s_i inverse(k,n), with the scales of the
// normalisation: the form of the DFT, DHT and WHT.
template <class Forward, class Inverse>
CoefficientMatrices scaled_matrices(std::size_t n, Normalisation normalisation, Forward forward, Inverse inverse) {
  const ScalePair scale = scales_for(normalisation, n);
  CoefficientMatrices m{WideMatrix(n, n), WideMatrix(n, n)};
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      m.forward(i, k) = scale.forward * forward(i, k);
      m.inverse(k, i) = scale.inverse * inverse(k, i);
    }
  return m;
}

// An orthogonal C(n,k) = entry(n,k), whose inverse is its transpose: the DCT-II and DST-II.
template <class Entry>
CoefficientMatrices orthogonal_matrices(std::size_t n, Entry entry) {
  CoefficientMatrices m{WideMatrix(n, n), WideMatrix(n, n)};
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i) {
      const long double value = entry(i, k);
      m.forward(i, k) = value;
      m.inverse(k, i) = value;
    }
  return m;
}

}  // namespace torus
