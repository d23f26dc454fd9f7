// The Eigen golden reference against FFTW3, an independent implementation: DFT through
// fftw_plan_dft_3d, DCT-II through REDFT10, DST-II through RODFT10, DHT through FFTW_DHT, at
// powers of two and not.
//
// Tolerance (normwise, 2-norm): the golden result g obeys |g - y| <= F |C|^(x3)|x| elementwise
// with F = three_stage_factor (docs/numerics.md), so ||g - y|| <= F || |C|^(x3)|x| ||. FFTW's
// Cooley-Tukey style algorithms obey ||f - y|| <= L eta ||y|| with L levels per dimension
// (at most ceil(log2 N) + 1 for the radices 2..5 of these sizes) and eta = sqrt(2) gamma(8) for
// a butterfly with twiddle (Higham, "Accuracy and Stability of Numerical Algorithms", Thm 24.2,
// with the radix-5 butterfly's extra additions); three dimensions give 3 L eta. REDFT10 and
// RODFT10 run through the same FFTW algorithms (a real DFT of size N between one pre-processing
// addition and one post-processing rotation per element, counted in the "+ 1" level of L), so
// one bound covers DCT-II and DST-II alike; rescaling FFTW's output to the orthonormal
// convention costs three more roundings per element, inside the same bound's slack at every
// size tested (the worst ratio to the bound is printed on failure).

#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <fftw3.h>
#include <random>

#include "kernels/mode_product.hpp"
#include "kernels/scalar.hpp"
#include "kernels/transform.hpp"
#include "sim/accuracy.hpp"
#include "sim/run_inputs.hpp"

using namespace torus;

namespace {

template <class T>
Tensor3<T> golden(const Tensor3<T>& x, const std::string& name) {
  const CoefficientMatrices m = make_transform(name, {})->matrices(x.extent(0));
  const Matrix<T> c = round_coefficients<T>(m.forward);
  return golden_transform(x, {c, c, c});
}

template <class T>
double l2(const Tensor3<T>& t) {
  double s = 0;
  for (const T& v : t.values()) s += std::norm(v);
  return std::sqrt(s);
}

template <class T>
double l2_difference(const Tensor3<T>& a, const Tensor3<T>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += std::norm(a.data()[i] - b.data()[i]);
  return std::sqrt(s);
}

template <class T>
void check_against_fftw(const Tensor3<T>& x, const Tensor3<T>& fftw_result, const std::string& name) {
  const std::size_t n = x.extent(0);
  const Tensor3<T> g = golden(x, name);
  const CoefficientMatrices m = make_transform(name, {})->matrices(n);
  const Matrix<T> c = round_coefficients<T>(m.forward);
  const double u = 0x1p-53;
  const double golden_bound = three_stage_factor(n, u, is_complex_v<T>) * l2(absolute_transform(x, {c, c, c}));
  const double levels = std::ceil(std::log2(static_cast<double>(n))) + 1.0;
  const double fftw_bound = 3.0 * levels * std::sqrt(2.0) * gamma_bound(8, u) * l2(fftw_result);
  const double difference = l2_difference(g, fftw_result);
  INFO(name << " N=" << n << ": ||golden - fftw|| = " << difference << ", bound " << golden_bound + fftw_bound);
  CHECK(difference <= golden_bound + fftw_bound);
}

}  // namespace

TEST_CASE("golden DFT matches fftw_plan_dft_3d", "[kernels][golden][fftw]") {
  const std::size_t n = GENERATE(1, 2, 4, 6, 8, 12, 15, 16);
  using C = std::complex<double>;
  const Tensor3<C> x = random_tensor<C>(n, 7);
  Tensor3<C> in = x, out(n, n, n);
  const int size = static_cast<int>(n);
  // The tensor is column-major and FFTW reads row-major: the axes come reversed, which the
  // 3D DFT (the same on every axis) does not notice.
  fftw_plan plan = fftw_plan_dft_3d(size, size, size, reinterpret_cast<fftw_complex*>(in.data()),
                                    reinterpret_cast<fftw_complex*>(out.data()), FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  if (n == 1) CHECK(golden(x, "dft") == out);
  else check_against_fftw(x, out, "dft");
}

TEST_CASE("golden DCT-II, DST-II and DHT match FFTW's REDFT10, RODFT10 and DHT", "[kernels][golden][fftw]") {
  const std::size_t n = GENERATE(2, 4, 6, 8, 12, 15);
  const auto kind = GENERATE(FFTW_REDFT10, FFTW_RODFT10, FFTW_DHT);
  const Tensor3<double> x = random_tensor<double>(n, 11);
  Tensor3<double> in = x, out(n, n, n);
  const int size = static_cast<int>(n);
  fftw_plan plan = fftw_plan_r2r_3d(size, size, size, in.data(), out.data(), kind, kind, kind, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  if (kind != FFTW_DHT) {
    // FFTW's REDFT10 is 2 sum x_n cos(pi (2n+1) k / 2N), RODFT10 2 sum x_n sin(pi (2n+1)(k+1) / 2N);
    // the orthonormal DCT-II and DST-II scale output k by s_k / 2 with s_k = sqrt(2/N), except
    // sqrt(1/N) at k = 0 (DCT) or k = N - 1 (DST).
    const std::size_t single = kind == FFTW_REDFT10 ? 0 : n - 1;
    const auto scale = [n, single](std::size_t k) {
      return std::sqrt((k == single ? 1.0 : 2.0) / static_cast<double>(n)) / 2.0;
    };
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = 0; i < n; ++i) out(i, j, k) *= scale(i) * scale(j) * scale(k);
  }
  check_against_fftw(x, out, kind == FFTW_REDFT10 ? "dct" : kind == FFTW_RODFT10 ? "dst" : "dht");
}
