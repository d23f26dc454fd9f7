// Values from a translation quotient: the loop kernel gives the bits of every micro-program, the
// orbital algorithm's per-node blocks are the whole Program's loads and outputs, and running the
// quotient in lockstep on every node gives the whole Program's values bit for bit, for any
// number of threads; a quotient that cannot run in lockstep is refused.

#include <catch2/catch.hpp>

#include <complex>
#include <random>

#include "sim/algorithm.hpp"
#include "sim/block_kernel.hpp"
#include "sim/lockstep_plan.hpp"
#include "sim/micro_kernel.hpp"
#include "sim/program_executor.hpp"
#include "sim/quotient_executor.hpp"
#include "sim/run_inputs.hpp"
#include "transform_matrices.hpp"

using namespace torus;

namespace {

using Directions = std::vector<TransformDirection>;

template <class T>
std::vector<T> random_words(std::size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> out(count);
  for (T& v : out) {
    if constexpr (is_complex_v<T>) v = T(static_cast<real_t<T>>(u(rng)), static_cast<real_t<T>>(u(rng)));
    else v = static_cast<T>(u(rng));
  }
  return out;
}

}  // namespace

TEMPLATE_TEST_CASE("the loop kernel gives the bits of every micro-program of the kernel", "[quotient][kernel]", float,
                   double, std::complex<float>, std::complex<double>) {
  using T = TestType;
  std::mt19937 rng(5);
  // Edges up to 11, and in the last trials up to 20: float tiles of 16 rows, and mode-1
  // coefficients beyond the kernel's stack buffer of 256 words.
  std::uniform_int_distribution<std::size_t> small_edge(1, 11), large_edge(12, 20);
  for (int trial = 0; trial < 66; ++trial) {
    const int mode = 1 + trial % 3;
    const auto edge = [&](std::mt19937& r) { return trial < 60 ? small_edge(r) : large_edge(r); };
    KernelSpec k{"k", mode, {edge(rng), edge(rng), edge(rng)}, {}};
    k.operand = k.accumulator;
    k.operand[static_cast<std::size_t>(mode - 1)] = edge(rng);  // the reduction length
    const std::vector<T> start = random_words<T>(k.accumulator_words(), rng), operand = random_words<T>(k.operand_words(), rng),
                         coefficient = random_words<T>(k.coefficient_words(), rng);
    std::vector<T> loops = start;
    multiply_add_block(k, loops.data(), operand.data(), coefficient.data());
    if constexpr (!is_complex_v<T>) {  // the path a processor without FMA takes gives the same bits
      std::vector<T> portable = start;
      multiply_add_block_portable(k, portable.data(), operand.data(), coefficient.data());
      CHECK(portable == loops);
    }
    for (const std::string schedule : {"interleaved", "chained"})
      for (const bool split : {false, true}) {
        if (split && !is_complex_v<T>) continue;
        const MicroProgram program = make_micro_schedule(schedule)->build(k, split);
        std::vector<T> micro = start;
        run_fma(program.instructions.data(), program.instructions.size(), micro.data(), operand.data(), coefficient.data());
        INFO("mode " << mode << " accumulator " << k.accumulator[0] << "x" << k.accumulator[1] << "x" << k.accumulator[2]
                     << " reduction " << k.reduction() << ", " << schedule << (split ? ", split" : ""));
        CHECK(loops == micro);  // every word, exactly
      }
  }
}

