// Shapes: N and P per axis as parameters, blocks of uneven size (the first N mod P one element
// larger, as MPI codes distribute data), and the kernels and micro-programs of rectangular blocks.

#include <catch2/catch.hpp>

#include <map>

#include "kernels/mode_product.hpp"
#include "sim/accuracy.hpp"
#include "sim/algorithm.hpp"
#include "sim/block_grid.hpp"
#include "sim/micro_kernel.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/parameter_bundle.hpp"
#include "sim/program.hpp"
#include "sim/program_executor.hpp"
#include "sim/program_verifier.hpp"
#include "sim/run_inputs.hpp"
#include "tests/transform_matrices.hpp"

using namespace torus;

TEST_CASE("an axis of N elements in P blocks: the first N mod P one larger, in order, covering every element", "[sim][shapes]") {
  const AxisSplit split{10, 4};  // 3 3 2 2
  CHECK(split.size(0) == 3);
  CHECK(split.size(1) == 3);
  CHECK(split.size(2) == 2);
  CHECK(split.size(3) == 2);
  CHECK(split.offset(0) == 0);
  CHECK(split.offset(2) == 6);
  CHECK(split.offset(3) == 8);
  CHECK(split.largest() == 3);
  CHECK_FALSE(split.even());
  for (std::size_t n = 1; n <= 20; ++n)
    for (std::size_t p = 1; p <= n; ++p) {
      const AxisSplit s{n, p};
      std::size_t next = 0;
      for (std::size_t block = 0; block < p; ++block) {
        INFO("N=" << n << " P=" << p << " block " << block);
        CHECK(s.offset(block) == next);
        CHECK(s.size(block) == n / p + (block < n % p ? 1 : 0));
        for (std::size_t i = next; i < next + s.size(block); ++i) CHECK(s.block_of(i) == block);
        next += s.size(block);
      }
      CHECK(next == n);
    }
}

TEST_CASE("a block grid gives each tensor block its extents and origin", "[sim][shapes]") {
  const BlockGrid grid = BlockGrid::make({10, 7, 9}, {4, 3, 2});
  CHECK(grid.extents({0, 0, 0}) == Extents3{3, 3, 5});
  CHECK(grid.extents({3, 2, 1}) == Extents3{2, 2, 4});
  CHECK(grid.origin({3, 2, 1}) == Extents3{8, 5, 5});
  CHECK(grid.words({3, 2, 1}) == 16);
  CHECK(grid.largest_words() == 3 * 3 * 5);
  CHECK(grid.describe_blocks() == "2-3x2-3x4-5");
  CHECK(BlockGrid::make({8, 12, 4}, {2, 3, 4}).describe_blocks() == "4x4x1");
  CHECK(BlockGrid::cube(4, 2).describe_blocks() == "4");
  CHECK(BlockGrid::cube(4, 2).uniform_cube());
  CHECK_THROWS_WITH(BlockGrid::make({3, 8, 8}, {4, 4, 4}),
                    Catch::Contains("P: 4 nodes along axis 1 but N = 3x8x8 has 3 elements there"));
}

TEST_CASE("N and P take one number or one per axis, written with x or the multiplication sign", "[sim][shapes][parameters]") {
  ParameterBundle bundle;
  bundle.set.set("P", "16x8x8");
  CHECK(bundle.run.p == std::array<std::int64_t, 3>{16, 8, 8});
  CHECK(bundle.set.find("P")->current() == "16x8x8");
  bundle.set.set("N", "512\xC3\x97" "512\xC3\x97" "128");  // 512×512×128
  CHECK(bundle.run.n == std::array<std::int64_t, 3>{512, 512, 128});
  bundle.set.set("P", "4x4x4");
  CHECK(bundle.set.find("P")->current() == "4");  // reads back as one number when all agree
  bundle.set.set("N", "12");
  CHECK(bundle.run.tensor_extents() == Extents3{12, 12, 12});
  CHECK(bundle.run.torus_shape().node_count() == 64);
  CHECK_THROWS_WITH(bundle.set.set("N", "12x0x4"), Catch::Contains("N: '12x0x4' is not allowed; allowed: a whole number"));
}

