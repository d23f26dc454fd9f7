// FFT tasks in both engines (docs/timing-model.md, "FFT tasks"): hand-derived cycles of a
// one-node Program, a two-node Program whose second FFT reads the pieces the first one's
// outputs sent, with both engines' records equal and the values a dense 2D DFT within the bound
// of docs/numerics.md ("FFT tasks").

#include <catch2/catch.hpp>

#include <random>

#include "kernels/mode_product.hpp"
#include "kernels/scalar.hpp"
#include "kernels/transform.hpp"
#include "models/engine_records.hpp"
#include "models/event/event_engine.hpp"
#include "sim/accuracy.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/roll_policy.hpp"
#include "sim/program_verifier.hpp"
#include "tests/model/program_bench.hpp"

using namespace torus;
using namespace torus::bench;

namespace {

// A Program on `shape` whose tensor is one block of `extents` (tag kinds X and Z use that grid)
// and whose kind Y cuts it into `y_parts` blocks.
Program fft_program(const TorusShape& shape, const Extents3& extents, const std::array<std::size_t, 3>& y_parts) {
  Program p;
  p.algorithm = "hand-built";
  p.shape = shape;
  p.grid = BlockGrid::make(extents, {1, 1, 1});
  p.tag_kinds = {{"X", 3, 0, std::nullopt}, {"Y", 3, 0, BlockGrid::make(extents, y_parts)}, {"Z", 3, 0, std::nullopt}};
  p.host_arrays = {{"input", false, 0, 0, {}, 0}};
  p.transforms = {"forward"};
  p.stages = {{0, 1, 1, "hand-built", 1}};
  p.nodes.assign(shape.node_count(), NodeProgram{});
  return p;
}

DataTag block(std::uint16_t kind, int i2 = 0) { return {kind, {0, i2, 0}}; }

void add_buffer(Program& p, std::size_t node, std::size_t words, std::uint16_t kind) {
  p.nodes[node].buffers.push_back({static_cast<std::uint32_t>(words), kind});
}

// An FFT task: spec appended to Program::ffts.
void fft(Program& p, std::size_t node, const FftSpec& spec, std::uint32_t first_input, const DataTag& input_tag,
         std::uint32_t first_output, const DataTag& output_tag) {
  p.ffts.push_back(spec);
  Task t = make_task(TaskKind::Fft, {});
  TaskDetail d;
  d.kernel = static_cast<std::uint32_t>(p.ffts.size() - 1);
  d.operand = first_input;
  d.operand_tag = input_tag;
  t.buffer = first_output;
  d.tag = output_tag;
  p.nodes[node].add(t, d);
}

FftSpec spec_of(int axis, const Extents3& whole, int input_cut, std::uint32_t inputs, int output_cut, std::uint32_t outputs) {
  FftSpec s;
  s.name = "fft" + std::to_string(axis);
  s.axis = axis;
  s.whole = whole;
  s.input_cut = input_cut;
  s.inputs = inputs;
  s.output_cut = output_cut;
  s.outputs = outputs;
  return s;
}

// One node: load X (8 x 2 x 1) into b0, FFT along axis 1 into b1.
Program one_node_fft() {
  Program p = fft_program({1, 1, 1}, {8, 2, 1}, {1, 1, 1});
  add_buffer(p, 0, 16, 0);
  add_buffer(p, 0, 16, 2);
  load(p, 0, 0, block(0));
  fft(p, 0, spec_of(1, {8, 2, 1}, 1, 1, 1, 1), 0, block(0), 1, block(2));
  return p;
}

// Node 0 FFTs X (8 x 4 x 1) along axis 1 into Y(0,0,0) and Y(0,1,0) (cut along axis 2) and
// sends each to node 1 (+Q, one hop); node 1 receives them into b0, b1 and FFTs along axis 2,
// reading both (input_cut 2), into Z (8 x 4 x 1) in b2.
Program two_node_fft() {
  Program p = fft_program({2, 1, 1}, {8, 4, 1}, {1, 2, 1});
  add_buffer(p, 0, 32, 0);
  add_buffer(p, 0, 16, 1);
  add_buffer(p, 0, 16, 1);
  add_buffer(p, 1, 16, 1);
  add_buffer(p, 1, 16, 1);
  add_buffer(p, 1, 32, 2);
  load(p, 0, 0, block(0));
  fft(p, 0, spec_of(1, {8, 4, 1}, 1, 1, 2, 2), 0, block(0), 1, block(1, 0));
  message(p, 0, 1, {Direction::PlusQ}, 0, block(1, 0));
  message(p, 0, 2, {Direction::PlusQ}, 1, block(1, 1));
  fft(p, 1, spec_of(2, {8, 4, 1}, 2, 2, 1, 1), 0, block(1, 0), 2, block(2));
  return p;
}

const nlohmann::json& node_record(const nlohmann::json& records, std::size_t node) { return records["records"]["nodes"][node]; }

// Both engines' records (every report figure) are equal; the event engine's is returned.
nlohmann::json same_records(const Program& p, const Machine& machine) {
  const nlohmann::json cycle = engine_records(p, machine, "systemc"), event = engine_records(p, machine, "event");
  REQUIRE(cycle["completed"] == true);
  REQUIRE(event["completed"] == true);
  CHECK(event == cycle);
  CHECK(engine_records(p, machine, "event_no_values") == cycle);
  return event;
}

// One node, b = 2: B = A x1 C (a zeroing compute), then an FFT along axis 1 in place on B.
Program compute_then_fft() {
  Program p = empty_program(TorusShape{1, 1, 1}, 2, 3);
  p.tag_kinds.push_back({"C", 2, 1, std::nullopt});
  p.host_arrays.push_back({"C1", true, 1, 0, std::nullopt, 0});
  load(p, 0, 0, tag(0, 0));
  Task coefficient = make_task(TaskKind::Load, {});
  coefficient.buffer = 1;
  TaskDetail source;
  source.tag = tag(2, 0);
  source.source = {1, {0, 0, 0}};
  p.nodes[0].add(coefficient, source);
  compute(p, 0, 2, 0, 1, tag(1, 0), tag(0, 0), tag(2, 0));
  fft(p, 0, spec_of(1, {2, 2, 2}, 1, 1, 1, 1), 2, tag(1, 0), 2, tag(1, 1));
  return p;
}

// Both engines' runs of `p`, each completed with `total` cycles.
std::vector<nlohmann::json> runs_ending_at(const Program& p, const Machine& machine, std::int64_t total) {
  std::vector<nlohmann::json> runs{time_program(p, machine), time_program_event(p, machine)};
  for (const nlohmann::json& run : runs) {
    REQUIRE(run["completed"] == true);
    CHECK(run["total"] == total);
  }
  return runs;
}

void require_verified(const Program& p) {
  const ProgramVerification v = verify_program(p);
  INFO((v.violations.empty() ? "" : to_string(p, v.violations.front())));
  REQUIRE(v.ok());
}

}  // namespace

