// The transpose-based transforms (slab, pencil, ring transpose): on cubic and other tori, with
// uneven pieces, forward, inverse and round trip, proved by the generic verifier and the
// algorithm's own checks, computed by the functional executor and golden-checked; the ring
// transpose's hop count against "FFT for the APE Parallel Computer" (Lippert et al.), Eq. 2 and 3.

#include <catch2/catch.hpp>

#include <bit>
#include <complex>

#include "kernels/mode_product.hpp"
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

struct Case {
  std::string algorithm;
  Extents3 n;
  std::array<int, 3> p;
};

TransformProblem fft_problem(const Case& c, std::vector<D> directions) {
  const TorusShape shape{c.p[0], c.p[1], c.p[2]};
  // The grid is the problem's tensor; each algorithm cuts it its own way.
  return {shape, BlockGrid::make(c.n, {1, 1, 1}), SchedulingVector::parse("+++"), std::move(directions)};
}

template <class T>
void check_fft_round_trip(const Case& c, const std::string& spec) {
  INFO(c.algorithm << " N=" << extents_text(c.n) << " P=" << c.p[0] << "x" << c.p[1] << "x" << c.p[2] << " " << spec);
  const Program program = proved(c.algorithm, fft_problem(c, {D::Forward, D::Inverse}));
  const auto fc = transform_matrices<T>(spec, c.n, D::Forward), dc = transform_matrices<T>(spec, c.n, D::Inverse);
  const HostData<T> host{random_tensor<T>(c.n, 5), {fc, dc}, {}};
  const ProgramResult<T> result = execute_program(program, host);
  const Tensor3<T> y = result.gather(program, "forward");
  CHECK(compare_to_golden(y, golden_transform(host.input, fc), absolute_transform(host.input, fc)).within_tolerance());
  const Tensor3<T> x = result.gather(program, "inverse");
  CHECK(compare_to_golden(x, golden_transform(y, dc), absolute_transform(y, dc)).within_tolerance());
  // Dense local transforms: every line of every axis once, N1 N2 N3 (N1 + N2 + N3) multiply-adds.
  for (const ProgramExecutionCounts& counts : result.per_transform)
    CHECK(counts.scalar_multiply_adds == c.n[0] * c.n[1] * c.n[2] * (c.n[0] + c.n[1] + c.n[2]));
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"slab_fft", {8, 8, 8}, {2, 2, 2}},           {"slab_fft", {6, 7, 9}, {1, 4, 1}},
      {"slab_fft", {5, 12, 12}, {3, 2, 2}},         {"slab_fft", {4, 4, 4}, {1, 1, 1}},
      {"pencil_fft", {8, 8, 8}, {2, 2, 2}},         {"pencil_fft", {9, 6, 7}, {3, 2, 1}},
      {"pencil_fft", {4, 10, 11}, {2, 1, 5}},       {"pencil_fft", {6, 6, 6}, {4, 1, 1}},
      {"ring_transpose_fft", {8, 8, 8}, {2, 2, 2}}, {"ring_transpose_fft", {12, 12, 1}, {3, 2, 2}},
      {"ring_transpose_fft", {7, 9, 5}, {2, 3, 1}},
  };
  return all;
}

}  // namespace

TEST_CASE("transpose FFTs: every algorithm and shape, round trips proved and golden-checked", "[transpose][executor]") {
  for (const Case& c : cases()) {
    check_fft_round_trip<std::complex<double>>(c, "dft");
    check_fft_round_trip<double>(c, "dct");
  }
  check_fft_round_trip<std::complex<float>>(cases()[5], "dft");
  check_fft_round_trip<std::complex<double>>(cases()[6], "dft,dct,dht");
}

TEST_CASE("transpose FFTs: a node count the tensor cannot spread over is refused naming N", "[transpose]") {
  for (const std::string name : {"slab_fft", "pencil_fft", "ring_transpose_fft"}) {
    const Case c{name, {8, 8, 8}, {2, 2, 2}};  // slab and ring need 8 planes, pencil 2 x 4
    const auto build = [&] { return make_algorithm(name)->build(fft_problem({name, {4, 3, 4}, {2, 2, 2}}, {D::Forward})); };
    if (name == "pencil_fft") {
      CHECK_THROWS_WITH(build(), Catch::Contains("N: '4x3x4'") && Catch::Contains("Pc = 4"));
    } else {
      CHECK_THROWS_WITH(build(), Catch::Contains("N: '4x3x4'") && Catch::Contains("allowed: at least 8"));
    }
    CHECK(verify_program(make_algorithm(name)->build(fft_problem(c, {D::Forward}))).ok());
  }
}

