#include "kernels/transforms/factories.hpp"

namespace torus {
namespace {

// The identity makes every block product a copy, so a misplaced block shows up as a
// misplaced value in the output: handy when debugging a schedule.
class Identity final : public Transform {
 public:
  std::string name() const override { return "identity"; }
  bool complex_valued() const override { return false; }
  std::optional<std::size_t> table_values(std::size_t) const override { return 0; }
  CoefficientMatrices matrices(std::size_t n) const override {
    check_size(n);
    const auto size = static_cast<Eigen::Index>(n);
    return {WideMatrix::Identity(size, size), WideMatrix::Identity(size, size)};
  }
};

}  // namespace

std::unique_ptr<Transform> make_identity(const TransformOptions&) {
  return std::make_unique<Identity>();
}

}  // namespace torus