TEST_CASE("FFT task Programs pass the verifier, and a wrong input tag does not", "[model][fft]") {
  for (const Program& p : {one_node_fft(), two_node_fft()}) require_verified(p);
  Program wrong = two_node_fft();
  wrong.nodes[1].detail(wrong.nodes[1].tasks.back()).operand_tag = block(1, 1);  // inputs Y(0,1,0), Y(0,2,0): neither is held so
  CHECK_FALSE(verify_program(wrong).ok());
}

TEST_CASE("one FFT task: passes of 64 fma, each L cycles after the one before (hand-derived)", "[model][fft]") {
  // 2 lines of length 8, fma_per_butterfly 8: 2 x 4 x 3 = 24 butterflies, F = 192 fma in p = 3
  // passes of P = 64; L = 4. The load places X at cycle 0, so the FFT enters at 0 with no slot
  // taken (o = 0): c_0 = floor((P - 1)/f), c_k = c_{k-1} + L + floor((P - 1)/f), usable c_2 + L.
  //   f = 1: c_0 = 63, c_1 = 63 + 4 + 63 = 130, c_2 = 197; usable (and the run's end) at 201;
  //          busy 3 x 64 = 192 cycles, dependency 2 x (L - 1) = 6.
  //   f = 2: c_0 = 31, c_1 = 31 + 4 + 31 = 66, c_2 = 101; usable at 105; busy 96, dependency 6.
  const Program p = one_node_fft();
  for (const auto& [f, last, busy] : {std::tuple<unsigned, std::int64_t, std::uint64_t>{1, 197, 192}, {2, 101, 96}}) {
    INFO("fma_per_cycle " << f);
    Machine machine;
    machine.fma_latency = 4;
    machine.fma_per_cycle = f;
    for (const nlohmann::json& run : runs_ending_at(p, machine, last + 4)) {
      const auto& task = run["nodes"][0]["tasks"][1];
      CHECK(task["first"] == 0);
      CHECK(task["last"] == last + 4);
      CHECK(task["count"] == 192);
    }
    const nlohmann::json records = same_records(p, machine);
    CHECK(node_record(records, 0)["busy"] == busy);
    CHECK(node_record(records, 0)["dependency"] == 6);
    CHECK(node_record(records, 0)["operand"] == 0);
    CHECK(node_record(records, 0)["fma"] == 192);
  }
}

