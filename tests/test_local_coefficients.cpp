// The orbital schedule with local coefficients (Lirkov, Sedukhin et al.): on any P1 x P2 x P3,
// with uneven blocks and P_a = 1, forward, inverse and round trip, every transform: proved by
// the generic verifier and the algorithm's own checks, computed by the functional executor and
// golden-checked, with the counts it promises and the canonical layout.

#include <catch2/catch.hpp>

#include <complex>

#include "kernels/mode_product.hpp"
#include "sim/accuracy.hpp"
#include "sim/algorithm.hpp"
#include "sim/algorithms/factories.hpp"
#include "sim/program_executor.hpp"
#include "sim/program_verifier.hpp"
#include "sim/run_inputs.hpp"
#include "tests/transform_matrices.hpp"

using namespace torus;

namespace {

using D = TransformDirection;

struct LocalShape {
  Extents3 n;
  std::array<std::size_t, 3> p;
};

// The shapes of the issue: cubes and not, P_a = 1, uneven blocks.
const std::vector<LocalShape>& local_shapes() {
  static const std::vector<LocalShape> all = {{{4, 6, 8}, {2, 3, 4}}, {{8, 4, 3}, {4, 2, 1}}, {{6, 6, 10}, {3, 3, 5}},
                                         {{10, 10, 10}, {4, 3, 2}}, {{7, 9, 11}, {2, 2, 3}}, {{5, 5, 5}, {1, 1, 1}},
                                         {{3, 5, 4}, {1, 5, 2}}};
  return all;
}

TransformProblem local_problem(const LocalShape& s, const std::string& alpha, std::vector<D> directions) {
  return {{static_cast<int>(s.p[0]), static_cast<int>(s.p[1]), static_cast<int>(s.p[2])}, BlockGrid::make(s.n, s.p),
          SchedulingVector::parse(alpha), std::move(directions)};
}


// A round trip through the executor, each transform golden-checked against what went in.
template <class T>
void check_local_round_trip(const LocalShape& s, const std::string& spec, const std::string& alpha) {
  INFO("N=" << extents_text(s.n) << " P=" << s.p[0] << "x" << s.p[1] << "x" << s.p[2] << " " << spec << " alpha " << alpha);
  const auto local = make_algorithm("orbital_local_coefficients");
  const TransformProblem pr = local_problem(s, alpha, {D::Forward, D::Inverse});
  const Program program = local->build(pr);
  const ProgramVerification verified = verify_program(program);
  INFO((verified.ok() ? "" : to_string(program, verified.violations.front())));
  REQUIRE(verified.ok());
  const AlgorithmCheck proof = local->check(pr);
  INFO((proof.ok() ? "" : proof.violations.front()));
  CHECK(proof.ok());
  const auto c = transform_matrices<T>(spec, s.n, D::Forward), d = transform_matrices<T>(spec, s.n, D::Inverse);
  const HostData<T> host{random_tensor<T>(s.n, 21), {c, d}, {}};
  const ProgramResult<T> result = execute_program(program, host);
  const Tensor3<T> y = result.gather(program, "forward");
  CHECK(compare_to_golden(y, golden_transform(host.input, c), absolute_transform(host.input, c)).within_tolerance());
  const Tensor3<T> x = result.gather(program, "inverse");
  CHECK(compare_to_golden(x, golden_transform(y, d), absolute_transform(y, d)).within_tolerance());
  // P1 + P2 + P3 steps of one block multiply-add per node, N1 N2 N3 (N1 + N2 + N3) multiply-adds,
  // one data block per step on the links and never a coefficient block.
  const std::size_t nodes = s.p[0] * s.p[1] * s.p[2], steps = s.p[0] + s.p[1] + s.p[2];
  for (const ProgramExecutionCounts& counts : result.per_transform) {
    CHECK(counts.steps == steps);
    CHECK(counts.compute_tasks == nodes * steps);
    CHECK(counts.scalar_multiply_adds == s.n[0] * s.n[1] * s.n[2] * (s.n[0] + s.n[1] + s.n[2]));
  }
  for (const Message& m : program.messages) {
    CHECK(program.tag_kinds[m.tag.kind].axis == 0);
    CHECK(m.words <= program.grid.largest_words());
  }
}

}  // namespace

