#include "kernels/transforms/factories.hpp"

namespace torus {
namespace {

class Dft final : public Transform {
 public:
  explicit Dft(Normalisation normalisation) : normalisation_(normalisation) {}
  std::string name() const override { return "dft"; }
  bool complex_valued() const override { return true; }
  // nk mod N indexes two tables, cos and sin of 2 pi j / N (D is the conjugate, scaled).
  std::optional<std::size_t> table_values(std::size_t n) const override { return 2 * n; }

  // C(n,k) = s_f exp(-2 pi i nk/N) and D(k,n) = s_i exp(+2 pi i kn/N): D = C^{-1} exactly.
  CoefficientMatrices matrices(std::size_t n) const override {
    check_size(n);
    const auto unit = [n](std::size_t i, std::size_t k) {
      const long double angle = twiddle_angle(i, k, n);
      return WideComplex(std::cos(angle), std::sin(angle));
    };
    return scaled_matrices(
        n, normalisation_, [&](std::size_t i, std::size_t k) { return std::conj(unit(i, k)); },
        [&](std::size_t k, std::size_t i) { return unit(i, k); });
  }

 private:
  Normalisation normalisation_;
};

}  // namespace

std::unique_ptr<Transform> make_dft(const TransformOptions& options) {
  return std::make_unique<Dft>(options.normalisation);
}

}  // namespace torus