TEST_CASE("the orbital algorithm's node blocks are the whole Program's loads and outputs, node by node", "[quotient]") {
  const auto orbital = make_algorithm("orbital");
  using D = TransformDirection;
  for (int p = 1; p <= 4; ++p)
    for (const std::string alpha : {"+++", "+-+", "--+", "---"})
      for (const Directions& directions : {Directions{D::Forward}, Directions{D::Inverse}, Directions{D::Forward, D::Inverse}}) {
        const TransformProblem pr = cube_problem(p, 2, alpha, directions);
        INFO("P=" << p << " alpha " << alpha << " transforms " << directions.size());
        REQUIRE(orbital->quotient_values(pr));
        const Program whole = orbital->build(pr);
        for (std::size_t n = 0; n < whole.nodes.size(); ++n) {
          const QuotientNodeBlocks blocks = orbital->node_blocks(pr, n);
          std::vector<HostBlock> loads;
          for (const Task& t : whole.nodes[n].tasks)
            if (t.kind == TaskKind::Load) loads.push_back(whole.nodes[n].detail(t).source);
          REQUIRE(blocks.loads.size() == loads.size());
          for (std::size_t i = 0; i < loads.size(); ++i) {
            CHECK(blocks.loads[i].array == loads[i].array);
            CHECK(blocks.loads[i].index == loads[i].index);
          }
          REQUIRE(blocks.outputs.size() == whole.outputs.size());
          for (std::size_t i = 0; i < whole.outputs.size(); ++i) CHECK(blocks.outputs[i] == whole.outputs[i].tag[n]);
        }
      }
}

TEMPLATE_TEST_CASE("the quotient run in lockstep on every node gives the whole Program's values bit for bit",
                   "[quotient][executor]", float, double, std::complex<float>, std::complex<double>) {
  using T = TestType;
  const auto orbital = make_algorithm("orbital");
  const Directions both{TransformDirection::Forward, TransformDirection::Inverse};
  for (const auto& [p, b, alpha] : {std::tuple{1, 3, "+++"}, std::tuple{2, 2, "+-+"}, std::tuple{3, 2, "--+"},
                                    std::tuple{4, 1, "-+-"}, std::tuple{3, 3, "+++"}}) {
    INFO("P=" << p << " b=" << b << " alpha " << alpha);
    const TransformProblem pr = cube_problem(p, static_cast<std::size_t>(b), alpha, both);
    const Program whole = orbital->build(pr), quotient = orbital->build_quotient(pr);
    const std::size_t n = static_cast<std::size_t>(p * b);
    HostData<T> host{random_tensor<T>(n, 17), {cube_transform_matrices<T>(n, both[0]), cube_transform_matrices<T>(n, both[1])}, {}};
    const ProgramResult<T> reference = execute_program(whole, host, ExecutorOptions{1, true});
    std::vector<QuotientNodeBlocks> blocks;
    for (std::size_t node = 0; node < whole.nodes.size(); ++node) blocks.push_back(orbital->node_blocks(pr, node));
    Program layout = quotient;
    layout.outputs = quotient_outputs(quotient, blocks);
    for (const unsigned threads : {1u, 2u, 5u}) {
      INFO(threads << " threads");
      const NodeBuffers<T> lockstep = execute_quotient(quotient, blocks, host, threads);
      for (const ProgramOutput& out : whole.outputs) {
        const auto from_whole = [&](std::size_t node, std::uint32_t buffer) { return reference.buffers[node][buffer].data(); };
        const auto from_quotient = [&](std::size_t node, std::uint32_t buffer) { return lockstep[node][buffer].data(); };
        INFO("output " << out.name);
        CHECK(gather_output<T>(whole, out, from_whole).values() ==
              gather_output<T>(layout, *layout.output(out.name), from_quotient).values());
      }
    }
  }
}

