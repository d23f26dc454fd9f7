// The golden comparison itself: its bounds pass what rounding can produce and fail anything
// beyond, element by element.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <random>
#include <tuple>
#include <vector>

#include "kernels/dense_product.hpp"
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
  // A NaN result is an infinite error, not a largest error of 0 that fails.
  result(0, 1, 2) = std::numeric_limits<double>::quiet_NaN();
  const ErrorReport with_nan = compare_to_golden(result, golden, magnitude);
  CHECK_FALSE(with_nan.within_tolerance());
  CHECK(std::isinf(with_nan.max_abs_error));
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

namespace {

template <class T>
Matrix<T> random_matrix(std::size_t rows, std::size_t cols) {
  return Matrix<T>::Random(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
}

}  // namespace

TEMPLATE_TEST_CASE("the golden and magnitude transforms on several threads give the one-thread bits", "[sim][accuracy]",
                   float, double, std::complex<float>, std::complex<double>) {
  using T = TestType;
  // Extents where the threads' column parts end off Eigen's register panels, mode-3 products
  // too narrow to split, and a cube as the runs have it; output extents differ from the input's.
  for (const Extents3 n : {Extents3{33, 40, 70}, Extents3{130, 7, 48}, Extents3{48, 70, 100}, Extents3{64, 64, 64}}) {
    Tensor3<T> x(n);
    x.values().assign(x.size(), T{});
    const Matrix<T> flat = random_matrix<T>(x.size(), 1);
    std::copy(flat.data(), flat.data() + flat.size(), x.data());
    const std::array<Matrix<T>, 3> m{random_matrix<T>(n[0], n[1]), random_matrix<T>(n[1], n[2]), random_matrix<T>(n[2], n[0])};
    const Tensor3<T> one = golden_transform(x, m);
    const Tensor3<double> one_magnitude = absolute_transform(x, m);
    for (const unsigned threads : {2u, 3u, 5u}) {
      INFO(n[0] << " x " << n[1] << " x " << n[2] << " on " << threads << " threads");
      CHECK(golden_transform(x, m, threads) == one);  // every word, exactly
      CHECK(absolute_transform(x, m, threads) == one_magnitude);
    }
  }
}

TEST_CASE("the golden reference's double product is each word's products added in order, on every path",
          "[sim][accuracy]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  // Sizes off the tiles (8 rows, 4 columns) and on them, A by rows or by columns, reused or not.
  for (const auto& [m, n, r_len] : {std::tuple{37, 13, 29}, std::tuple{64, 32, 48}, std::tuple{5, 3, 7}, std::tuple{16, 9, 1}}) {
    for (const bool by_rows : {false, true})
      for (const bool reused : {false, true}) {
        std::vector<double> a(static_cast<std::size_t>(m * r_len)), b(static_cast<std::size_t>(r_len * n));
        for (double& v : a) v = u(rng);
        for (double& v : b) v = u(rng);
        const std::size_t a_i = by_rows ? static_cast<std::size_t>(r_len) : 1, a_r = by_rows ? 1 : static_cast<std::size_t>(m);
        std::vector<double> fast(static_cast<std::size_t>(m * n), 7.0), portable = fast, expected(fast.size());
        for (std::size_t j = 0; j < static_cast<std::size_t>(n); ++j)
          for (std::size_t i = 0; i < static_cast<std::size_t>(m); ++i) {
            volatile double acc = 0;  // each product and each sum rounded, in increasing r
            for (std::size_t r = 0; r < static_cast<std::size_t>(r_len); ++r) {
              volatile double product = a[a_i * i + a_r * r] * b[r + static_cast<std::size_t>(r_len) * j];
              acc = acc + product;
            }
            expected[i + static_cast<std::size_t>(m) * j] = acc;
          }
        const auto mm = static_cast<std::size_t>(m), nn = static_cast<std::size_t>(n), rr = static_cast<std::size_t>(r_len);
        dense_product(mm, nn, rr, a.data(), a_i, a_r, b.data(), rr, fast.data(), mm, reused);
        dense_product_portable(mm, nn, rr, a.data(), a_i, a_r, b.data(), rr, portable.data(), mm);
        INFO(m << " x " << n << " by " << r_len << (by_rows ? ", A by rows" : "") << (reused ? ", A reused" : ""));
        CHECK(fast == expected);  // every word, exactly
        CHECK(portable == expected);
      }
  }
}