TEST_CASE("fma_per_butterfly scales the passes, a length-1 FFT issues nothing", "[model][fft]") {
  // fma_per_butterfly 1: passes of 8 fma, f = 1, L = 4: c_0 = 7, c_1 = 7 + 4 + 7 = 18, c_2 = 29, usable 33.
  Machine machine;
  machine.fma_latency = 4;
  machine.fma_per_butterfly = 1;
  Program p = one_node_fft();
  runs_ending_at(p, machine, 33);
  same_records(p, machine);
  // Along axis 3 (length 1): no pass, no fma; the outputs are usable where it enters (cycle 0).
  p.ffts[0].axis = 3;
  for (const nlohmann::json& run : runs_ending_at(p, machine, 0)) CHECK(run["nodes"][0]["tasks"][1]["count"] == 0);
  same_records(p, machine);
}

TEST_CASE("two nodes: FFT, two sends, two receives, FFT reading both (hand-derived, values a dense 2D DFT)", "[model][fft]") {
  // Node 0: 4 lines of length 8, 4 x 4 x 3 = 48 butterflies, F = 384, P = 128, L = 4, f = 1:
  // c_0 = 127, c_1 = 258, c_2 = 389, outputs usable at 393. Both sends were posted when the FFT
  // entered (cycle 0) and leave once usable: message 0's 16 words at 393..408 on +Q (latency
  // 1, one word per cycle), message 1 behind it at 409..424; each word lands one cycle later,
  // its receive posted since cycle 0, so node 1's last input word is usable at 425.
  // Node 1: 8 lines of length 4, 8 x 2 x 2 = 32 butterflies, F = 256, P = 128: enters at 425,
  // c_0 = 552, c_1 = 552 + 4 + 127 = 683, usable (the run's end) at 687. Its 425 cycles of
  // waiting are operand cycles (links never run out of credit: 64-word buffers).
  const Program p = two_node_fft();
  Machine machine;
  machine.fma_latency = 4;
  for (const nlohmann::json& run : runs_ending_at(p, machine, 687)) {
    CHECK(run["nodes"][0]["tasks"][1]["last"] == 393);
    CHECK(run["nodes"][0]["tasks"][2]["first"] == 393);
    CHECK(run["nodes"][0]["tasks"][3]["last"] == 424);
    CHECK(run["nodes"][1]["tasks"][1]["last"] == 425);
    CHECK(run["nodes"][1]["tasks"][2]["first"] == 425);
  }
  const nlohmann::json records = same_records(p, machine);
  CHECK(node_record(records, 1)["operand"] == 425);
  CHECK(node_record(records, 0)["fft_butterflies"] == std::vector<std::uint64_t>{48});
  CHECK(node_record(records, 1)["fft_fma"] == std::vector<std::uint64_t>{256});
  CHECK(node_record(records, 1)["busy"] == 256);
  for (const std::string policy : {"after_compute", "overlapped"})
    for (const unsigned f : {1u, 2u})
      for (const std::string fast_forward : {"on", "off"}) {  // SystemC fast-forwards FFT passes (after_compute)
        INFO(policy << " fma_per_cycle " << f << " fast_forward " << fast_forward);
        Machine other = machine;
        other.policy = policy;
        other.fma_per_cycle = f;
        other.link_buffer_words = 3;
        other.fast_forward = fast_forward;
        same_records(p, other);
      }

  // Values: the 2D DFT along axes 1 and 2, both engines bit-identical, within the bound.
  using C = std::complex<double>;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> d(-1, 1);
  Tensor3<C> x(8, 4, 1);
  for (C& v : x.values()) v = {d(rng), d(rng)};
  const ComplexBuffers cycle = engine_buffers(p, machine, "systemc", x, 1), event = engine_buffers(p, machine, "event", x, 1);
  CHECK(cycle == event);
  std::array<Matrix<C>, 3> dft;
  for (std::size_t a = 0; a < 3; ++a) dft[a] = round_coefficients<C>(make_transform("dft", {})->matrices(x.extents()[a]).forward);
  Tensor3<C> y(8, 4, 1);
  y.values() = cycle[2];
  const double u = unit_roundoff<C>();
  const ErrorReport e = compare_to_golden_per_stage(y, golden_transform(x, dft), absolute_transform(x, dft),
                                                    {fft_stage_factor(8, u, false), fft_stage_factor(4, u, false), 0.0}, 2);
  CHECK(e.within_tolerance());
  CHECK(e.max_abs_error < 1e-13);
}

