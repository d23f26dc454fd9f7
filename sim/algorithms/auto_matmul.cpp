// algorithm: auto, the library rule of Mathur and Johnsson ("Multiplication of matrices of
// arbitrary shape on a data parallel computer", section 5, the CMSSL choice behind their
// Figure 18): A stationary when m / n >= 8, B stationary when n / m >= 16, systolic (C
// stationary) otherwise. The rule reads the shape of C only; the array is the user's.

#include <stdexcept>
#include <string>

#include "sim/algorithms/factories.hpp"
#include "sim/matmul.hpp"

namespace torus {

std::string chosen_matmul_algorithm(const MatmulProblem& problem) {
  if (problem.m >= 8 * problem.n) return "a_stationary";
  if (problem.n >= 16 * problem.m) return "b_stationary";
  return "systolic";
}

namespace {

class AutoMatmul final : public MatmulAlgorithm {
 public:
  std::string name() const override { return "auto"; }
  // A refusal of the chosen algorithm is given as auto's, so the user sees which choice failed.
  void require(const MatmulProblem& problem) const override {
    const std::string name = chosen_matmul_algorithm(problem);
    try {
      make_matmul_algorithm(name)->require(problem);
    } catch (const std::invalid_argument& refusal) {
      throw std::invalid_argument(std::string(refusal.what()) + " (algorithm: auto chose " + name + " for C of " +
                                  std::to_string(problem.m) + " x " + std::to_string(problem.n) +
                                  "; choose an algorithm to run another)");
    }
  }
  Program build(const MatmulProblem& problem) const override { return chosen(problem)->build(problem); }
  AlgorithmCheck check(const MatmulProblem& problem) const override { return chosen(problem)->check(problem); }

 private:
  static std::unique_ptr<MatmulAlgorithm> chosen(const MatmulProblem& problem) {
    return make_matmul_algorithm(chosen_matmul_algorithm(problem));
  }
};

}  // namespace

std::unique_ptr<MatmulAlgorithm> make_auto_matmul() { return std::make_unique<AutoMatmul>(); }

}  // namespace torus