// The ring transpose moves every node's row l by the torus translation of ring position l,
// l0 + l1 + l2 links (Eq. 1 and 2). Summed over l = 1..p-1, Eq. 2 gives (p/2)(p0 + p1 + p2 - 3)
// hops per node; the paper's Eq. 3 says (p/2)(p0 + p1 + p2 + 3). The Program's routes decide.
TEST_CASE("ring transpose: hops per node are Eq. 2 summed, not Eq. 3", "[transpose][ring]") {
  for (const std::array<int, 3> p : {std::array<int, 3>{2, 2, 8}, {4, 4, 8}, {8, 8, 8}, {2, 3, 5}}) {
    const std::size_t nodes = static_cast<std::size_t>(p[0] * p[1] * p[2]);
    const Case c{"ring_transpose_fft", {nodes, nodes, 1}, p};
    const Program program = make_algorithm(c.algorithm)->build(fft_problem(c, {D::Forward}));
    const ProgramCounts counts = count(program, 0);
    CHECK(counts.messages == nodes * (nodes - 1));
    const std::size_t sum = static_cast<std::size_t>(p[0] + p[1] + p[2]);
    INFO("p = " << p[0] << "x" << p[1] << "x" << p[2]);
    CHECK(2 * counts.hops == nodes * nodes * (sum - 3));  // Eq. 2 summed, for each of the p nodes
    CHECK(2 * counts.hops != nodes * nodes * (sum + 3));  // Eq. 3
    CHECK(counts.max_hops == sum - 3);                     // l = p - 1: every coordinate at its largest
  }
}

// local_kernel fft: each local transform is one FFT task over the pieces its lines came in,
// handing out the pieces the transpose sends; values within the FFT's derived bound.
TEST_CASE("transpose FFTs with FFT tasks: round trips proved and golden-checked, N^3/2 log2 N butterflies per axis",
          "[transpose][fft]") {
  using C = std::complex<double>;
  for (const Case& c : {Case{"slab_fft", {8, 8, 8}, {2, 2, 2}}, Case{"pencil_fft", {8, 16, 8}, {2, 2, 2}},
                        Case{"pencil_fft", {16, 4, 8}, {4, 1, 2}}, Case{"ring_transpose_fft", {16, 16, 1}, {2, 2, 2}}}) {
    INFO(c.algorithm << " N=" << extents_text(c.n));
    TransformProblem pr = fft_problem(c, {D::Forward, D::Inverse});
    pr.local_kernel = "fft";
    for (std::size_t a = 0; a < 3; ++a) pr.axes[a] = {true, 1.0, 1.0 / static_cast<double>(c.n[a])};
    const Program program = proved(c.algorithm, pr);
    const auto fc = transform_matrices<C>("dft", c.n, D::Forward), dc = transform_matrices<C>("dft", c.n, D::Inverse);
    const HostData<C> host{random_tensor<C>(c.n, 8), {fc, dc}, {}};
    const ProgramResult<C> result = execute_program(program, host);
    const double u = unit_roundoff<C>();
    std::array<double, 3> unscaled{}, scaled{};  // the forward is unscaled, the inverse scaled by 1/N_a
    for (std::size_t a = 0; a < 3; ++a) {
      unscaled[a] = fft_stage_factor(c.n[a], u, false);
      scaled[a] = fft_stage_factor(c.n[a], u, true);
    }
    const Tensor3<C> y = result.gather(program, "forward");
    CHECK(compare_to_golden_per_stage(y, golden_transform(host.input, fc), absolute_transform(host.input, fc), unscaled, 3)
              .within_tolerance());
    const Tensor3<C> x = result.gather(program, "inverse");
    CHECK(compare_to_golden_per_stage(x, golden_transform(y, dc), absolute_transform(y, dc), scaled, 3).within_tolerance());
    std::size_t butterflies = 0;
    for (std::size_t a = 0; a < 3; ++a)
      butterflies += c.n[0] * c.n[1] * c.n[2] / 2 * static_cast<std::size_t>(std::countr_zero(c.n[a]));
    for (const ProgramExecutionCounts& counts : result.per_transform) {
      CHECK(counts.fft_butterflies == butterflies);
      CHECK(counts.scalar_multiply_adds == 0);
    }
  }
}

TEST_CASE("local_kernel fft is refused where an axis is not a DFT of power-of-two length cut evenly", "[transpose][fft]") {
  TransformProblem pr = fft_problem({"slab_fft", {12, 8, 8}, {2, 2, 1}}, {D::Forward});
  pr.local_kernel = "fft";
  pr.axes = {LocalAxis{false, 1, 1}, LocalAxis{true, 1, 1}, LocalAxis{true, 1, 1}};
  CHECK_THROWS_WITH(make_algorithm("slab_fft")->build(pr), Catch::Contains("local_kernel: 'fft' is not allowed for axis 1"));
  pr.local_kernel = "auto";  // axis 1 dense, axes 2 and 3 by FFT
  const Program program = make_algorithm("slab_fft")->build(pr);
  CHECK(verify_program(program).ok());
  CHECK(count(program, 0).scalar_multiply_adds == 12 * 8 * 8 * 12);
}