TEST_CASE("an FFT in place on a compute's accumulator waits for the pipeline: dependency cycles (hand-derived)",
          "[model][fft]") {
  // b = 2: acc B = A x1 C (16 fma, interleaved: G = 8 targets >= L f = 4, so fma i issues at i,
  // the last at 15, and word t is usable at (R - 1) G + t + L = 12 + t: the last at 19). The FFT
  // along axis 1 in place on the accumulator (4 lines of length 2: 4 butterflies, F = 32 in one
  // pass) finds every word landed but words in the pipeline until 19: cycles 16, 17, 18 are
  // dependency; it enters at 19, c_0 = 19 + 31 = 50, usable (the run's end) at 54.
  const Program p = compute_then_fft();
  require_verified(p);
  Machine machine;
  machine.fma_latency = 4;
  for (const nlohmann::json& run : runs_ending_at(p, machine, 54)) CHECK(run["nodes"][0]["tasks"][3]["first"] == 19);
  const nlohmann::json records = same_records(p, machine);
  CHECK(node_record(records, 0)["busy"] == 48);
  CHECK(node_record(records, 0)["dependency"] == 3);
  CHECK(node_record(records, 0)["operand"] == 0);
  for (const std::string policy : {"after_compute", "overlapped"})
    for (const std::string fast_forward : {"on", "off"}) {
      INFO(policy << " fast_forward " << fast_forward);
      machine.policy = policy;
      machine.fast_forward = fast_forward;
      same_records(p, machine);
    }
}

TEST_CASE("a timed run counts FFT butterflies apart from the mode products' multiply-adds", "[model][fft]") {
  // The compute-then-FFT Program above: 16 multiply-adds, 4 butterflies of 8 fma; the step's
  // 48 fma are both.
  const Program p = compute_then_fft();
  event::Params params;
  params.fma_latency = 4;
  const auto micro = make_micro_schedule("interleaved");
  const auto policy = make_roll_policy("after_compute");
  event::EventEngine engine(p, params, *micro, *policy, [&](std::size_t node) { return make_null_datapath(p, node, 16); });
  engine.run();
  const ExecutionCounts c = measured_counts(p, engine.records(), 0, 1);
  CHECK(c.scalar_multiply_adds == 16);
  CHECK(c.fft_butterflies == 4);
  CHECK(c.block_multiply_adds == 1);
}

TEST_CASE("an FFT task may list its buffers in any order: the same cycles and the same values", "[model][fft]") {
  // two_node_fft() with node 1's pieces received the other way round (Y(0,0,0) into b1,
  // Y(0,1,0) into b0) and its FFT listing its inputs as b1, b0 (NodeProgram::buffer_lists):
  // the times do not depend on where the pieces are, and the values are the consecutive run's.
  const Program consecutive = two_node_fft();
  Program listed = consecutive;
  for (Task& t : listed.nodes[1].tasks) {
    if (t.kind == TaskKind::Receive) t.buffer ^= 1;
    if (t.kind == TaskKind::Fft) {
      listed.nodes[1].buffer_lists = {1, 0, 2};
      listed.nodes[1].detail(t).list = 0;
      listed.nodes[1].detail(t).operand = t.buffer = no_buffer;
    }
  }
  require_verified(listed);
  Machine machine;
  machine.fma_latency = 4;
  runs_ending_at(listed, machine, 687);
  CHECK(same_records(listed, machine) == same_records(consecutive, machine));
  using C = std::complex<double>;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> d(-1, 1);
  Tensor3<C> x(8, 4, 1);
  for (C& v : x.values()) v = {d(rng), d(rng)};
  for (const std::string engine : {"systemc", "event"})
    CHECK(engine_buffers(listed, machine, engine, x, 1)[2] == engine_buffers(consecutive, machine, engine, x, 1)[2]);
  Program broken = listed;
  broken.nodes[1].buffer_lists = {1, 0};  // the output is not listed
  CHECK_FALSE(verify_program(broken).ok());
}
