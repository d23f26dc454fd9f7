// execute_program, the functional engine over any Program: the orbital Program against the
// golden reference with the counts the paper derives, counted while running; a hand-built
// two-node Program with hand-computed values; a deadlock; and the golden-check messages a
// run prints for a Program's output.

#include <catch2/catch.hpp>

#include <complex>

#include "sim/algorithm.hpp"
#include "sim/program_executor.hpp"
#include "sim/run_inputs.hpp"
#include "transform_matrices.hpp"

using namespace torus;

namespace {

using Directions = std::vector<TransformDirection>;

// The counts of one orbital transform: 3P steps, 3P^4 block and 3N^4 scalar multiply-adds,
// two rolls per node and step (none for P = 1) of b^3 + b^2 words in the light stage (the one
// that rolls a coefficient block) and 2b^3 in the others, read off the executor and the Program.
void check_counts(const Program& program, const ProgramExecutionCounts& c, std::uint32_t transform,
                  TransformDirection direction) {
  const std::size_t p = static_cast<std::size_t>(program.shape.p1), b = program.grid.axis[0].largest(), n = p * b;
  CHECK(c.steps == 3 * p);
  CHECK(c.compute_tasks == 3 * p * p * p * p);
  CHECK(c.scalar_multiply_adds == 3 * n * n * n * n);
  CHECK(c.messages == (p > 1 ? 6 * p * p * p * p : 0));
  const std::size_t light = p > 1 ? b * b * b + b * b : 0, heavy = p > 1 ? 2 * b * b * b : 0;
  const std::array<std::size_t, 3> words = direction == TransformDirection::Forward
                                               ? std::array<std::size_t, 3>{light, heavy, heavy}
                                               : std::array<std::size_t, 3>{heavy, heavy, light};
  CHECK(c.words_sent_per_node_step == words);
  CHECK(c.words_sent_per_node_step_min == words);
  CHECK(c.words_held_per_node == 4 * b * b * b + 3 * b * b + (p > 1 ? 3 * b * b * b + b * b : 0));
  const ProgramCounts expected = count(program, transform);  // what the Program says it does
  CHECK(c.steps == expected.steps);
  CHECK(c.compute_tasks == expected.compute_tasks);
  CHECK(c.words_sent_per_node_step == expected.words_sent_per_node_step);
  CHECK(c.words_held_per_node == expected.words_held_per_node);
  CHECK(c.messages == expected.messages);
}

template <class T>
void check_orbital(int p, std::size_t b, const SchedulingVector& alpha, const Directions& directions) {
  const std::size_t n = b * static_cast<std::size_t>(p);
  INFO("P=" << p << " b=" << b << " alpha=" << alpha.to_string() << " transforms " << directions.size() << " first "
            << to_string(directions.front()));
  const Program program = make_algorithm("orbital")->build({TorusShape::cube(p), BlockGrid::cube(b, p), alpha, directions});
  HostData<T> host{random_tensor<T>(n, 7), {}, {}};
  for (const TransformDirection d : directions) host.coefficients.push_back(cube_transform_matrices<T>(n, d));
  const ProgramResult<T> result = execute_program(program, host);
  REQUIRE(result.per_transform.size() == directions.size());
  Tensor3<T> input = host.input;
  for (std::uint32_t t = 0; t < directions.size(); ++t) {
    const Tensor3<T> output = result.gather(program, to_string(directions[t]));
    const auto& m = host.coefficients[t];
    const ErrorReport e = compare_to_golden(output, golden_transform(input, m), absolute_transform(input, m));
    INFO(to_string(directions[t]) << ": error/bound " << e.max_bound_ratio);
    CHECK(e.within_tolerance());
    check_counts(program, result.per_transform[t], t, directions[t]);
    input = output;
  }
  CHECK(result.counts.compute_tasks == directions.size() * 3 * static_cast<std::size_t>(p * p * p * p));
}

}  // namespace

TEMPLATE_TEST_CASE("execute_program on the orbital Program equals golden, with the paper's counts", "[program][executor]",
                   float, double, std::complex<float>, std::complex<double>) {
  const Directions forward{TransformDirection::Forward}, inverse{TransformDirection::Inverse};
  const Directions both{TransformDirection::Forward, TransformDirection::Inverse};
  for (const SchedulingVector& alpha : all_scheduling_vectors())
    for (int p = 1; p <= 4; ++p)
      for (std::size_t b = 1; b <= 3; ++b)
        for (const Directions* directions : {&forward, &inverse, &both}) check_orbital<TestType>(p, b, alpha, *directions);
}

