// Coefficient matrices: inverse pairs, orthonormality, definitions, errors, user matrices.

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "kernels/npy.hpp"
#include "kernels/transform.hpp"
#include "tests/temp_dir.hpp"

using namespace torus;

namespace {

long double max_abs(const WideMatrix& m) {
  long double worst = 0;
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    for (Eigen::Index i = 0; i < m.rows(); ++i) worst = std::max(worst, std::abs(m(i, j)));
  return worst;
}

// Generated in long double: C D = I holds to a few long double ulps times N.
long double identity_defect(const CoefficientMatrices& m) {
  return max_abs(m.forward * m.inverse - WideMatrix::Identity(m.forward.rows(), m.forward.cols()));
}

}  // namespace

TEST_CASE("every built-in transform's inverse is its inverse", "[kernels][transform]") {
  const auto name = GENERATE(as<std::string>{}, "dft", "dct", "dst", "dht", "wht", "identity");
  const auto normalisation = GENERATE(Normalisation::None, Normalisation::Ortho);
  const std::size_t n = GENERATE(1, 2, 4, 8, 16);
  TransformOptions options;
  options.normalisation = normalisation;
  const auto t = make_transform(name, options);
  const CoefficientMatrices m = t->matrices(n);
  // long double eps ~ 1.1e-19; each entry of C D is an n-term sum.
  CHECK(identity_defect(m) <= 64.0L * static_cast<long double>(n) * 1.0842e-19L);
}

TEST_CASE("orthonormal transforms have D = C^H", "[kernels][transform]") {
  const auto name = GENERATE(as<std::string>{}, "dct", "dst");
  const std::size_t n = GENERATE(3, 6, 12, 15);
  const CoefficientMatrices m = make_transform(name, {})->matrices(n);
  CHECK(max_abs(m.inverse - m.forward.adjoint()) == 0.0L);
  CHECK(identity_defect(m) < 1e-16L);
}

TEST_CASE("DFT coefficients follow exp(-2 pi i nk/N) and normalisation", "[kernels][transform]") {
  const std::size_t n = 6;
  TransformOptions none;
  const CoefficientMatrices m = make_transform("dft", none)->matrices(n);
  const long double angle = -2.0L * 3.14159265358979323846264338327950288L * 2.0L * 3.0L / 6.0L;
  CHECK(std::abs(m.forward(2, 3) - WideComplex(std::cos(angle), std::sin(angle))) < 1e-18L);
  CHECK(std::abs(m.inverse(3, 2) - std::conj(m.forward(2, 3)) / 6.0L) < 1e-18L);
  TransformOptions ortho;
  ortho.normalisation = Normalisation::Ortho;
  const CoefficientMatrices o = make_transform("dft", ortho)->matrices(n);
  CHECK(std::abs(o.forward(2, 3) * std::sqrt(6.0L) - m.forward(2, 3)) < 1e-18L);
  CHECK(make_transform("dft", none)->complex_valued());
  CHECK_FALSE(make_transform("dct", none)->complex_valued());
}

TEST_CASE("WHT is Sylvester-ordered and needs a power of two", "[kernels][transform][errors]") {
  const CoefficientMatrices m = make_transform("wht", {})->matrices(4);
  // Row n, column k: (-1)^popcount(n & k); row 3 = (+1, -1, -1, +1).
  CHECK(m.forward(3, 0).real() == 1.0L);
  CHECK(m.forward(3, 1).real() == -1.0L);
  CHECK(m.forward(3, 2).real() == -1.0L);
  CHECK(m.forward(3, 3).real() == 1.0L);
  const auto wht = make_transform("wht", {});
  CHECK_THROWS_WITH(wht->matrices(12), Catch::Contains("N = 12") && Catch::Contains("power of two"));
  CHECK_THROWS_WITH(wht->check_size(6), Catch::Contains("power of two"));
}

TEST_CASE("unknown transform names are refused with the allowed list", "[kernels][transform][errors]") {
  CHECK_THROWS_WITH(make_transform("fft", {}), Catch::Contains("'fft'") && Catch::Contains("dft, dct"));
  CHECK_THROWS_WITH(make_transform("dtc", {}), Catch::Contains("did you mean 'dct'"));
  CHECK_THROWS_WITH(parse_axis_transforms("dct,dft", {}), Catch::Contains("three separated by commas"));
  const AxisTransforms mixed = parse_axis_transforms("dct,dft,dht", {});
  CHECK(mixed.describe() == "dct,dft,dht");
  CHECK(mixed.complex_valued());
  CHECK(parse_axis_transforms("dst", {}).describe() == "dst");
}

TEST_CASE("user matrix from text and npy, transposed from y = A x", "[kernels][transform][user]") {
  TempDir dir;
  const std::string text = dir.file("a.txt");
  std::ofstream(text) << "# y = A x\n2 1 0\n0 1 0\n1, 0, 4\n";
  TransformOptions options;
  options.user_matrix_path = text;
  const auto t = make_transform("user", options);
  const CoefficientMatrices m = t->matrices(3);
  CHECK(m.forward(0, 2).real() == 1.0L);  // C(n=0, k=2) = A(2, 0)
  CHECK(m.forward(2, 0).real() == 0.0L);
  CHECK(identity_defect(m) < 1e-17L);
  CHECK_THROWS_WITH(t->matrices(4), Catch::Contains("3 x 3") && Catch::Contains("N = 4"));

  Tensor3<double> dummy(1, 1, 1);
  write_npy(dir.file("t.npy"), dummy);
  options.user_matrix_path = dir.file("t.npy");
  CHECK_THROWS_WITH(make_transform("user", options), Catch::Contains("square 2-dimensional"));
}

TEST_CASE("singular or ill-conditioned user matrices are refused with the estimate", "[kernels][transform][errors]") {
  TempDir dir;
  TransformOptions options;
  options.user_matrix_path = dir.file("singular.txt");
  std::ofstream(options.user_matrix_path) << "1 2\n2 4\n";
  CHECK_THROWS_WITH(make_transform("user", options), Catch::Contains("singular or badly conditioned"));
  options.user_matrix_path = dir.file("ill.txt");
  std::ofstream(options.user_matrix_path) << "1 1\n1 1.000000001\n";
  options.unit_roundoff = 0x1p-24;  // float: condition ~4e9 is far beyond 1e-3/u
  CHECK_THROWS_WITH(make_transform("user", options), Catch::Contains("condition number"));
  options.unit_roundoff = 0x1p-53;  // double tolerates it (limit ~9e12)
  CHECK_NOTHROW(make_transform("user", options));
  options.user_matrix_path = dir.file("missing.txt");
  CHECK_THROWS_WITH(make_transform("user", options), Catch::Contains("cannot be opened"));
  options.user_matrix_path = "";
  CHECK_THROWS_WITH(make_transform("user", options), Catch::Contains("needs user_matrix"));
}