TEST_CASE("local coefficients: every shape, real transforms, round trips golden-checked and proved", "[local][executor]") {
  for (const LocalShape& s : local_shapes())
    for (const std::string alpha : {"+++", "-+-", "+--"}) check_local_round_trip<double>(s, "dct,dst,dht", alpha);
  check_local_round_trip<float>(local_shapes()[1], "dct", "---");
  check_local_round_trip<double>({{8, 4, 2}, {2, 4, 1}}, "wht", "-++");
  check_local_round_trip<double>({{4, 4, 4}, {2, 2, 2}}, "identity,dct,wht", "++-");
}

TEST_CASE("local coefficients: the DFT, complex data, every shape", "[local][executor]") {
  for (const LocalShape& s : local_shapes()) check_local_round_trip<std::complex<double>>(s, "dft", "+-+");
  check_local_round_trip<std::complex<float>>(local_shapes()[4], "dft,dct,dft", "-+-");
}

TEST_CASE("local coefficients: node (Q,R,S) starts with input block (Q,R,S) and ends with output block (Q,R,S)",
          "[local][executor]") {
  const LocalShape s{{7, 9, 11}, {2, 2, 3}};
  const Tensor3<double> x = random_tensor<double>(s.n, 4);
  std::array<Matrix<double>, 3> id;
  for (std::size_t a = 0; a < 3; ++a) id[a] = Matrix<double>::Identity(static_cast<Eigen::Index>(s.n[a]), static_cast<Eigen::Index>(s.n[a]));
  for (const std::string alpha : {"+++", "---"}) {
    const Program program = make_algorithm("orbital_local_coefficients")->build(local_problem(s, alpha, {D::Forward}));
    const ProgramResult<double> result = execute_program(program, HostData<double>{x, {id}, {}});
    std::vector<OutputBlock> layout;
    CHECK(result.gather(program, "forward", &layout) == x);  // identity: every value in place
    for (const OutputBlock& block : layout) {
      const NodeCoord node = program.shape.coord_of(block.node);
      CHECK(block.tag.index == std::array<int, 3>{node.q, node.r, node.s});
    }
  }
}

TEST_CASE("local coefficients: its own proofs catch a broken Program", "[local][errors]") {
  const Program good = make_algorithm("orbital_local_coefficients")->build(local_problem({{4, 6, 8}, {2, 3, 4}}, "+++", {D::Forward}));
  REQUIRE(prove_local_coefficients(good).ok());
  // The detail (blocks read and written) of a node's compute.
  const auto first_compute = [](Program& p, std::size_t node, std::uint32_t stage, std::uint32_t step) -> TaskDetail& {
    for (Task& t : p.nodes[node].tasks)
      if (t.kind == TaskKind::Compute && t.label.stage == stage && t.label.step == step) return p.nodes[node].detail(t);
    FAIL("no such compute");
    return p.nodes[node].details.front();
  };
  SECTION("a reduction block twice, another never") {
    Program p = good;
    TaskDetail& t = first_compute(p, 5, 1, 1);
    t.operand_tag.index[2] = first_compute(p, 5, 1, 0).operand_tag.index[2];
    t.coefficient_tag.index[0] = t.operand_tag.index[2];
    const AlgorithmCheck check = prove_local_coefficients(p);
    CHECK_FALSE(check.ok());
    CHECK_THAT(check.violations.front(), Catch::Contains("twice"));
  }
  SECTION("a coefficient block that does not map operand to accumulator") {
    Program p = good;
    first_compute(p, 3, 2, 0).coefficient_tag.index[1] += 1;
    const AlgorithmCheck check = prove_local_coefficients(p);
    CHECK_FALSE(check.ok());
    CHECK_THAT(check.violations.front(), Catch::Contains("does not fit"));
  }
  SECTION("an output block away from its node") {
    Program p = good;
    std::swap(p.outputs.front().tag[0], p.outputs.front().tag[1]);
    CHECK_THAT(prove_local_coefficients(p).violations.front(), Catch::Contains("not its own block"));
  }
  SECTION("a rolled block that does not come home") {
    Program p = good;
    std::uint32_t last = 0;  // node 0's last receive of stage I (the roll that brings X home)
    for (const Task& t : p.nodes[0].tasks)
      if (t.kind == TaskKind::Receive && t.label.stage == 1) last = t.message;
    p.messages[last].tag.index[2] = (p.messages[last].tag.index[2] + 1) % 4;
    CHECK_THAT(prove_local_coefficients(p).violations.front(), Catch::Contains("ends the stage with X(0,0,1), not its X(0,0,0)"));
  }
  SECTION("a step short") {
    Program p = good;
    p.stages[2].steps += 1;
    CHECK_THAT(prove_local_coefficients(p).violations.front(), Catch::Contains("steps; P_A = 4"));
  }
}