TEST_CASE("the micro-program of a rectangular kernel updates each accumulator word once per reduction index, in order",
          "[sim][shapes][micro]") {
  // acc 3x2x2 += operand 3x2x4 x3 coefficient 4x2: reduction 4 along mode 3.
  const KernelSpec kernel{"mode3", 3, {3, 2, 2}, {3, 2, 4}};
  CHECK(kernel.reduction() == 4);
  CHECK(kernel.coefficient_words() == 8);
  CHECK(kernel.multiply_adds() == 48);
  for (const std::string& name : micro_schedule_names()) {
    INFO(name);
    const MicroProgram micro = make_micro_schedule(name)->build(kernel, false);
    REQUIRE(micro.instructions.size() == 48);
    CHECK(micro.updates_per_word == 4);
    CHECK(micro.accumulator_words == 12);
    CHECK(micro.operand_first_use.size() == 24);
    CHECK(micro.coefficient_first_use.size() == 8);
    std::map<std::uint32_t, std::vector<std::uint32_t>> reductions;
    for (const FmaInstruction& i : micro.instructions) reductions[i.accumulator].push_back(i.coefficient % 4);
    CHECK(reductions.size() == 12);
    for (const auto& [word, order] : reductions) CHECK(order == std::vector<std::uint32_t>{0, 1, 2, 3});
    // Its arithmetic is the mode product of the blocks.
    const Tensor3<double> x = random_tensor<double>(Extents3{3, 2, 4}, 3);
    Matrix<double> c(4, 2);
    for (Eigen::Index i = 0; i < c.size(); ++i) c.data()[i] = 0.25 * static_cast<double>(i) - 1.0;
    Tensor3<double> acc(Extents3{3, 2, 2}, 0.5), reference = acc;
    for (const FmaInstruction& i : micro.instructions) apply_fma(i, acc.data(), x.data(), c.data());
    mode_product_accumulate(reference, x, c, 3);
    for (std::size_t w = 0; w < acc.size(); ++w) CHECK(acc.data()[w] == Approx(reference.data()[w]).epsilon(1e-14));
  }
}

TEST_CASE("a Program names one kernel per mode and block extents, and words per block", "[sim][shapes][program]") {
  Program p;
  p.grid = BlockGrid::make({5, 4, 3}, {2, 2, 2});
  p.tag_kinds = {{"X", 3, 0, {}}, {"C1", 2, 1, {}}};
  CHECK(p.extents_of({0, {0, 1, 1}}) == Extents3{3, 2, 1});
  CHECK(p.extents_of({1, {0, 1, 0}}) == Extents3{3, 2, 1});  // C1(0,1): rows of block 0, columns of block 1
  CHECK(p.words_of({0, {1, 0, 0}}) == 2 * 2 * 2);
  const std::uint32_t a = p.kernel_for(1, {3, 2, 2}, {2, 2, 2});
  CHECK(p.kernel_for(1, {3, 2, 2}, {2, 2, 2}) == a);
  CHECK(p.kernel_for(1, {2, 2, 2}, {2, 2, 2}) != a);
  CHECK(p.kernels[a].name == "mode1 3x2x2+=2x2x2");
}

TEST_CASE("the orbital schedule with uneven blocks on a cube: proved, and golden-checked forward and inverse",
          "[sim][shapes][orbital]") {
  using D = TransformDirection;
  const auto orbital = make_algorithm("orbital");
  for (const auto& [n, p] : std::vector<std::pair<Extents3, int>>{{{5, 5, 5}, 2}, {{10, 10, 10}, 4}, {{7, 9, 11}, 3},
                                                                  {{4, 5, 6}, 4}, {{3, 3, 3}, 3}}) {
    for (const SchedulingVector& alpha : {SchedulingVector::parse("+++"), SchedulingVector::parse("-+-")}) {
      INFO("N=" << extents_text(n) << " P=" << p << " alpha=" << alpha.to_string());
      const TransformProblem problem{TorusShape::cube(p), BlockGrid::make(n, {std::size_t(p), std::size_t(p), std::size_t(p)}), alpha,
                                     {D::Forward, D::Inverse}};
      CHECK(orbital->check(problem).ok());
      CHECK(orbital->translation_invariant(problem) == problem.grid.even());
      const Program program = orbital->build(problem);
      const ProgramVerification verification = verify_program(program);
      INFO((verification.ok() ? "" : to_string(program, verification.violations.front())));
      CHECK(verification.ok());
      const std::array<Matrix<double>, 3> c = transform_matrices<double>("dct,dst,dht", n, D::Forward),
                                            d = transform_matrices<double>("dct,dst,dht", n, D::Inverse);
      const HostData<double> host{random_tensor<double>(n, 9), {c, d}, {}};
      const ProgramResult<double> result = execute_program(program, host);
      const Tensor3<double> y = result.gather(program, "forward");
      CHECK(compare_to_golden(y, golden_transform(host.input, c), absolute_transform(host.input, c)).within_tolerance());
      const Tensor3<double> x = result.gather(program, "inverse");
      CHECK(compare_to_golden(x, golden_transform(y, d), absolute_transform(y, d)).within_tolerance());
      // Every element's multiply-adds, each block's words once per step: N1 N2 N3 (N1+N2+N3) per transform.
      CHECK(result.per_transform[0].scalar_multiply_adds == n[0] * n[1] * n[2] * (n[0] + n[1] + n[2]));
    }
  }
}

