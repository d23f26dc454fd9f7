// FFT tasks through the generic Program machinery: the verifier, printing, counts, the
// whole-Program executor (values equal the FFT of sim/fft_task.hpp, real types refused) and the
// quotient executor's refusal.

#include <catch2/catch.hpp>

#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kernels/mode_product.hpp"
#include "kernels/scalar.hpp"
#include "kernels/transform.hpp"
#include "sim/accuracy.hpp"
#include "sim/algorithm.hpp"
#include "sim/fft_task.hpp"
#include "sim/program_executor.hpp"
#include "sim/program_verifier.hpp"
#include "sim/quotient_executor.hpp"

using namespace torus;

namespace {

// One node: load X (the whole 8 x 4 x 2 tensor) into b0; FFT along axis 2 into Y(0,0,0) and
// Y(0,0,1) (b1, b2: the halves along axis 3); FFT along axis 1 reading both (input_cut 3) into
// b0, whose X is no longer needed, as Z.
Program one_node() {
  Program p;
  p.algorithm = "hand-built";
  p.shape = TorusShape{1, 1, 1};
  p.grid = BlockGrid::make({8, 4, 2}, {1, 1, 1});
  p.tag_kinds = {{"X", 3, 0, std::nullopt}, {"Y", 3, 0, BlockGrid::make({8, 4, 2}, {1, 1, 2})}, {"Z", 3, 0, std::nullopt}};
  p.host_arrays = {{"input", false, 0, 0, {}, 0}};
  p.transforms = {"forward"};
  p.stages = {{0, 1, 1, "hand-built", 1}};
  p.nodes = {NodeProgram{{{64, 0}, {32, 1}, {32, 1}}, {}, {}, {}}};
  Task load = make_task(TaskKind::Load, {});
  load.buffer = 0;
  TaskDetail loaded;
  loaded.tag = {0, {0, 0, 0}};
  p.nodes[0].add(load, loaded);
  FftSpec first{"fft2", 2, {8, 4, 2}, 1, 1, 3, 2, false, 1.0};
  FftSpec second{"fft1", 1, {8, 4, 2}, 3, 2, 1, 1, false, 1.0};
  p.ffts = {first, second};
  Task a = make_task(TaskKind::Fft, {});
  TaskDetail da;
  da.kernel = 0;
  da.operand = 0;
  da.operand_tag = {0, {0, 0, 0}};
  a.buffer = 1;
  da.tag = {1, {0, 0, 0}};
  Task b = a;
  TaskDetail db = da;
  db.kernel = 1;
  db.operand = 1;
  db.operand_tag = {1, {0, 0, 0}};
  b.buffer = 0;
  db.tag = {2, {0, 0, 0}};
  p.nodes[0].add(a, da);
  p.nodes[0].add(b, db);
  p.outputs = {{"forward", 0, 1, {0}, {{2, {0, 0, 0}}}, {}}};
  return p;
}

std::string first_violation(const Program& p) {
  const ProgramVerification v = verify_program(p);
  return v.violations.empty() ? "" : to_string(p, v.violations.front());
}

}  // namespace

TEST_CASE("the verifier checks FFT tasks: specs, extents, buffers, tags read before written", "[program][fft]") {
  CHECK(first_violation(one_node()).empty());
  Program p = one_node();
  p.ffts[0].outputs = 3;
  CHECK_THAT(first_violation(p), Catch::Contains("3 outputs do not cut extent 2 along axis 3 evenly"));
  p = one_node();
  p.ffts[1].whole = {6, 4, 2};
  CHECK_THAT(first_violation(p), Catch::Contains("length 6 along axis 1 is not a power of two"));
  p = one_node();
  p.nodes[0].buffers[2].words = 16;
  CHECK_THAT(first_violation(p), Catch::Contains("FFT output b2 (Y) has 16 words; 32 are needed"));
  p = one_node();
  p.nodes[0].detail(p.nodes[0].tasks[2]).operand_tag = {1, {0, 0, 1}};  // reads Y(0,0,1), Y(0,0,2): the second is no block here
  CHECK_FALSE(verify_program(p).ok());
  p = one_node();
  std::swap(p.nodes[0].tasks[1], p.nodes[0].tasks[2]);  // reads Y before the first FFT writes it
  CHECK_THAT(first_violation(p), Catch::Contains("task 1 (fft,") && Catch::Contains("read before written"));
  p = one_node();
  p.nodes[0].detail(p.nodes[0].tasks[1]).kernel = 7;
  CHECK_THAT(first_violation(p), Catch::Contains("uses FFT 7; there are 2 FFTs"));
}

TEST_CASE("FFT tasks are printed, counted and accounted", "[program][fft]") {
  const Program p = one_node();
  const std::string text = format_text(p);
  CHECK_THAT(text, Catch::Contains("fft fft2: axis 2 8x4x2 forward x1: X(0,0,0) [b0:X] -> Y(0,0,0) [b1:Y] .. Y(0,0,1) [b2:Y] (2 along axis 3)"));
  const nlohmann::json j = to_json(p);
  CHECK(j["nodes"][0]["tasks"][1]["kind"] == "fft");
  CHECK(j["nodes"][0]["tasks"][1]["fft"]["butterflies"] == 16 * 2 * 2);
  CHECK(j["nodes"][0]["tasks"][2]["inputs"]["count"] == 2);
  CHECK(j["nodes"][0]["tasks"][2]["inputs"]["buffers"].size() == 2);
  const ProgramCounts c = count(p, 0);
  CHECK(c.fft_tasks == 2);
  CHECK(c.fft_butterflies == 16 * 2 * 2 + 8 * 4 * 3);  // 16 lines of 4, then 8 lines of 8
  CHECK(c.scalar_multiply_adds == 0);
  Program more = p;
  more.ffts.push_back(more.ffts[0]);
  CHECK(bytes(more) > bytes(p));
}

