#pragma once
// C of a matmul Program by the functional engine against Eigen's product of random operands
// (from `seed`, as a run draws them), for tests that build Programs without running the CLI; and
// the problems they build them for.

#include <cstdint>
#include <string>

#include "sim/matmul_run.hpp"
#include "sim/program_executor.hpp"

namespace torus {

// m x k times k x n on a rows x columns torus, one layer deep.
inline MatmulProblem torus_matmul_problem(int rows, int columns, std::size_t m, std::size_t k, std::size_t n) {
  return {{rows, columns, 1, {Topology::Torus, Topology::Torus, Topology::Torus}}, m, k, n};
}

inline RunConfig matmul_problem_config(const MatmulProblem& q, std::uint64_t seed) {
  RunConfig config;
  ParameterSet parameters;
  config.declare(parameters);
  parameters.set("task", "matmul");
  parameters.set("m", std::to_string(q.m));
  parameters.set("k", std::to_string(q.k));
  parameters.set("n", std::to_string(q.n));
  parameters.set("seed", std::to_string(seed));
  return config;
}

template <class T>
ErrorReport matmul_product_error(const Program& program, const MatmulProblem& q, std::uint64_t seed) {
  const HostData<T> host{Tensor3<T>(), {}, make_operands<T>(matmul_problem_config(q, seed))};
  MatmulOutcome outcome;
  outcome.problem = q;
  check_product(outcome, execute_program(program, host).gather(program, matmul_output), host.operands, program);
  return outcome.error;
}

}  // namespace torus
