// The functional executor (execute_program on the orbital Program) against the golden
// reference: every scheduling vector, forward and inverse, every transform, every element type,
// on shapes from the serial P = 1 to the fine-grained b = 1, including non-powers of two. Tolerances come from sim/accuracy.hpp
// (docs/numerics.md): the three-stage rounding factor of the working precision and N times the
// |C|-transform of |x|.

#include <catch2/catch.hpp>

#include <algorithm>
#include <complex>
#include <iostream>
#include <random>

#include "kernels/mode_product.hpp"
#include "kernels/scalar.hpp"
#include "kernels/transform.hpp"
#include "sim/accuracy.hpp"
#include "sim/algorithm.hpp"
#include "sim/program_executor.hpp"
#include "sim/run_inputs.hpp"

using namespace torus;

namespace {

struct ScheduleShape {
  std::size_t n;
  int p;
};

struct Worst {
  double forward = 0, inverse = 0, round_trip = 0;
};

// The orbital Program of a round trip (forward, then inverse on the forward's result where the
// torus left it), run by the functional executor.
template <class T>
struct RoundTrip {
  Program program;
  ProgramResult<T> result;
};

template <class T>
RoundTrip<T> run_round_trip(const Tensor3<T>& x, const std::array<Matrix<T>, 3>& c, const std::array<Matrix<T>, 3>& d,
                            int p, const SchedulingVector& alpha) {
  const std::size_t b = x.extent(0) / static_cast<std::size_t>(p);
  RoundTrip<T> run{make_algorithm("orbital")->build(
                       {TorusShape::cube(p), BlockGrid::cube(b, p), alpha, {TransformDirection::Forward, TransformDirection::Inverse}}),
                   {}};
  run.result = execute_program(run.program, HostData<T>{x, {c, d}, {}});
  return run;
}

// Runs forward then inverse through the executor and checks each against golden, the round
// trip against x, and the counts against those the paper derives.
template <class T>
Worst check_transform(const std::string& spec, ScheduleShape shape, const SchedulingVector& alpha) {
  const AxisTransforms transforms = parse_axis_transforms(spec, {});
  std::array<Matrix<T>, 3> c, d;
  std::vector<double> defects;
  double defect = 1.0;
  for (std::size_t a = 0; a < 3; ++a) {
    const CoefficientMatrices m = transforms.axis[a]->matrices(shape.n);
    c[a] = round_coefficients<T>(m.forward);
    d[a] = round_coefficients<T>(m.inverse);
    defect *= 1.0 + inverse_defect(c[a], d[a]);
  }
  const std::size_t b = shape.n / static_cast<std::size_t>(shape.p);
  const Tensor3<T> x = random_tensor<T>(shape.n, 5);
  INFO(spec << " N=" << shape.n << " P=" << shape.p << " alpha=" << alpha.to_string());
  const RoundTrip<T> run = run_round_trip(x, c, d, shape.p, alpha);

  const Tensor3<T> y = run.result.gather(run.program, "forward");
  const ErrorReport fe = compare_to_golden(y, golden_transform(x, c), absolute_transform(x, c));
  INFO("forward: max rel " << fe.max_rel_error << ", error/bound " << fe.max_bound_ratio);
  CHECK(fe.within_tolerance());

  const Tensor3<T> xr = run.result.gather(run.program, "inverse");
  const ErrorReport ie = compare_to_golden(xr, golden_transform(y, d), absolute_transform(y, d));
  INFO("inverse: max rel " << ie.max_rel_error << ", error/bound " << ie.max_bound_ratio);
  CHECK(ie.within_tolerance());

  const ErrorReport rt = compare_round_trip(xr, x, absolute_transform(y, d),
                                            absolute_transform_of_magnitude(absolute_transform(x, c), d), defect - 1.0);
  INFO("round trip: max rel " << rt.max_rel_error << ", error/bound " << rt.max_bound_ratio);
  CHECK(rt.within_tolerance());

  // The paper's counts. Words held are what a node allocates: 4b^3 + 3b^2 for one block of
  // every kind, plus (P > 1) second buffers for the rolled kinds X', X'', Y and C3.
  const std::size_t n = shape.n, p = static_cast<std::size_t>(shape.p);
  const std::size_t held = 4 * b * b * b + 3 * b * b + (p > 1 ? 3 * b * b * b + b * b : 0);
  REQUIRE(run.result.per_transform.size() == 2);
  for (const ProgramExecutionCounts& counts : run.result.per_transform) {
    CHECK(counts.steps == 3 * p);
    CHECK(counts.compute_tasks == 3 * p * p * p * p);
    CHECK(counts.scalar_multiply_adds == 3 * n * n * n * n);
    CHECK(counts.words_held_per_node == held);
    CHECK(counts.words_sent_per_node_step_min == counts.words_sent_per_node_step);
  }
  const std::size_t light = p > 1 ? b * b * b + b * b : 0, heavy = p > 1 ? 2 * b * b * b : 0;  // P = 1 moves nothing
  CHECK(run.result.per_transform[0].words_sent_per_node_step == std::array<std::size_t, 3>{light, heavy, heavy});
  CHECK(run.result.per_transform[1].words_sent_per_node_step == std::array<std::size_t, 3>{heavy, heavy, light});
  return {fe.max_rel_error, ie.max_rel_error, rt.max_rel_error};
}

const std::vector<ScheduleShape>& general_shapes() {
  static const std::vector<ScheduleShape> shapes = {{4, 1}, {4, 4}, {4, 2}, {6, 3}, {8, 4}, {10, 5}, {12, 4}, {15, 5}, {5, 5}, {6, 2}};
  return shapes;
}
const std::vector<ScheduleShape>& power_of_two_shapes() {
  static const std::vector<ScheduleShape> shapes = {{4, 1}, {4, 4}, {4, 2}, {8, 4}, {8, 2}, {16, 4}};
  return shapes;
}

// Prints the largest relative errors seen, for the record (ctest -V shows them).
template <class T>
void check_all(const std::string& transform) {
  const auto& shapes = transform == "wht" ? power_of_two_shapes() : general_shapes();
  Worst worst;
  for (const SchedulingVector& alpha : all_scheduling_vectors())
    for (const ScheduleShape& shape : shapes) {
      const Worst w = check_transform<T>(transform, shape, alpha);
      worst = {std::max(worst.forward, w.forward), std::max(worst.inverse, w.inverse),
               std::max(worst.round_trip, w.round_trip)};
    }
  std::cout << "largest relative error, " << transform << " " << to_string(scalar_type_of<T>()) << ": forward "
            << worst.forward << ", inverse " << worst.inverse << ", round trip " << worst.round_trip << "\n";
}

}  // namespace

