#include "kernels/transforms/factories.hpp"

namespace torus {
namespace {

// Orthonormal DST-II: C(n,k) = s_k sin(pi (2n+1)(k+1) / 2N), s_{N-1} = sqrt(1/N), otherwise
// sqrt(2/N). Orthogonal, so the inverse (DST-III) is the transpose.
class Dst final : public Transform {
 public:
  std::string name() const override { return "dst"; }
  bool complex_valued() const override { return false; }
  // (2n+1)(k+1) mod 4N indexes one table of sin(pi j / 2N), j < 4N, for C and D alike.
  std::optional<std::size_t> table_values(std::size_t n) const override { return 4 * n; }
  CoefficientMatrices matrices(std::size_t n) const override {
    check_size(n);
    constexpr long double pi = 3.141592653589793238462643383279502884L;
    const long double size = static_cast<long double>(n);
    return orthogonal_matrices(n, [&](std::size_t i, std::size_t k) {
      return std::sqrt((k + 1 == n ? 1.0L : 2.0L) / size) *
             std::sin(pi * static_cast<long double>((2 * i + 1) * (k + 1)) / (2.0L * size));
    });
  }
};

}  // namespace

std::unique_ptr<Transform> make_dst(const TransformOptions&) { return std::make_unique<Dst>(); }

}  // namespace torus