// The orbital builder reserves every list at its final size (no doubling, no copy to shrink),
// so each capacity equals its size; a count off by one leaves a capacity that differs.
TEST_CASE("the orbital builder sizes its message, route and task lists exactly", "[sim][shapes][orbital]") {
  using D = TransformDirection;
  const auto orbital = make_algorithm("orbital");
  const auto exact = [](const Program& program) {
    CHECK(program.messages.capacity() == program.messages.size());
    CHECK(program.routes.capacity() == program.routes.size());
    for (const NodeProgram& node : program.nodes) {
      CHECK(node.tasks.capacity() == node.tasks.size());
      CHECK(node.details.capacity() == node.details.size());
    }
  };
  const Topology torus = Topology::Torus, mesh = Topology::Mesh;
  const std::vector<std::tuple<TorusShape, Extents3, std::vector<D>>> cases{
      {TorusShape::cube(3), {6, 6, 6}, {D::Forward, D::Inverse}},
      {TorusShape::cube(4, mesh), {9, 8, 10}, {D::Forward}},
      {TorusShape{3, 3, 3, {torus, mesh, torus}}, {7, 8, 9}, {D::Inverse, D::Forward}},
      {TorusShape{2, 2, 2, {mesh, mesh, torus}}, {4, 5, 3}, {D::Forward}},
      {TorusShape::cube(1), {3, 3, 3}, {D::Forward, D::Inverse}}};
  for (const auto& [shape, n, directions] : cases) {
    INFO("shape " << shape.p1 << "x" << shape.p2 << "x" << shape.p3 << " N=" << extents_text(n));
    const TransformProblem problem{shape, BlockGrid::make(n, {std::size_t(shape.p1), std::size_t(shape.p2), std::size_t(shape.p3)}),
                                   SchedulingVector::parse("+-+"), directions};
    const Program program = orbital->build(problem);
    REQUIRE(verify_program(program).ok());
    exact(program);
    if (problem.grid.even()) exact(orbital->build_quotient(problem));
  }
}

TEST_CASE("process_grid: balanced derives P as MPI_Dims_create does: non-increasing, as equal as possible",
          "[sim][shapes][process_grid]") {
  using G = std::array<std::int64_t, 3>;
  const std::vector<std::pair<std::int64_t, G>> known = {
      {1, {1, 1, 1}},      {2, {2, 1, 1}},      {4, {2, 2, 1}},      {6, {3, 2, 1}},      {7, {7, 1, 1}},
      {8, {2, 2, 2}},      {12, {3, 2, 2}},     {16, {4, 2, 2}},     {32, {4, 4, 2}},     {36, {4, 3, 3}},
      {64, {4, 4, 4}},     {72, {6, 4, 3}},     {100, {5, 5, 4}},    {128, {8, 4, 4}},    {256, {8, 8, 4}},
      {512, {8, 8, 8}},    {1000, {10, 10, 10}}, {1024, {16, 8, 8}}, {2048, {16, 16, 8}}, {4096, {16, 16, 16}}};
  for (const auto& [nodes, grid] : known) {
    INFO(nodes << " nodes");
    CHECK(balanced_grid(nodes) == grid);
  }
  // Against every factorisation: none has a smaller largest extent, or with the same largest a
  // smaller middle one.
  for (std::int64_t n = 1; n <= 600; ++n) {
    const G g = balanced_grid(n);
    INFO(n << " nodes");
    CHECK(g[0] * g[1] * g[2] == n);
    CHECK((g[0] >= g[1] && g[1] >= g[2]));
    for (std::int64_t a = 1; a <= n; ++a)
      for (std::int64_t b = 1; b <= a && a * b <= n; ++b)
        if (n % (a * b) == 0 && n / (a * b) <= b) CHECK((a > g[0] || (a == g[0] && b >= g[1])));
  }
  ParameterBundle bundle;
  bundle.set.set("process_grid", "balanced");
  bundle.set.set("nodes", "128");
  CHECK(bundle.run.torus_shape().p1 == 8);
  CHECK(bundle.run.torus_shape().p3 == 4);
  bundle.set.set("N", "16");
  CHECK(bundle.run.block_grid().describe_blocks() == "2x4x4");
}
