#include "kernels/transforms/factories.hpp"

namespace torus {
namespace {

// Hartley: C(n,k) = s_f cas(2 pi nk/N), cas = cos + sin. C is symmetric and C*C = N*I, so
// D = (s_i / s_f) * C with the scales of the normalisation.
class Dht final : public Transform {
 public:
  explicit Dht(Normalisation normalisation) : normalisation_(normalisation) {}
  std::string name() const override { return "dht"; }
  bool complex_valued() const override { return false; }
  // nk mod N indexes one table of cas(2 pi j / N) (D is C, scaled).
  std::optional<std::size_t> table_values(std::size_t n) const override { return n; }
  CoefficientMatrices matrices(std::size_t n) const override {
    check_size(n);
    const auto cas = [n](std::size_t i, std::size_t k) {
      const long double angle = twiddle_angle(i, k, n);
      return WideComplex(std::cos(angle) + std::sin(angle));
    };
    return scaled_matrices(n, normalisation_, cas, [&](std::size_t k, std::size_t i) { return cas(i, k); });
  }

 private:
  Normalisation normalisation_;
};

}  // namespace

std::unique_ptr<Transform> make_dht(const TransformOptions& options) {
  return std::make_unique<Dht>(options.normalisation);
}

}  // namespace torus
