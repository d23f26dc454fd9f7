// task: matmul without a timing engine: the systolic Program's machine-independent counts,
// exactly (shifts, steps, words moved, against Mathur and Johnsson's formulas and their 4 x 8
// example), its values against Eigen's product through the functional engine for every
// element type, .npy operands in and C out, bad parameters, and broken Programs caught by the
// verifier, the product proof or the golden check.

#include <catch2/catch.hpp>

#include <numeric>

#include "kernels/npy.hpp"
#include "sim/matmul_run.hpp"
#include "sim/program_executor.hpp"
#include "tests/matmul_product.hpp"
#include "tests/temp_dir.hpp"

using namespace torus;

namespace {

Program systolic(const MatmulProblem& q) { return make_matmul_algorithm("systolic")->build(q); }

RunConfig matmul_config(std::initializer_list<std::pair<const char*, std::string>> settings) {
  RunConfig config;
  ParameterSet parameters;
  config.declare(parameters);
  parameters.set("task", "matmul");
  parameters.set("algorithm", "systolic");
  for (const auto& [key, value] : settings) parameters.set(key, value);
  return config;
}

std::string run_error(std::initializer_list<std::pair<const char*, std::string>> settings) {
  try {
    run_functional(matmul_config(settings));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// C of `program` by the functional engine against the Eigen product of random operands.
template <class T>
ErrorReport product_error(const Program& program, const MatmulProblem& q, std::uint64_t seed) {
  RunConfig run = matmul_config({{"m", std::to_string(q.m)}, {"k", std::to_string(q.k)}, {"n", std::to_string(q.n)},
                                 {"seed", std::to_string(seed)}});
  const HostData<T> host{Tensor3<T>(), {}, make_operands<T>(run)};
  MatmulOutcome outcome;
  outcome.problem = q;
  check_product(outcome, execute_program(program, host).gather(program, matmul_output), host.operands, program);
  return outcome.error;
}

}  // namespace

TEST_CASE("systolic: Nc - 1 shifts of A, Nr - 1 of B, lcm(Nr, Nc) steps, every block product once", "[sim][matmul]") {
  struct Case {
    int rows, columns;
    std::size_t m, k, n;
  };
  for (const Case& c : std::vector<Case>{{2, 2, 8, 8, 8},   {2, 3, 6, 12, 9},  {3, 2, 7, 13, 5}, {4, 2, 9, 10, 6},
                                         {1, 4, 3, 9, 8},   {4, 1, 5, 7, 3},   {3, 5, 6, 31, 10}, {6, 4, 13, 61, 11},
                                         {4, 8, 8, 8, 8},   {1, 1, 2, 3, 4},   {5, 5, 11, 17, 12}}) {
    INFO(c.rows << "x" << c.columns << " m=" << c.m << " k=" << c.k << " n=" << c.n);
    const MatmulProblem q = torus_matmul_problem(c.rows, c.columns, c.m, c.k, c.n);
    const Program program = systolic(q);
    REQUIRE(verify_program(program, 1).ok());
    REQUIRE(prove_block_products(program).ok());
    const MatmulCounts counts = count_matmul(program);
    const auto nr = static_cast<std::size_t>(c.rows), nc = static_cast<std::size_t>(c.columns);
    const std::size_t steps = std::lcm(nr, nc);
    CHECK(counts.compute_steps == steps);
    CHECK(counts.block_products == nr * nc * steps);
    CHECK(counts.scalar_multiply_adds == c.m * c.k * c.n);
    CHECK(counts.a_shifts == nc - 1);
    CHECK(counts.a_shifts_min == nc - 1);
    CHECK(counts.b_shifts == nr - 1);
    CHECK(counts.b_shifts_min == nr - 1);
    // Every inner block of a row of A passes through every node of the row but the last to hold it.
    CHECK(counts.a_shift_words == (nc - 1) * c.m * c.k);
    CHECK(counts.b_shift_words == (nr - 1) * c.k * c.n);
  }
}

TEST_CASE("systolic: words shifted per node are the paper's ceil(m/Nr) ceil(k/Nc) (Nc - 1) and ceil(k/Nr) ceil(n/Nc) (Nr - 1) "
          "when the blocks are even", "[sim][matmul]") {
  struct Case {
    int rows, columns;
    std::size_t m, k, n;
  };
  for (const Case& c : std::vector<Case>{{4, 8, 8, 8, 8}, {2, 3, 4, 12, 6}, {4, 2, 8, 8, 4}, {1, 4, 2, 8, 8}, {3, 3, 6, 9, 3}}) {
    INFO(c.rows << "x" << c.columns);
    const auto nr = static_cast<std::size_t>(c.rows), nc = static_cast<std::size_t>(c.columns);
    const MatmulCounts counts = count_matmul(systolic(torus_matmul_problem(c.rows, c.columns, c.m, c.k, c.n)));
    CHECK(counts.a_shift_words_per_node == c.m / nr * (c.k / nc) * (nc - 1));
    CHECK(counts.b_shift_words_per_node == c.k / nr * (c.n / nc) * (nr - 1));
  }
}

TEST_CASE("systolic on the paper's 4 x 8 example: 7 shifts of A and 3 of B in 8 steps, not 8 and 4", "[sim][matmul]") {
  // Mathur and Johnsson's figures 2 and 3: 8 x 8 matrices on 4 x 8 processors. The text counts
  // 8 rotations of A and 4 of B, the full rotations that would also bring both home; C is done
  // after the 8th block update, which needs only Nc - 1 and Nr - 1 of them.
  const MatmulCounts counts = count_matmul(systolic(torus_matmul_problem(4, 8, 8, 8, 8)));
  CHECK(counts.compute_steps == 8);
  CHECK(counts.a_shifts == 7);
  CHECK(counts.b_shifts == 3);
  CHECK(counts.a_shift_words_per_node == 2 * 1 * 7);  // a 2 x 1 block of A, 7 times
  CHECK(counts.b_shift_words_per_node == 2 * 1 * 3);  // a 2 x 1 block of B (2 of the 8 rows), 3 times
  // Alignment along +R and +Q only: block v of A row l goes from column v to (v - 2l) mod 8,
  // (8 - 2l) mod 8 hops, the most 6 (row 1); B's go at most 3 hops round the 4 rows.
  CHECK(counts.alignment_max_hops == 6);
}

TEST_CASE("systolic through the functional engine equals Eigen's product for every element type", "[sim][matmul][golden]") {
  for (const MatmulProblem& q : {torus_matmul_problem(2, 3, 7, 13, 5), torus_matmul_problem(4, 2, 9, 10, 6), torus_matmul_problem(1, 4, 3, 9, 8), torus_matmul_problem(4, 1, 5, 7, 3),
                                 torus_matmul_problem(3, 3, 6, 9, 3)}) {
    INFO(q.rows() << "x" << q.columns());
    const Program program = systolic(q);
    CHECK(product_error<float>(program, q, 3).within_tolerance());
    CHECK(product_error<double>(program, q, 4).within_tolerance());
    CHECK(product_error<std::complex<float>>(program, q, 5).within_tolerance());
    CHECK(product_error<std::complex<double>>(program, q, 6).within_tolerance());
  }
}

TEST_CASE("broken systolic Programs are caught by the verifier, the product proof or the golden check", "[sim][matmul][errors]") {
  const MatmulProblem q = torus_matmul_problem(2, 3, 6, 12, 9);
  const Program good = systolic(q);
  const auto first = [](Program& p, std::size_t node, TaskKind kind) -> Task& {
    for (Task& t : p.nodes[node].tasks)
      if (t.kind == kind) return t;
    throw std::logic_error("no such task");
  };
  SECTION("a compute reads the other block of its window: the verifier") {
    Program p = good;
    for (Task& t : p.nodes[1].tasks)
      if (t.kind == TaskKind::Compute && t.label.step == 0) {
        std::uint32_t& operand = p.nodes[1].detail(t).operand;
        operand = operand == 1 ? 2 : 1;  // A window buffers 1 and 2
      }
    CHECK_FALSE(verify_program(p, 1).ok());
  }
  SECTION("a shift sent the wrong way round the ring: the verifier") {
    Program p = good;
    const Message& m = p.messages[first(p, 0, TaskKind::Send).message];  // node (0,0)'s first send: A to (0,2) along -R
    const std::span<Direction> route = p.route(m);
    REQUIRE(std::vector<Direction>(route.begin(), route.end()) == std::vector<Direction>{Direction::MinusR});
    route[0] = Direction::PlusR;  // to (0,1) instead, on a ring of 3
    CHECK_FALSE(verify_program(p, 1).ok());
  }
  SECTION("one inner block used twice and one never: the product proof") {
    Program p = good;
    for (Task& task : p.nodes[2].tasks)
      if (task.kind == TaskKind::Compute && task.label.step == 1) {
        TaskDetail& t = p.nodes[2].detail(task);
        t.operand_tag.index[2] = (t.operand_tag.index[2] + 1) % 6;
        t.coefficient_tag.index[0] = t.operand_tag.index[2];
      }
    CHECK_FALSE(prove_block_products(p).ok());
  }
  SECTION("a wrong skew (a node loads the neighbour's block under its own name): the golden check") {
    Program p = good;
    TaskDetail& load = p.nodes[0].detail(first(p, 0, TaskKind::Load));
    load.source.index[2] = (load.source.index[2] + 1) % 6;  // tags still agree: only the values are wrong
    REQUIRE(verify_program(p, 1).ok());
    REQUIRE(prove_block_products(p).ok());
    CHECK_FALSE(product_error<double>(p, q, 7).within_tolerance());
  }
}

TEST_CASE("task matmul: .npy operands in, C out as an m x n .npy, golden-checked", "[sim][matmul][npy]") {
  TempDir dir;
  Tensor3<double> a(5, 7, 1), b(7, 4, 1);
  for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<double>(i % 11) - 5.0;
  for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = static_cast<double>(i % 5) * 0.5;
  write_npy_matrix(dir.file("a.npy"), a);
  write_npy_matrix(dir.file("b.npy"), b);
  const RunReport report = run_functional(matmul_config({{"m", "5"}, {"k", "7"}, {"n", "4"}, {"array", "2x2"},
                                                         {"input_a", dir.file("a.npy")}, {"input_b", dir.file("b.npy")},
                                                         {"output", dir.file("c.npy")}}));
  CHECK(report.passed());
  const Tensor3<double> c = read_npy_matrix<double>(dir.file("c.npy"));
  REQUIRE(c.extents() == Extents3{5, 4, 1});
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      double sum = 0;  // small integers and halves: exact in any order
      for (std::size_t r = 0; r < 7; ++r) sum += a(i, r, 0) * b(r, j, 0);
      CHECK(c(i, j, 0) == sum);
    }
}

TEST_CASE("task matmul: bad parameters name the parameter, the value and what is allowed", "[sim][matmul][errors]") {
  CHECK_THAT(run_error({{"array", "2y3"}}), Catch::Contains("array: '2y3' is not allowed; allowed: Nr x Nc"));
  CHECK_THAT(run_error({{"array", "3x2"}, {"m", "2"}}), Catch::Contains("m: 2 is not allowed with array 3x2; allowed: at least Nr = 3"));
  CHECK_THAT(run_error({{"array", "2x3"}, {"n", "2"}}), Catch::Contains("n: 2 is not allowed"));
  CHECK_THAT(run_error({{"array", "4x6"}, {"k", "11"}}), Catch::Contains("k: 11 is not allowed") && Catch::Contains("lcm(Nr, Nc) = 12"));
  CHECK_THAT(run_error({{"algorithm", "orbital"}}),
             Catch::Contains("algorithm: 'orbital' is not allowed with task: matmul") && Catch::Contains("; allowed: systolic"));
  CHECK_THAT(run_error({{"boundary", "mesh"}}), Catch::Contains("boundary: 'mesh' is not allowed with algorithm systolic"));
  // torus_from:K counts the array's nodes (2 x 2 here): 4 makes a torus, 5 a mesh.
  CHECK(run_error({{"array", "2x2"}, {"boundary", "torus_from:4"}}).empty());
  CHECK(run_error({{"array", "2x2"}, {"boundary", "torus,torus,mesh"}}).empty());
  CHECK_THAT(run_error({{"array", "2x2"}, {"boundary", "torus_from:5"}}),
             Catch::Contains("boundary: 'mesh' is not allowed with algorithm systolic") &&
                 Catch::Contains("torus_from:K with K at most Nr Nc = 4"));
  CHECK_THAT(run_error({{"input", "x.npy"}}), Catch::Contains("input: 'x.npy' is not allowed with task: matmul"));
  TempDir dir;
  write_npy_matrix(dir.file("a.npy"), Tensor3<double>(3, 3, 1));
  CHECK_THAT(run_error({{"input_a", dir.file("a.npy")}}), Catch::Contains("input_a:") && Catch::Contains("allowed: a 8 x 8 matrix"));
  RunConfig transform;
  ParameterSet parameters;
  transform.declare(parameters);
  parameters.set("algorithm", "systolic");
  CHECK_THROWS_WITH(run_functional(transform), Catch::Contains("algorithm: 'systolic' is not allowed with task: transform"));
}