TEST_CASE("the executor runs FFT tasks in the machine's arithmetic and refuses real data", "[program][fft][executor]") {
  using C = std::complex<double>;
  const Program p = one_node();
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> d(-1, 1);
  Tensor3<C> x(8, 4, 2);
  for (C& v : x.values()) v = {d(rng), d(rng)};
  const HostData<C> host{x, {}, {}};
  const ProgramResult<C> r = execute_program(p, host);
  CHECK(r.counts.fft_tasks == 2);
  CHECK(r.counts.fft_butterflies == count(p, 0).fft_butterflies);
  // The same two FFTs by hand: bit for bit.
  std::vector<C> y(32), z(32), out(64);
  FftPlan<C>(p.ffts[0]).run({x.data()}, {y.data(), z.data()});
  FftPlan<C>(p.ffts[1]).run({y.data(), z.data()}, {out.data()});
  CHECK(r.buffers[0][0] == out);
  // And the 2D DFT along axes 1 and 2 within the bound.
  std::array<Matrix<C>, 3> dft;
  for (std::size_t a = 0; a < 3; ++a) {
    const std::size_t n = x.extents()[a];
    dft[a] = a == 2 ? Matrix<C>::Identity(2, 2) : round_coefficients<C>(make_transform("dft", {})->matrices(n).forward);
  }
  const double u = unit_roundoff<C>();
  const ErrorReport e = compare_to_golden_per_stage(r.gather(p, "forward"), golden_transform(x, dft), absolute_transform(x, dft),
                                                    {fft_stage_factor(8, u, false), fft_stage_factor(4, u, false), 0.0}, 2);
  CHECK(e.within_tolerance());
  const HostData<double> real{Tensor3<double>(8, 4, 2, 1.0), {}, {}};
  CHECK_THROWS_WITH(execute_program(p, real), Catch::Contains("fft2") && Catch::Contains("real element type double"));
}

TEST_CASE("the quotient executor refuses FFT tasks clearly", "[program][fft]") {
  Program p = one_node();
  p.translation_quotient = true;
  const HostData<std::complex<double>> host{Tensor3<std::complex<double>>(8, 4, 2), {}, {}};
  CHECK_THROWS_WITH(execute_quotient(p, {QuotientNodeBlocks{{{0, {0, 0, 0}}}, {{2, {0, 0, 0}}}}}, host, 1),
                    Catch::Contains("FFT tasks") && Catch::Contains("symmetry: off"));
}

TEST_CASE("a run's golden check takes each axis's factor from what computed it", "[program][fft][accuracy]") {
  const Program p = one_node();
  const std::array<FftAxis, 3> axes = fft_axes(p);
  CHECK(axes[0].fft);
  CHECK(axes[1].fft);
  CHECK_FALSE(axes[2].fft);
  CHECK_FALSE(axes[0].scaled);
  Program split = p;
  split.ffts[0].whole = {8, 2, 2};  // lines of 2 along an axis of 4
  CHECK_THROWS_WITH(fft_axes(split), Catch::Contains("lines of 2 along axis 2 of length 4"));
  // All dense and k = 0: the dense tolerance 2F (up to the order of the products); FFTs on
  // every axis: a tighter one, still above each side's own bound.
  using C = std::complex<double>;
  const double u = unit_roundoff<C>(), dense = stage_factor(8, u, true, 1);
  const Tensor3<C> zero(8, 8, 8);
  const Tensor3<double> magnitude(8, 8, 8, 1.0);
  const double two_f = compare_to_golden(zero, zero, magnitude).tolerance_factor;
  CHECK(compare_to_golden_per_stage(zero, zero, magnitude, {dense, dense, dense}, 0).tolerance_factor == Approx(two_f).epsilon(1e-12));
  const double e = fft_stage_factor(8, u, false);
  const double with_ffts = compare_to_golden_per_stage(zero, zero, magnitude, {e, e, e}, 3).tolerance_factor;
  CHECK(with_ffts < two_f);
  CHECK(with_ffts > two_f / 2 + chained_factor({e, e, e}));
}

TEST_CASE("a Program written as it is made reads exactly as the whole text and JSON tree", "[program]") {
  // The command `program` writes node by node so that a large Program is not held twice (as a
  // JSON tree it took ten times the Program's own memory): the bytes must be the same.
  std::vector<Program> programs = {one_node()};
  TransformProblem orbital{TorusShape::cube(2), BlockGrid::cube(2, 2), SchedulingVector::parse("+-+"),
                           {TransformDirection::Forward, TransformDirection::Inverse}};
  programs.push_back(make_algorithm("orbital")->build(orbital));
  const TransformProblem blocks{TorusShape::cube(2), BlockGrid::cube(4, 2), SchedulingVector::parse("+++"), {TransformDirection::Forward}};
  programs.push_back(make_algorithm("ring_block_fft")->build(blocks));
  // Algorithms that cut the tensor their own way get it whole.
  const TransformProblem whole{TorusShape::cube(2), BlockGrid::make({8, 8, 8}, {1, 1, 1}), SchedulingVector::parse("+++"),
                               {TransformDirection::Forward}};
  for (const char* name : {"slab_fft", "pencil_fft"}) programs.push_back(make_algorithm(name)->build(whole));
  Program empty = one_node();
  empty.messages.clear();  // an empty array is printed as [] both ways
  programs.push_back(empty);
  for (const Program& p : programs) {
    INFO(p.description);
    std::ostringstream text, json;
    write_text(text, p);
    write_json(json, p);
    CHECK(text.str() == format_text(p));
    CHECK(json.str() == to_json(p).dump(1));
  }
}
