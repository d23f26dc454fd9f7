// The golden comparison itself: its bounds pass what rounding can produce and fail anything
// beyond, element by element.

#include <catch2/catch.hpp>

#include "kernels/mode_product.hpp"
#include "kernels/transform.hpp"
#include "sim/accuracy.hpp"
#include "sim/executor.hpp"

using namespace torus;

TEST_CASE("three-stage factor follows the derivation", "[sim][accuracy]") {
  const double u = 0x1p-53;
  const double real_stage = gamma_bound(16, u);
  CHECK(three_stage_factor(16, u, false) == Approx(3 * real_stage + 3 * real_stage * real_stage + real_stage * real_stage * real_stage));
  CHECK(three_stage_factor(16, u, true) > three_stage_factor(16, u, false) * 2.8);  // sqrt(2) gamma(2N) per stage
  CHECK(gamma_bound(10, 0.01) == Approx(0.1 / 0.9));
}

TEST_CASE("an element just beyond its bound fails and is located", "[sim][accuracy]") {
  Tensor3<double> golden(3, 3, 3, 0.0), magnitude(3, 3, 3, 2.0);  // zero reference: perturbations stay exact
  const double tolerance = 2.0 * three_stage_factor(3, 0x1p-53, false) * 2.0;
  Tensor3<double> result = golden;
  result(1, 2, 0) += 0.99 * tolerance;
  CHECK(compare_to_golden(result, golden, magnitude).within_tolerance());
  result(2, 0, 1) += 1.01 * tolerance;
  const ErrorReport e = compare_to_golden(result, golden, magnitude);
  CHECK_FALSE(e.within_tolerance());
  CHECK(e.first_failure == Extents3{2, 0, 1});
  CHECK(e.max_bound_ratio == Approx(1.01));
}

TEST_CASE("a wrong coefficient block on one axis is caught by the golden check", "[sim][accuracy]") {
  const std::size_t n = 8;
  const CoefficientMatrices m = make_transform("dct", {})->matrices(n);
  const Matrix<double> c = round_coefficients<double>(m.forward);
  Matrix<double> wrong = c;
  wrong.block(2, 4, 2, 2) = c.block(4, 2, 2, 2);  // one b x b block taken from the wrong place
  Tensor3<double> x(n, n, n);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<double>((i * 7919) % 13) / 13.0 - 0.5;
  const Schedule s = generate_schedule(TorusShape::cube(4), 2, SchedulingVector::parse("+-+"), TransformDirection::Forward);
  const ExecutionResult<double> y = execute_schedule(s, x, {c, wrong, c});
  const ErrorReport e = compare_to_golden(y.canonical, golden_transform(x, {c, c, c}), absolute_transform(x, {c, c, c}));
  CHECK_FALSE(e.within_tolerance());
  CHECK(e.max_bound_ratio > 1e6);
}

TEST_CASE("the first wrong stage is found from the stages' partial results", "[sim][accuracy]") {
  const std::size_t n = 6;
  const CoefficientMatrices m = make_transform("dht", {})->matrices(n);
  const Matrix<double> c = round_coefficients<double>(m.forward);
  Tensor3<double> x(n, n, n);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<double>((i * 31) % 17) / 17.0 - 0.5;
  const std::array<int, 3> modes{3, 1, 2};  // the forward schedule's stage order
  std::array<Tensor3<double>, 3> partials;
  partials[0] = mode_product(x, c, 3);
  partials[1] = mode_product(partials[0], c, 1);
  partials[2] = mode_product(partials[1], c, 2);
  CHECK(first_wrong_stage(x, partials, {c, c, c}, modes) == 0);
  // A wrong block in stage II spoils stages II and III.
  partials[1](4, 2, 1) += 1e-3;
  partials[2] = mode_product(partials[1], c, 2);
  CHECK(first_wrong_stage(x, partials, {c, c, c}, modes) == 2);
}