TEMPLATE_TEST_CASE("executor matches golden for real transforms, every alpha and shape", "[sim][executor]", float, double,
                   std::complex<float>, std::complex<double>) {
  const auto transform = GENERATE(as<std::string>{}, "dct", "dst", "dht", "wht");
  check_all<TestType>(transform);
}

TEMPLATE_TEST_CASE("executor matches golden for the DFT, every alpha and shape", "[sim][executor]", std::complex<float>,
                   std::complex<double>) {
  check_all<TestType>("dft");
}

TEST_CASE("mixed per-axis transforms run on the torus", "[sim][executor]") {
  const auto spec = GENERATE(as<std::string>{}, "dct,dft,dht", "dst,identity,dct", "dft,dft,dct");
  for (const SchedulingVector& alpha : all_scheduling_vectors()) check_transform<std::complex<double>>(spec, {6, 3}, alpha);
  check_transform<double>("dct,dst,dht", {12, 4}, SchedulingVector::parse("-+-"));
}

TEST_CASE("the executor moves blocks, not a copy of the answer: identity shows the layout", "[sim][executor]") {
  // With identity coefficients the forward output must equal the input exactly, element for
  // element: any misplaced block would move values.
  const std::size_t n = 6;
  const Tensor3<double> x = random_tensor<double>(n, 3);
  const Matrix<double> id = Matrix<double>::Identity(6, 6);
  for (const SchedulingVector& alpha : all_scheduling_vectors()) {
    const Program program = make_algorithm("orbital")->build({TorusShape::cube(3), BlockGrid::cube(2, 3), alpha, {TransformDirection::Forward}});
    const ProgramResult<double> result = execute_program(program, HostData<double>{x, {{id, id, id}}, {}});
    std::vector<OutputBlock> layout;
    CHECK(result.gather(program, "forward", &layout) == x);
    // The skewed layout: node (Q,R,S) holds output block (S, Q, T).
    REQUIRE(layout.size() == 27);
    for (const OutputBlock& block : layout) {
      const NodeCoord node = program.shape.coord_of(block.node);
      CHECK(block.tag.index == std::array<int, 3>{node.s, node.q, alpha.time_of(node, 3)});
    }
  }
}

TEST_CASE("an unverified broken Program makes the executor stop, not compute garbage", "[sim][executor][errors]") {
  Program program = make_algorithm("orbital")->build({TorusShape::cube(2), BlockGrid::cube(1, 2), {}, {TransformDirection::Forward}});
  auto& tasks = program.nodes[0].tasks;
  const auto compute = std::find_if(tasks.begin(), tasks.end(), [](const Task& t) { return t.kind == TaskKind::Compute; });
  REQUIRE(compute != tasks.end());
  program.nodes[0].detail(*compute).operand_tag.index[0] ^= 1;  // names a block the node does not hold
  const Tensor3<double> x(2, 2, 2);
  const Matrix<double> id = Matrix<double>::Identity(2, 2);
  CHECK_THROWS_WITH(execute_program(program, HostData<double>{x, {{id, id, id}}, {}}),
                    Catch::Contains("node (0,0,0)") && Catch::Contains("operand buffer") &&
                        Catch::Contains("holds X(0,0,0) but the task names X(1,0,0)"));
}
