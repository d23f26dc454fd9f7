#include <bit>
#include <stdexcept>
#include <string>

#include "kernels/transforms/factories.hpp"

namespace torus {
namespace {

// Walsh-Hadamard in natural (Sylvester) order: C(n,k) = s_f (-1)^popcount(n & k). C*C = N*I.
class Wht final : public Transform {
 public:
  explicit Wht(Normalisation normalisation) : normalisation_(normalisation) {}
  std::string name() const override { return "wht"; }
  bool complex_valued() const override { return false; }
  // The sign of entry (n, k) is the parity of the bits n and k share: no table.
  std::optional<std::size_t> table_values(std::size_t) const override { return 0; }
  void check_size(std::size_t n) const override {
    if (n < 1 || !std::has_single_bit(n))
      throw std::invalid_argument("transform wht: N = " + std::to_string(n) +
                                  " is not allowed; Walsh-Hadamard needs N a power of two "
                                  "(1, 2, 4, 8, ...)");
  }
  CoefficientMatrices matrices(std::size_t n) const override {
    check_size(n);
    const auto sign = [](std::size_t i, std::size_t k) { return WideComplex(std::popcount(i & k) % 2 == 0 ? 1.0L : -1.0L); };
    return scaled_matrices(n, normalisation_, sign, [&](std::size_t k, std::size_t i) { return sign(i, k); });
  }

 private:
  Normalisation normalisation_;
};

}  // namespace

std::unique_ptr<Transform> make_wht(const TransformOptions& options) {
  return std::make_unique<Wht>(options.normalisation);
}

}  // namespace torus
