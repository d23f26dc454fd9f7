// ring_block_fft, the orbital-fair form of the ring transpose (issue 12): on b1 x b2 x b3 blocks
// of the orbital layout, per axis a transpose within the rings along it, local transforms of
// the lines, the transpose back. Proved by the generic verifier and the algorithm's own checks,
// computed by the functional executor and golden-checked; messages and words counted by hand;
// the refusals (b^2 < P, a mesh) read as the user sees them.

#include <catch2/catch.hpp>

#include <bit>
#include <complex>

#include "sim/accuracy.hpp"
#include "sim/algorithm.hpp"
#include "sim/program_executor.hpp"
#include "sim/program_verifier.hpp"
#include "sim/run_inputs.hpp"
#include "tests/proved_program.hpp"
#include "tests/transform_matrices.hpp"

using namespace torus;

namespace {

using D = TransformDirection;
using C = std::complex<double>;

// N_a elements on P_a nodes per axis, the orbital layout's blocks (blocks_per_node).
TransformProblem ring_fft_problem(const Extents3& n, std::array<int, 3> p, std::vector<D> directions, const std::string& kernel) {
  const TorusShape shape{p[0], p[1], p[2]};
  TransformProblem pr{shape,
                      BlockGrid::make(n, {static_cast<std::size_t>(p[0]), static_cast<std::size_t>(p[1]), static_cast<std::size_t>(p[2])}),
                      SchedulingVector::parse("+++"), std::move(directions), kernel, {}};
  for (std::size_t a = 0; a < 3; ++a) pr.axes[a] = {std::has_single_bit(n[a]), 1.0, 1.0 / static_cast<double>(n[a])};
  return pr;
}

// Words the send tasks of transform t move, summed over nodes.
std::size_t words_sent(const Program& program, std::uint32_t t) {
  std::size_t words = 0;
  for (const NodeProgram& node : program.nodes)
    for (const Task& task : node.tasks)
      if (task.kind == TaskKind::Send && task.label.transform == t) words += program.messages[task.message].words;
  return words;
}

}  // namespace

TEST_CASE("ring_block_fft: round trips on cubic and other tori, FFT tasks and dense, proved and golden-checked",
          "[transpose][ring_block]") {
  struct Case {
    Extents3 n;
    std::array<int, 3> p;
    std::string kernel;
  };
  for (const Case& c : {Case{{8, 8, 8}, {2, 2, 2}, "fft"}, Case{{16, 16, 16}, {4, 4, 4}, "fft"}, Case{{8, 8, 8}, {4, 2, 2}, "fft"},
                        Case{{16, 8, 8}, {4, 2, 2}, "auto"}, Case{{8, 8, 8}, {2, 2, 2}, "dense"}, Case{{16, 16, 16}, {4, 4, 4}, "dense"},
                        Case{{12, 8, 8}, {2, 2, 2}, "auto"}}) {
    INFO("N=" << extents_text(c.n) << " P=" << c.p[0] << "x" << c.p[1] << "x" << c.p[2] << " " << c.kernel);
    const TransformProblem pr = ring_fft_problem(c.n, c.p, {D::Forward, D::Inverse}, c.kernel);
    REQUIRE(make_algorithm("ring_block_fft")->blocks_per_node());
    const Program program = proved("ring_block_fft", pr);
    const auto fc = transform_matrices<C>("dft", c.n, D::Forward), dc = transform_matrices<C>("dft", c.n, D::Inverse);
    const HostData<C> host{random_tensor<C>(c.n, 5), {fc, dc}, {}};
    const ProgramResult<C> result = execute_program(program, host);
    const Tensor3<C> y = result.gather(program, "forward");
    const Tensor3<C> x = result.gather(program, "inverse");
    if (c.kernel == "dense") {
      CHECK(compare_to_golden(y, golden_transform(host.input, fc), absolute_transform(host.input, fc)).within_tolerance());
      CHECK(compare_to_golden(x, golden_transform(y, dc), absolute_transform(y, dc)).within_tolerance());
      for (const ProgramExecutionCounts& counts : result.per_transform)  // every line of every axis once
        CHECK(counts.scalar_multiply_adds == c.n[0] * c.n[1] * c.n[2] * (c.n[0] + c.n[1] + c.n[2]));
      continue;
    }
    // The bound of a run with FFT tasks (per axis an FFT's or a dense product's, as the run's golden check).
    CHECK(compare_to_golden_with_ffts(y, golden_transform(host.input, fc), absolute_transform(host.input, fc), program)
              .within_tolerance());
    CHECK(compare_to_golden_with_ffts(x, golden_transform(y, dc), absolute_transform(y, dc), program).within_tolerance());
  }
}

