#include "kernels/transforms/factories.hpp"

namespace torus {
namespace {

class Dft final : public Transform {
 public:
  explicit Dft(Normalisation normalisation) : normalisation_(normalisation) {}
  std::string name() const override { return "dft"; }
  bool complex_valued() const override { return true; }

  // C(n,k) = s_f exp(-2 pi i nk/N) and D(k,n) = s_i exp(+2 pi i kn/N): D = C^{-1} exactly.
  CoefficientMatrices matrices(std::size_t n) const override {
    check_size(n);
    const ScalePair scale = scales_for(normalisation_, n);
    CoefficientMatrices m{WideMatrix(n, n), WideMatrix(n, n)};
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t i = 0; i < n; ++i) {
        const long double angle = twiddle_angle(i, k, n);
        const WideComplex unit(std::cos(angle), std::sin(angle));
        m.forward(i, k) = scale.forward * std::conj(unit);
        m.inverse(k, i) = scale.inverse * unit;
      }
    return m;
  }

 private:
  Normalisation normalisation_;
};

}  // namespace

std::unique_ptr<Transform> make_dft(const TransformOptions& options) {
  return std::make_unique<Dft>(options.normalisation);
}

}  // namespace torus
