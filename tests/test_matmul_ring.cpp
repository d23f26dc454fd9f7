// The ring algorithms of Lippert et al., "Hyper-systolic matrix multiplication", without a
// timing engine: the shift counts exactly (systolic_ring p - 1; hypersystolic K + K~ - 1 with
// the paper's table for p = 4, 16, 64, 128), the Hamiltonian ring, the partial-sum proof, C
// against Eigen's product through the functional engine for every element type on shapes that
// do not divide evenly, on both mappings, broken Programs caught, and bad parameters.

#include <catch2/catch.hpp>

#include "sim/algorithms/ring_matmul.hpp"
#include "sim/matmul_run.hpp"
#include "sim/program_executor.hpp"
#include "tests/matmul_product.hpp"

using namespace torus;

namespace {

MatmulProblem ring_problem(int rows, int columns, std::size_t m, std::size_t k, std::size_t n, std::size_t stride = 0,
                           const char* mapping = "ring") {
  return {{rows, columns, 1, {Topology::Torus, Topology::Torus, Topology::Torus}}, m, k, n, stride, mapping};
}

Program build(const char* algorithm, const MatmulProblem& q) { return make_matmul_algorithm(algorithm)->build(q); }

std::string plan_error(const MatmulProblem& q, const char* algorithm) {
  try {
    plan_ring_matmul(q, algorithm);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("hamiltonian_ring: every node once, each next to the one before and the last next to the first", "[sim][matmul]") {
  for (const auto& [rows, columns] : std::vector<std::pair<int, int>>{{4, 4}, {2, 8}, {8, 8}, {3, 4}, {4, 3}, {1, 5}, {6, 1}, {2, 2}}) {
    INFO(rows << "x" << columns);
    const std::vector<NodeCoord> ring = hamiltonian_ring(rows, columns);
    REQUIRE(ring.size() == static_cast<std::size_t>(rows * columns));
    std::set<NodeCoord> seen(ring.begin(), ring.end());
    CHECK(seen.size() == ring.size());
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const NodeCoord a = ring[i], b = ring[(i + 1) % ring.size()];
      const int dq = std::abs(a.q - b.q), dr = std::abs(a.r - b.r);
      const bool next = (dq == 0 && (dr == 1 || dr == columns - 1)) || (dr == 0 && (dq == 1 || dq == rows - 1));
      CHECK(next);
    }
  }
  CHECK_THROWS_WITH(hamiltonian_ring(3, 5), Catch::Contains("array: '3x5' is not allowed with the ring mapping"));
}

TEST_CASE("systolic_ring: p block products per node and p - 1 shifts of A of stride 1", "[sim][matmul]") {
  for (const auto& [rows, columns] : std::vector<std::pair<int, int>>{{2, 2}, {4, 4}, {2, 3}, {1, 5}}) {
    const std::size_t p = static_cast<std::size_t>(rows * columns);
    INFO(rows << "x" << columns);
    const MatmulProblem q = ring_problem(rows, columns, 5, p + 3, p + 1);
    const Program program = build("systolic_ring", q);
    REQUIRE(verify_program(program, 1).ok());
    REQUIRE(prove_partial_sums(program).ok());
    const MatmulCounts c = count_matmul(program);
    CHECK(c.compute_steps == p);
    CHECK(c.block_products == p * p);
    CHECK(c.scalar_multiply_adds == q.m * q.k * q.n);
    CHECK(c.a_shifts == p - 1);
    CHECK(c.a_shifts_min == p - 1);
    CHECK(c.b_shifts == 0);
    CHECK(c.c_shifts == 0);
    CHECK(c.alignment_messages == 0);
    CHECK(c.total_shifts() == p - 1);
    CHECK(c.max_shift_hops == 1);
    CHECK(c.block_adds == 0);
    CHECK(c.a_shift_words == (p - 1) * q.m * q.k);  // every block of A visits p - 1 further nodes
  }
}

TEST_CASE("hypersystolic: T = K + K~ - 1 shifts against p - 1 (the paper's table)", "[sim][matmul]") {
  // p, K (the default: the largest divisor of p not above sqrt p), K~, T, p - 1.
  struct Row {
    int rows, columns;
    std::size_t k, kt, t;
  };
  for (const Row& row : std::vector<Row>{{2, 2, 2, 2, 3}, {4, 4, 4, 4, 7}, {8, 8, 8, 8, 15}, {8, 16, 8, 16, 23}}) {
    const std::size_t p = static_cast<std::size_t>(row.rows * row.columns);
    INFO("p = " << p);
    CHECK(default_stride(p) == row.k);
    for (const char* mapping : {"ring", "plane"}) {
      INFO(mapping);
      const MatmulProblem q = ring_problem(row.rows, row.columns, 2, p, p, 0, mapping);
      const Program program = build("hypersystolic", q);
      REQUIRE(verify_program(program, 1).ok());
      const MatmulCounts c = count_matmul(program);
      CHECK(c.compute_steps == p);
      CHECK(c.block_products == p * p);
      CHECK(c.alignment_phases == 1);
      CHECK(c.a_shifts == row.kt - 1);
      CHECK(c.a_shifts_min == row.kt - 1);
      CHECK(c.c_shifts == row.k - 1);
      CHECK(c.c_shifts_min == row.k - 1);
      CHECK(c.b_shifts == 0);
      CHECK(c.total_shifts() == row.t);
      CHECK(c.total_shifts() == row.k + row.kt - 1);
      CHECK(c.block_adds == p * (row.k - 1));
      CHECK(c.scalar_adds == (row.k - 1) * q.m * q.n);
      // A stride-K shift: K hops along the ring, one on the plane; the back-shift's stride 1: one.
      CHECK(c.max_shift_hops == (std::string(mapping) == "ring" ? row.k : 1));
      // The pre-shift: B(v,j) goes l = (v - j) mod K positions on, l hops.
      CHECK(c.alignment_max_hops == row.k - 1);
      // Every node sends K~ blocks each l = 1..K-1 hops on (relays at the dateline cut a route
      // into two messages, not its hops).
      CHECK(c.alignment_hops == p * row.kt * row.k * (row.k - 1) / 2);
    }
  }
  // p = 64: 15 against 63, the paper's gain of 4.2.
  CHECK(count_matmul(build("hypersystolic", ring_problem(8, 8, 2, 64, 64))).total_shifts() == 15);
  CHECK(count_matmul(build("systolic_ring", ring_problem(8, 8, 2, 64, 64))).total_shifts() == 63);
}

TEST_CASE("hypersystolic: every K dividing p on the ring, each with its own T", "[sim][matmul]") {
  for (const std::size_t k : {1u, 2u, 3u, 4u, 6u, 12u}) {
    INFO("K = " << k);
    const MatmulProblem q = ring_problem(3, 4, 4, 13, 14, k);
    const Program program = build("hypersystolic", q);
    REQUIRE(verify_program(program, 1).ok());
    REQUIRE(prove_partial_sums(program).ok());
    const MatmulCounts c = count_matmul(program);
    CHECK(c.total_shifts() == (k > 1 ? 1 : 0) + (12 / k - 1) + (k - 1));
    CHECK(c.max_shift_hops == (k < 12 ? k : 1));
    CHECK(matmul_product_error<double>(program, q, 11).within_tolerance());
  }
}

TEST_CASE("ring algorithms through the functional engine equal Eigen's product for every element type", "[sim][matmul][golden]") {
  const std::vector<std::pair<const char*, MatmulProblem>> cases{
      {"systolic_ring", ring_problem(2, 2, 3, 7, 5)},          {"systolic_ring", ring_problem(2, 3, 5, 13, 7)},
      {"hypersystolic", ring_problem(2, 2, 3, 7, 5)},          {"hypersystolic", ring_problem(4, 4, 3, 19, 17)},
      {"hypersystolic", ring_problem(2, 4, 5, 9, 11, 0, "plane")}, {"hypersystolic", ring_problem(4, 2, 5, 9, 11, 0, "plane")},
      {"hypersystolic", ring_problem(3, 3, 4, 10, 9, 0, "plane")}, {"hypersystolic", ring_problem(1, 6, 3, 6, 7, 3)}};
  for (const auto& [algorithm, q] : cases) {
    INFO(algorithm << " " << q.rows() << "x" << q.columns() << " " << q.mapping << " m=" << q.m << " k=" << q.k << " n=" << q.n);
    const Program program = build(algorithm, q);
    REQUIRE(verify_program(program, 1).ok());
    REQUIRE(prove_partial_sums(program).ok());
    CHECK(matmul_product_error<float>(program, q, 3).within_tolerance());
    CHECK(matmul_product_error<double>(program, q, 4).within_tolerance());
    CHECK(matmul_product_error<std::complex<float>>(program, q, 5).within_tolerance());
    CHECK(matmul_product_error<std::complex<double>>(program, q, 6).within_tolerance());
  }
}

TEST_CASE("hypersystolic: broken Programs are caught by the partial-sum proof or the golden check", "[sim][matmul][errors]") {
  const MatmulProblem q = ring_problem(2, 2, 3, 7, 8);  // columns of B all 2 wide
  const Program good = build("hypersystolic", q);
  SECTION("a back-shift add dropped: the proof") {
    Program p = good;
    auto& tasks = p.nodes[0].tasks;
    tasks.erase(std::find_if(tasks.begin(), tasks.end(), [&p](const Task& t) {
      return t.kind == TaskKind::Compute && p.nodes[0].detail(t).coefficient_tag.kind == matmul_one;
    }));
    CHECK_FALSE(prove_partial_sums(p).ok());
  }
  SECTION("a product under the wrong inner block: the proof") {
    Program p = good;
    for (Task& task : p.nodes[1].tasks)
      if (task.kind == TaskKind::Compute && task.label.global_step == 0) {
        TaskDetail& t = p.nodes[1].detail(task);
        t.operand_tag.index[2] = (t.operand_tag.index[2] + 1) % 4;
        t.coefficient_tag.index[0] = t.operand_tag.index[2];
      }
    CHECK_FALSE(prove_partial_sums(p).ok());
  }
  // A B block of the wrong column loaded under the right tag: only the values are wrong.
  SECTION("a wrong B block: the golden check") {
    Program p = good;
    for (Task& t : p.nodes[0].tasks)
      if (t.kind == TaskKind::Load && p.nodes[0].detail(t).source.array == 1) {
        p.nodes[0].detail(t).source.index[1] = (p.nodes[0].detail(t).source.index[1] + 1) % 4;
        break;
      }
    REQUIRE(verify_program(p, 1).ok());
    REQUIRE(prove_partial_sums(p).ok());
    CHECK_FALSE(matmul_product_error<double>(p, q, 7).within_tolerance());
  }
}

TEST_CASE("ring algorithms refuse what does not fit, naming the parameter", "[sim][matmul][errors]") {
  CHECK_THAT(plan_error(ring_problem(4, 4, 4, 16, 16, 5), "hypersystolic"),
             Catch::Contains("hypersystolic_k: 5 is not allowed with array 4x4 (p = 16)") && Catch::Contains("1, 2, 4, 8, 16"));
  CHECK_THAT(plan_error(ring_problem(4, 2, 4, 16, 16, 2, "plane"), "hypersystolic"),
             Catch::Contains("hypersystolic_k: 2 is not allowed with hypersystolic_mapping: plane and array 4x2; allowed: 0 or Nr = 4"));
  CHECK_THAT(plan_error(ring_problem(3, 5, 4, 16, 16), "systolic_ring"), Catch::Contains("array: '3x5' is not allowed"));
  CHECK(plan_error(ring_problem(3, 5, 4, 15, 15, 0, "plane"), "hypersystolic").empty());  // the plane needs no ring
  CHECK_THAT(plan_error(ring_problem(2, 4, 4, 7, 16), "hypersystolic"), Catch::Contains("k: 7 is not allowed") && Catch::Contains("at least p = 8"));
  CHECK_THAT(plan_error(ring_problem(2, 4, 4, 16, 5), "systolic_ring"), Catch::Contains("n: 5 is not allowed"));
  MatmulProblem mesh = ring_problem(2, 2, 4, 4, 4);
  mesh.shape.boundary = {Topology::Mesh, Topology::Mesh, Topology::Mesh};
  CHECK_THAT(plan_error(mesh, "hypersystolic"), Catch::Contains("boundary: 'mesh' is not allowed with algorithm hypersystolic"));
}