// Words: every axis's transpose sends each node's block but its own 1/P_a share out and the
// transpose back returns it, 2 b^3 (P_a - 1)/P_a per node per axis. Messages (one piece each):
// on 4x4x4 with b = 4 every ring shares its 4 x 4 lines as 2 x 2 (the chain rule then cuts
// each piece in two along the axis of the phase after or before it, the fewest messages of
// all splits: 4 x 1 on the first ring forces 5 + 5 + 2 pieces per partner instead of
// 3 + 4 + 3): per node 3 partners x (1 + 2) on axis 3, x (2 + 2) on axis 1, x (2 + 1) on axis 2.
TEST_CASE("ring_block_fft: messages and words moved per transform, counted by hand", "[transpose][ring_block]") {
  const TransformProblem pr = ring_fft_problem({16, 16, 16}, {4, 4, 4}, {D::Forward, D::Inverse}, "fft");
  const Program program = make_algorithm("ring_block_fft")->build(pr);
  const std::size_t nodes = 64, block = 4 * 4 * 4;
  CHECK(count(program, 0).messages == nodes * 3 * ((1 + 2) + (2 + 2) + (2 + 1)));
  CHECK(words_sent(program, 0) == nodes * 3 * 2 * block * 3 / 4);
  // The inverse starts from the lines each node transformed last: no transpose before its
  // first axis (axis 2), whose 3 x 1 messages per node and b^3 3/4 words per node go.
  CHECK(count(program, 1).messages == nodes * (3 * ((1 + 2) + (2 + 2) + (2 + 1)) - 3 * 1));
  CHECK(words_sent(program, 1) == nodes * (3 * 2 - 1) * block * 3 / 4);
  // Within a ring: routes along its axis only, at most P/2 = 2 hops (the short way round).
  CHECK(count(program, 0).max_hops == 2);
  // Non-cubic 4x2x2 with b = 2x4x4: per axis 2 b^3 (P_a - 1)/P_a words per node.
  const Program flat = make_algorithm("ring_block_fft")->build(ring_fft_problem({8, 8, 8}, {4, 2, 2}, {D::Forward}, "fft"));
  CHECK(words_sent(flat, 0) == 16 * (2 * 32 * 3 / 4 + 2 * 32 * 1 / 2 + 2 * 32 * 1 / 2));
}

TEST_CASE("ring_block_fft: refused when a ring has more nodes than lines (b^2 < P), on a mesh, and with uneven blocks",
          "[transpose][ring_block]") {
  const auto build = [](const Extents3& n, std::array<int, 3> p) {
    return make_algorithm("ring_block_fft")->build(ring_fft_problem(n, p, {D::Forward}, "auto"));
  };
  CHECK_THROWS_WITH(build({4, 4, 4}, {4, 4, 4}), Catch::Contains("P: '4x4x4' is not allowed with algorithm ring_block_fft") &&
                                                     Catch::Contains("some node would have no line to transform") &&
                                                     Catch::Contains("b^2 >= P"));
  CHECK_THROWS_WITH(build({10, 8, 8}, {4, 2, 2}), Catch::Contains("N: '10x8x8'") && Catch::Contains("multiple of P_a"));
  TransformProblem mesh = ring_fft_problem({8, 8, 8}, {2, 2, 2}, {D::Forward}, "auto");
  mesh.shape.boundary = {Topology::Mesh, Topology::Mesh, Topology::Mesh};
  CHECK_THROWS_WITH(make_algorithm("ring_block_fft")->build(mesh),
                    Catch::Contains("boundary: 'mesh' is not allowed with algorithm ring_block_fft") && Catch::Contains("allowed: torus"));
  TransformProblem fft = ring_fft_problem({12, 8, 8}, {2, 2, 2}, {D::Forward}, "fft");
  CHECK_THROWS_WITH(make_algorithm("ring_block_fft")->build(fft), Catch::Contains("local_kernel: 'fft' is not allowed for axis 1"));
}

// The outputs list (node, buffer, piece) entries; the generic verifier checks each one where it
// says, so an entry moved to another node is caught.
TEST_CASE("ring_block_fft: output entries name their node, and the verifier checks each", "[transpose][ring_block]") {
  Program program = make_algorithm("ring_block_fft")->build(ring_fft_problem({8, 8, 8}, {2, 2, 2}, {D::Forward}, "fft"));
  const ProgramOutput& out = program.outputs.front();
  REQUIRE(out.node.size() == out.entries());
  CHECK(out.entries() > program.node_count());  // each node's block in several pieces
  REQUIRE(verify_program(program).ok());
  std::uint32_t& moved = program.outputs.front().node.front();
  moved = (moved + 1) % static_cast<std::uint32_t>(program.node_count());
  const ProgramVerification broken = verify_program(program);
  REQUIRE_FALSE(broken.ok());
  CHECK_THAT(to_string(program, broken.violations.front()), Catch::Contains("output 'forward' promises"));
}
