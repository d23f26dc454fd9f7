// a_stationary, b_stationary and auto (Mathur and Johnsson, "Multiplication of matrices of
// arbitrary shape on a data parallel computer", sections 4.1 and 5) without a timing engine:
// the counts exactly (steps, spread sends, reduction shifts, words per node against the paper's
// k n (Nr - 1) / N and m n (Nc - 1) / N), the partial-sum proof, C against Eigen's product
// through the functional engine for every element type on uneven shapes, the library rule, and
// refusals naming the parameter.

#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/matmul_run.hpp"
#include "tests/matmul_product.hpp"

using namespace torus;

namespace {

// The size of block i of `total` cut into `parts` (the first total mod parts one larger).
std::size_t part(std::size_t i, std::size_t total, std::size_t parts) { return total / parts + (i < total % parts ? 1 : 0); }

struct ArrayShape {
  int rows, columns;
  std::size_t m, k, n;
};

const std::vector<ArrayShape> array_shapes{{2, 2, 8, 8, 8},  {2, 3, 7, 13, 5}, {3, 2, 9, 10, 6}, {1, 4, 3, 9, 8},  {4, 1, 5, 7, 3},
                                {2, 4, 8, 8, 8},  {4, 2, 9, 11, 7}, {3, 5, 6, 31, 10}, {1, 1, 2, 3, 4}, {4, 4, 17, 9, 13}};

// The words node (s, r) sends when spreading: the blocks f of its line's reduce-axis cut whose
// home (f mod line) is not its successor, each `inner` x part(f) words; the most over nodes.
std::size_t spread_words_per_node(std::size_t line, std::size_t steps, std::size_t inner_total, std::size_t free_total) {
  std::size_t most = 0;
  if (line == 1) return 0;
  for (std::size_t s = 0; s < line; ++s)
    for (std::size_t r = 0; r < steps; ++r) {
      std::size_t words = 0;
      for (std::size_t f = 0; f < steps; ++f)
        if (f % line != (s + 1) % line) words += part(r, inner_total, steps) * part(f, free_total, steps);
      most = std::max(most, words);
    }
  return most;
}

}  // namespace

// One stationary algorithm's counts on one shape: `steps` along the reduction's axis (Nc for A
// stationary), `line` along the spread's; the moving operand's shifts and words are `moving`'s.
struct Roles {
  const char* algorithm;
  bool a_stays;
};

TEST_CASE("a_stationary: Nc steps, B spread down the columns (Nr - 1 hops a block), Nc - 1 reduction shifts of C, "
          "b_stationary the same with rows and columns, A and B exchanged", "[sim][matmul]") {
  for (const Roles roles : {Roles{"a_stationary", true}, Roles{"b_stationary", false}})
    for (const ArrayShape& c : array_shapes) {
      INFO(roles.algorithm << " " << c.rows << "x" << c.columns << " m=" << c.m << " k=" << c.k << " n=" << c.n);
      const Program program = make_matmul_algorithm(roles.algorithm)->build(torus_matmul_problem(c.rows, c.columns, c.m, c.k, c.n));
      REQUIRE(verify_program(program, 1).ok());
      REQUIRE(prove_partial_sums(program).ok());
      const MatmulCounts counts = count_matmul(program);
      const auto nr = static_cast<std::size_t>(c.rows), nc = static_cast<std::size_t>(c.columns);
      const std::size_t steps = roles.a_stays ? nc : nr, line = roles.a_stays ? nr : nc;
      // The free index of C reduced over, and the other one; the moving operand's free extent.
      const std::size_t reduced = roles.a_stays ? c.n : c.m, kept = roles.a_stays ? c.m : c.n;
      const std::size_t moving_free = roles.a_stays ? c.n : c.m;
      CHECK(counts.compute_steps == steps);
      CHECK(counts.block_products == nr * nc * steps);
      CHECK(counts.scalar_multiply_adds == c.m * c.k * c.n);
      CHECK(counts.block_adds == 0);  // the sums are added into by the block products themselves
      CHECK((roles.a_stays ? counts.a_shifts : counts.b_shifts) == 0);
      CHECK(counts.alignment_messages == 0);
      CHECK(counts.c_shifts == steps - 1);
      CHECK(counts.c_shifts_min == steps - 1);
      // Each sum of a block of C goes once round its line but for the last hop home.
      CHECK(counts.c_shift_words == (steps - 1) * c.m * c.n);
      CHECK(counts.c_shift_words_per_node == part(0, kept, line) * (reduced - part(steps - 1, reduced, steps)));
      // A node sends every moving block but those whose home is its successor: at most
      // steps - floor(steps / line) of them, at least steps - ceil(steps / line).
      CHECK((roles.a_stays ? counts.b_shifts : counts.a_shifts) == (line > 1 ? steps - steps / line : 0));
      CHECK((roles.a_stays ? counts.b_shifts_min : counts.a_shifts_min) == (line > 1 ? steps - (steps + line - 1) / line : 0));
      CHECK((roles.a_stays ? counts.b_shift_words : counts.a_shift_words) == (line - 1) * c.k * moving_free);
      CHECK((roles.a_stays ? counts.b_shift_words_per_node : counts.a_shift_words_per_node) ==
            spread_words_per_node(line, steps, c.k, moving_free));
    }
}

