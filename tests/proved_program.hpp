#pragma once
// A transform algorithm's Program for a problem, accepted by the generic verifier and by the
// algorithm's own proofs (for tests of the algorithms built on sim/algorithm.hpp).

#include <catch2/catch.hpp>

#include <string>

#include "sim/algorithm.hpp"
#include "sim/program_verifier.hpp"

namespace torus {

inline Program proved(const std::string& name, const TransformProblem& pr) {
  const auto algorithm = make_algorithm(name);
  const Program program = algorithm->build(pr);
  const ProgramVerification verified = verify_program(program);
  INFO((verified.ok() ? "" : to_string(program, verified.violations.front())));
  REQUIRE(verified.ok());
  const AlgorithmCheck proof = algorithm->check(pr);
  INFO((proof.ok() ? "" : proof.violations.front()));
  CHECK(proof.ok());
  return program;
}

}  // namespace torus
