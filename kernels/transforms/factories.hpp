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

}  // namespace torus