namespace {

// Two nodes on a 2x1x1 torus, b = 1, one mode-1 product split over them:
//   node 0: load X(0,0,0) = 3, send it to node 1, receive the result back;
//   node 1: load X(1,0,0) = 5 and C1(1,0) = 11, C1(0,0) = 2, receive X(0,0,0),
//           Y(0,0,0) = X(1,0,0) C1(1,0) + X(0,0,0) C1(0,0) = 55 + 6 = 61, send it back.
Program split_product_pair() {
  Program p;
  p.algorithm = "ping-pong";
  p.shape = TorusShape{2, 1, 1};
  p.grid = BlockGrid::make({2, 1, 1}, {2, 1, 1});
  p.tag_kinds = {{"X", 3, 0, {}}, {"C1", 2, 1, {}}, {"Y", 3, 0, {}}};
  p.kernels = {cube_kernel(1, 1)};
  p.host_arrays = {{"input", false, 0, 0, {}, 0}, {"forward C1", true, 1, 0, {}, 0}};
  p.transforms = {"forward"};
  p.add_message(0, 1, std::vector<Direction>{Direction::PlusQ}, 1, {0, {0, 0, 0}});
  p.add_message(1, 0, std::vector<Direction>{Direction::MinusQ}, 1, {2, {0, 0, 0}});
  const TaskLabel first{0, 1, 0, 0}, second{0, 1, 1, 1};
  using TaskEntry = std::pair<Task, TaskDetail>;
  const auto load = [&](std::uint32_t buffer, std::uint16_t array, DataTag tag, std::array<std::int32_t, 3> index) {
    TaskEntry e{make_task(TaskKind::Load, first), {}};
    e.first.buffer = buffer;
    e.second.tag = tag;
    e.second.source = {array, index};
    return e;
  };
  const auto move = [](TaskKind kind, const TaskLabel& label, std::uint32_t buffer, std::uint32_t message) {
    TaskEntry e{make_task(kind, label), {}};
    e.first.buffer = buffer;
    e.first.message = message;
    return e;
  };
  const auto compute = [&](std::uint32_t operand, std::uint32_t coefficient, DataTag x, DataTag c, bool zero) {
    TaskEntry e{make_task(TaskKind::Compute, second), {}};
    e.first.buffer = 2;
    e.first.zero_accumulator = zero;
    e.second.operand = operand;
    e.second.coefficient = coefficient;
    e.second.tag = {2, {0, 0, 0}};
    e.second.operand_tag = x;
    e.second.coefficient_tag = c;
    return e;
  };
  const auto node = [](std::vector<BufferSpec> buffers, const std::vector<TaskEntry>& entries) {
    NodeProgram n;
    n.buffers = std::move(buffers);
    for (const auto& [task, detail] : entries) n.add(task, detail);
    return n;
  };
  const DataTag x0{0, {0, 0, 0}}, x1{0, {1, 0, 0}}, c00{1, {0, 0, 0}}, c10{1, {1, 0, 0}};
  p.nodes.push_back(node({{1, 0}, {1, 2}},
                         {load(0, 0, x0, {0, 0, 0}), move(TaskKind::Send, first, 0, 0), move(TaskKind::Receive, second, 1, 1)}));
  p.nodes.push_back(node({{1, 0}, {1, 1}, {1, 2}, {1, 1}, {1, 0}},
                         {load(0, 0, x1, {1, 0, 0}), load(1, 1, c10, {1, 0, 0}), load(3, 1, c00, {0, 0, 0}),
                          move(TaskKind::Receive, first, 4, 0), compute(0, 1, x1, c10, true), compute(4, 3, x0, c00, false),
                          move(TaskKind::Send, second, 2, 1)}));
  p.outputs = {{"forward", 0, 1, {1, 2}, {{2, {0, 0, 0}}, {2, {0, 0, 0}}}, {}}};
  return p;
}

HostData<double> split_product_host() {
  Tensor3<double> x(2, 1, 1);
  x(0, 0, 0) = 3;
  x(1, 0, 0) = 5;
  Matrix<double> c(2, 2);
  c << 2, 7, 11, 13;  // C(input, output): C(0,0) = 2, C(1,0) = 11
  const Matrix<double> unused = Matrix<double>::Identity(2, 2);
  return {x, {{c, unused, unused}}, {}};
}

}  // namespace

TEST_CASE("a hand-built two-node ping-pong Program gives the hand-computed values", "[program][executor]") {
  const Program program = split_product_pair();
  const ProgramResult<double> r = execute_program(program, split_product_host());
  CHECK(r.buffers[0] == std::vector<std::vector<double>>{{3}, {61}});
  CHECK(r.buffers[1] == std::vector<std::vector<double>>{{5}, {11}, {61}, {2}, {3}});
  const ProgramExecutionCounts& c = r.counts;
  CHECK(c.steps == 2);
  CHECK(c.compute_tasks == 2);
  CHECK(c.scalar_multiply_adds == 2);
  CHECK(c.messages == 2);
  CHECK(c.words_sent_per_node_step == std::array<std::size_t, 3>{1, 0, 0});
  CHECK(c.words_sent_per_node_step_min == std::array<std::size_t, 3>{0, 0, 0});  // node 1 sends nothing in step 0
  CHECK(c.words_held_per_node == 5);
  REQUIRE(r.per_transform.size() == 1);
  CHECK(r.per_transform[0].compute_tasks == 2);
  std::vector<OutputBlock> layout;
  CHECK(r.gather(program, "forward", &layout)(0, 0, 0) == 61);
  CHECK(layout.size() == 2);
  CHECK_THROWS_WITH(r.gather(program, "inverse"), Catch::Contains("no output 'inverse'") && Catch::Contains("forward"));
}

