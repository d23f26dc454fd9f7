#pragma once
// The rounded coefficient matrices of a transform spec ("dct" or "dct,dft,dht") for the lengths
// of an N1 x N2 x N3 tensor, forward (C) or inverse (D), for tests that run Programs directly.

#include <array>
#include <string>

#include "kernels/transform.hpp"
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

}  // namespace torus