TEST_CASE("a quotient whose message is needed before it is sent is refused, not raced", "[quotient][executor]") {
  // One node on a 2x1x1 torus: it receives into b1 and computes with b1 before it sends the
  // copy its neighbour would receive: in lockstep the copy does not exist yet.
  Program q;
  q.translation_quotient = true;
  q.shape = TorusShape{2, 1, 1};
  q.grid = BlockGrid::make({2, 1, 1}, {2, 1, 1});
  q.tag_kinds = {{"X", 3, 0, {}}, {"C1", 2, 1, {}}, {"Y", 3, 0, {}}};
  q.kernels = {cube_kernel(1, 1)};
  q.host_arrays = {{"input", false, 0, 0, {}, 0}, {"forward C1", true, 1, 0, {}, 0}};
  q.transforms = {"forward"};
  q.add_message(0, 0, std::vector<Direction>{Direction::PlusQ}, 1, {0, {0, 0, 0}});
  const TaskLabel label{0, 1, 0, 0};
  Task load_x = make_task(TaskKind::Load, label), load_c = make_task(TaskKind::Load, label);
  load_x.buffer = 0;
  load_c.buffer = 2;
  TaskDetail from_c;
  from_c.source.array = 1;
  Task receive = make_task(TaskKind::Receive, label), send = make_task(TaskKind::Send, label);
  receive.buffer = 1;
  send.buffer = 0;
  Task compute = make_task(TaskKind::Compute, label);
  compute.buffer = 3;
  compute.zero_accumulator = true;
  TaskDetail product;
  product.operand = 1;
  product.coefficient = 2;
  NodeProgram& node = q.nodes.emplace_back();
  node.buffers = {{1, 0}, {1, 0}, {1, 1}, {1, 2}};
  node.add(load_x, TaskDetail{});
  node.add(load_c, from_c);
  node.add(receive);
  node.add(compute, product);
  node.add(send);
  q.outputs = {{"forward", 0, 1, {3}, {{2, {0, 0, 0}}}, {}}};
  const std::vector<QuotientNodeBlocks> blocks{{{{0, {0, 0, 0}}, {1, {0, 0, 0}}}, {{2, {0, 0, 0}}}},
                                               {{{0, {1, 0, 0}}, {1, {1, 1, 0}}}, {{2, {1, 0, 0}}}}};
  Tensor3<double> x(2, 1, 1);
  const Matrix<double> c = Matrix<double>::Identity(2, 2);
  const HostData<double> host{x, {{c, c, c}}, {}};
  CHECK_THROWS_WITH(execute_quotient(q, blocks, host, 2),
                    Catch::Contains("cannot run in lockstep: task 3 touches buffer b1 before message 0 is sent (task 4)"));
}

TEST_CASE("the lockstep plan runs the stages plane by plane, every copy sent in a phase staying in its component",
          "[quotient][executor]") {
  const Directions both{TransformDirection::Forward, TransformDirection::Inverse};
  const TransformProblem pr = cube_problem(4, 1, "+-+", both);
  const Program q = make_algorithm("orbital")->build_quotient(pr);
  const auto shifted = [&](const NodeCoord& c, const NodeCoord& d) {
    return q.shape.index_of({(c.q + d.q) % 4, (c.r + d.r) % 4, (c.s + d.s) % 4});
  };
  for (const unsigned threads : {1u, 2u}) {
    INFO(threads << " threads");
    const LockstepPlan plan = plan_lockstep(q, threads);
    const std::size_t groups = plan.group_start.size() - 1;
    std::size_t covered = 0, in_planes = 0;
    for (const LockstepPhase& phase : plan.phases) {
      CHECK(phase.first_group == covered);
      covered = phase.end_group;
      if (phase.units() == 0) {
        CHECK(phase.end_group == phase.first_group + 1);
        continue;
      }
      in_planes += phase.end_group - phase.first_group;
      REQUIRE(phase.units() == 4);  // the 16-node planes a stage's two rolls span
      std::vector<std::size_t> unit_of(q.shape.node_count(), 99);
      for (std::size_t u = 0; u < 4; ++u)
        for (std::size_t i = phase.unit_start[u]; i < phase.unit_start[u + 1]; ++i) unit_of[phase.order[i]] = u;
      for (std::uint32_t m = 0; m < q.messages.size(); ++m) {
        const std::uint32_t at = plan.sent_at[m];
        if (at == no_message || plan.dropped[m] || at < plan.group_start[phase.first_group] || at >= plan.group_start[phase.end_group])
          continue;
        for (std::size_t n = 0; n < q.shape.node_count(); ++n) CHECK(unit_of[shifted(q.shape.coord_of(n), plan.reach[m])] == unit_of[n]);
      }
    }
    CHECK(covered == groups);
    // Six stages of four steps, one group each, in three phases: forward I and II roll within
    // the Q-S planes, forward III and inverse I within the Q-R planes, inverse II and III in Q-S.
    CHECK(groups == 24);
    CHECK(in_planes == groups);
    CHECK(plan.phases.size() == 3);
  }
}
