// The bare baseline for the values the simulator computes: a 3D separable transform of an
// N x N x N tensor as three dense mode products with Eigen, nothing else (no torus, no blocks,
// no Program, no check). tools/benchmark.py runs it beside `torus-sim run` in the same session
// and reports the ratio of their times.
//
//   torus-bare-transform N TRANSFORMS    prints the seconds TRANSFORMS transforms of size N took, and a checksum

#include <Eigen/Dense>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <string_view>

namespace {

using Matrix = Eigen::MatrixXd;

bool parse(std::string_view text, long& value, long low, long high) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && value >= low && value <= high;
}

// X is stored first index fastest; each product contracts one index with C (N^4 multiply-adds).
void transform(Matrix& x, Matrix& scratch, const Matrix& c, long n) {
  // Mode 1: X as N x N^2, Y = C^T X.
  scratch.noalias() = c.transpose() * x;
  // Mode 2: per last index, the N x N slice times C.
  for (long l = 0; l < n; ++l) x.middleCols(l * n, n).noalias() = scratch.middleCols(l * n, n) * c;
  // Mode 3: X as N^2 x N, Y = X C.
  Eigen::Map<Matrix> wide(x.data(), n * n, n), out(scratch.data(), n * n, n);
  out.noalias() = wide * c;
  x.swap(scratch);
}

}  // namespace

int main(int argc, char** argv) {
  long n = 0, transforms = 0;
  if (argc != 3 || !parse(argv[1], n, 1, 2048) || !parse(argv[2], transforms, 1, 16)) {
    std::fprintf(stderr, "usage: torus-bare-transform N TRANSFORMS (N from 1 to 2048, TRANSFORMS from 1 to 16)\n");
    return 2;
  }
  Matrix x = Matrix::Random(n, n * n), scratch(n, n * n), c = Matrix::Random(n, n);
  const auto start = std::chrono::steady_clock::now();
  for (long t = 0; t < transforms; ++t) transform(x, scratch, c, n);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%.6f %.6e\n", seconds, x.sum());  // the sum keeps the work from being optimised away
  return 0;
}