TEST_CASE("stationary algorithms: words per node are the paper's k n (Nr - 1) / N and m n (Nc - 1) / N (A stationary, "
          "B stationary m k (Nc - 1) / N and m n (Nr - 1) / N) when the cuts are even and the spread's line divides the "
          "reduction's", "[sim][matmul]") {
  for (const ArrayShape& c : std::vector<ArrayShape>{{2, 4, 8, 8, 8}, {4, 8, 16, 32, 64}, {2, 2, 4, 6, 8}, {1, 4, 4, 8, 8}, {3, 6, 6, 12, 12}}) {
    INFO(c.rows << "x" << c.columns);
    const auto nr = static_cast<std::size_t>(c.rows), nc = static_cast<std::size_t>(c.columns), nodes = nr * nc;
    const MatmulCounts a = count_matmul(make_matmul_algorithm("a_stationary")->build(torus_matmul_problem(c.rows, c.columns, c.m, c.k, c.n)));
    CHECK(a.b_shift_words_per_node * nodes == c.k * c.n * (nr - 1));
    CHECK(a.c_shift_words_per_node * nodes == c.m * c.n * (nc - 1));
    // The transpose: B stationary on the Nc x Nr array.
    const MatmulCounts b = count_matmul(make_matmul_algorithm("b_stationary")->build(torus_matmul_problem(c.columns, c.rows, c.n, c.k, c.m)));
    CHECK(b.a_shift_words_per_node * nodes == c.n * c.k * (nr - 1));
    CHECK(b.c_shift_words_per_node * nodes == c.m * c.n * (nc - 1));
  }
}

TEST_CASE("stationary algorithms through the functional engine equal Eigen's product for every element type",
          "[sim][matmul][golden]") {
  for (const char* algorithm : {"a_stationary", "b_stationary"})
    for (const ArrayShape& c : array_shapes) {
      INFO(algorithm << " " << c.rows << "x" << c.columns << " m=" << c.m << " k=" << c.k << " n=" << c.n);
      const MatmulProblem q = torus_matmul_problem(c.rows, c.columns, c.m, c.k, c.n);
      const Program program = make_matmul_algorithm(algorithm)->build(q);
      CHECK(matmul_product_error<float>(program, q, 3).within_tolerance());
      CHECK(matmul_product_error<double>(program, q, 4).within_tolerance());
      CHECK(matmul_product_error<std::complex<float>>(program, q, 5).within_tolerance());
      CHECK(matmul_product_error<std::complex<double>>(program, q, 6).within_tolerance());
    }
}

TEST_CASE("a broken stationary Program is caught by the partial-sum proof", "[sim][matmul][errors]") {
  const MatmulProblem q = torus_matmul_problem(2, 3, 6, 9, 6);
  Program p = make_matmul_algorithm("a_stationary")->build(q);
  // The first node restarts its final sum instead of adding into the one it received.
  auto& tasks = p.nodes[0].tasks;
  const auto last = std::find_if(tasks.rbegin(), tasks.rend(), [](const Task& t) { return t.kind == TaskKind::Compute; });
  REQUIRE(last != tasks.rend());
  last->zero_accumulator = true;
  CHECK_FALSE(prove_partial_sums(p).ok());
  CHECK_FALSE(matmul_product_error<double>(p, q, 7).within_tolerance());
}

TEST_CASE("auto: A stationary when m / n >= 8, B stationary when n / m >= 16, systolic otherwise", "[sim][matmul]") {
  struct Case {
    std::size_t m, n;
    const char* chosen;
  };
  for (const Case& c : std::vector<Case>{{64, 8, "a_stationary"}, {63, 8, "systolic"}, {8, 128, "b_stationary"},
                                         {8, 127, "systolic"}, {16, 16, "systolic"}, {128, 8, "a_stationary"}}) {
    INFO(c.m << " x " << c.n);
    const MatmulProblem q = torus_matmul_problem(2, 2, c.m, 8, c.n);
    CHECK(chosen_matmul_algorithm(q) == c.chosen);
    CHECK(make_matmul_algorithm("auto")->build(q).algorithm == c.chosen);
  }
}

TEST_CASE("stationary algorithms refuse what does not fit, naming the parameter", "[sim][matmul][errors]") {
  const auto error = [](const char* algorithm, const MatmulProblem& q) {
    try {
      make_matmul_algorithm(algorithm)->require(q);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(error("a_stationary", torus_matmul_problem(2, 4, 8, 3, 8)), Catch::StartsWith("k: 3 is not allowed") && Catch::Contains("Nc = 4"));
  CHECK_THAT(error("b_stationary", torus_matmul_problem(4, 2, 8, 3, 8)), Catch::StartsWith("k: 3 is not allowed") && Catch::Contains("Nr = 4"));
  CHECK(error("b_stationary", torus_matmul_problem(2, 4, 8, 3, 8)).empty());
  CHECK_THAT(error("a_stationary", torus_matmul_problem(4, 2, 3, 8, 8)), Catch::StartsWith("m: 3 is not allowed"));
  CHECK_THAT(error("b_stationary", torus_matmul_problem(2, 4, 8, 8, 3)), Catch::StartsWith("n: 3 is not allowed"));
  MatmulProblem mesh = torus_matmul_problem(2, 2, 4, 4, 4);
  mesh.shape.boundary = {Topology::Mesh, Topology::Mesh, Topology::Mesh};
  CHECK_THAT(error("a_stationary", mesh), Catch::StartsWith("boundary: 'mesh' is not allowed with algorithm a_stationary"));
  // auto refuses with the chosen algorithm's reason.
  CHECK_THAT(error("auto", torus_matmul_problem(2, 4, 64, 3, 8)), Catch::StartsWith("k: 3 is not allowed") && Catch::Contains("a_stationary"));
}