TEST_CASE("a compute that finds another block than it names stops the executor", "[program][executor][errors]") {
  Program program = split_product_pair();
  program.nodes[1].detail(program.nodes[1].tasks[5]).operand_tag = {0, {1, 0, 0}};
  CHECK_THROWS_WITH(execute_program(program, split_product_host()),
                    Catch::Contains("node (1,0,0), task 5 (compute") &&
                        Catch::Contains("operand buffer b4 holds X(0,0,0) but the task names X(1,0,0)"));
  program = split_product_pair();
  program.nodes[1].detail(program.nodes[1].tasks[5]).coefficient = 9;  // node 1 has five buffers
  CHECK_THROWS_WITH(execute_program(program, split_product_host()),
                    Catch::Contains("node (1,0,0), task 5") && Catch::Contains("index or buffer size does not fit"));
}

TEST_CASE("a Program that cannot progress throws naming the waiting nodes and messages", "[program][executor][errors]") {
  // Each node sends the buffer it receives into: the send waits for the other's message.
  Program program = split_product_pair();
  for (std::uint32_t node = 0; node < 2; ++node) {
    Task receive = make_task(TaskKind::Receive, {0, 1, 0, 0}), send = receive;
    receive.buffer = send.buffer = 0;
    receive.message = 1 - node;
    send.kind = TaskKind::Send;
    send.message = node;
    program.nodes[node].tasks = {receive, send};
  }
  CHECK_THROWS_WITH(execute_program(program, split_product_host()),
                    Catch::Contains("cannot progress: 2 nodes") &&
                        Catch::Contains("node (0,0,0) at task 1 waits for message 1 (Y(0,0,0) from (1,0,0))") &&
                        Catch::Contains("node (1,0,0) at task 1 waits for message 0 (X(0,0,0) from (0,0,0))"));
}

TEST_CASE("the golden check of a Program's output names the block and node as before", "[program][executor][run]") {
  const std::size_t n = 4, b = 2;
  const Program program = make_algorithm("orbital")->build({TorusShape::cube(2), BlockGrid::cube(b, 2), {}, {TransformDirection::Forward}});
  HostData<double> host{random_tensor<double>(n, 3), {cube_transform_matrices<double>(n, TransformDirection::Forward)}, {}};
  ProgramResult<double> result = execute_program(program, host);
  std::vector<OutputBlock> layout;
  Tensor3<double> y = result.gather(program, "forward", &layout);
  TransformOutcome outcome;
  check_against_golden(outcome, host.input, y, program, layout, host.coefficients[0]);
  CHECK(outcome.mismatch.empty());
  y(0, 3, 1) += 1.0;  // block (0,1,0)
  check_against_golden(outcome, host.input, y, program, layout, host.coefficients[0]);
  std::string node;
  for (const OutputBlock& block : layout)
    if (block.tag.index == std::array<int, 3>{0, 1, 0}) node = program.describe_node(block.node);
  CHECK_THAT(outcome.mismatch, Catch::StartsWith("first mismatching output block Y(0,1,0) at node " + node +
                                                 ", element (0,3,1); 1 of 8 output blocks beyond their bounds: Y(0,1,0)@" +
                                                 node));
}

TEMPLATE_TEST_CASE("execute_program in parallel passes gives the same bits and counts for any number of threads",
                   "[program][executor][threads]", double, std::complex<float>) {
  using T = TestType;
  const std::size_t b = 2;
  const int p = 3;
  const Directions both{TransformDirection::Forward, TransformDirection::Inverse};
  const Program program = make_algorithm("orbital")->build(cube_problem(p, b, "+-+", both));
  HostData<T> host{random_tensor<T>(b * p, 11), {}, {}};
  for (const TransformDirection d : both) host.coefficients.push_back(cube_transform_matrices<T>(b * p, d));
  const ProgramResult<T> one = execute_program(program, host, ExecutorOptions{1, true});
  for (const unsigned threads : {2u, 3u, 8u, 64u}) {
    INFO(threads << " threads");
    const ProgramResult<T> many = execute_program(program, host, ExecutorOptions{threads, true});
    CHECK(many.buffers == one.buffers);  // every word of every buffer, compared exactly
    CHECK(many.counts.compute_tasks == one.counts.compute_tasks);
    CHECK(many.counts.messages == one.counts.messages);
    CHECK(many.counts.steps == one.counts.steps);
    CHECK(many.counts.words_sent_per_node_step == one.counts.words_sent_per_node_step);
    CHECK(many.counts.words_sent_per_node_step_min == one.counts.words_sent_per_node_step_min);
  }
  // The machine's fma order and the dense product both stay within the golden bound.
  const ProgramResult<T> dense = execute_program(program, host, ExecutorOptions{2, false});
  const Tensor3<T> a = one.gather(program, "forward"), d = dense.gather(program, "forward");
  const auto& m = host.coefficients[0];
  CHECK(compare_to_golden(a, golden_transform(host.input, m), absolute_transform(host.input, m)).within_tolerance());
  CHECK(compare_to_golden(d, golden_transform(host.input, m), absolute_transform(host.input, m)).within_tolerance());
}
