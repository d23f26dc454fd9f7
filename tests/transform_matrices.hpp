#pragma once
// The rounded coefficient matrices of a transform spec ("dct" or "dct,dft,dht") for the lengths
// of an N1 x N2 x N3 tensor, forward (C) or inverse (D), for tests that run Programs directly;
// and the cubic problems they build them for.

#include <array>
#include <string>

#include <vector>

#include "kernels/scalar.hpp"
#include "kernels/transform.hpp"
#include "sim/algorithm.hpp"
#include "sim/schedule.hpp"

namespace torus {

template <class T>
std::array<Matrix<T>, 3> transform_matrices(const std::string& spec, const Extents3& n, TransformDirection direction) {
  const AxisTransforms transforms = parse_axis_transforms(spec, {});
  std::array<Matrix<T>, 3> out;
  for (std::size_t a = 0; a < 3; ++a) {
    const CoefficientMatrices m = transforms.axis[a]->matrices(n[a]);
    out[a] = round_coefficients<T>(direction == TransformDirection::Forward ? m.forward : m.inverse);
  }
  return out;
}

// A cubic run's matrices for data of type T: the DCT for real data, the DFT for complex.
template <class T>
std::array<Matrix<T>, 3> cube_transform_matrices(std::size_t n, TransformDirection direction) {
  return transform_matrices<T>(is_complex_v<T> ? "dft" : "dct", {n, n, n}, direction);
}

// The transforms of a P x P x P torus with b x b x b blocks under scheduling vector `alpha`.
inline TransformProblem cube_problem(int p, std::size_t b, const std::string& alpha, const std::vector<TransformDirection>& directions) {
  return {TorusShape::cube(p), BlockGrid::cube(b, p), SchedulingVector::parse(alpha), directions};
}

}  // namespace torus
