// The word order of overlapped sends (models/send_order.hpp, docs/timing-model.md, "Node memory
// and the send policies") on the matmul Programs: every ordered send's order has exactly its
// message's words and is its reader's first-use order. The stationary Programs post their
// spreads a step ahead: with uneven blocks the compute before such a send read a block of
// another size (the order both engines once took, and read past), with even blocks one of the
// same shape; the other algorithms only roll the blocks their compute read.

#include <catch2/catch.hpp>

#include "models/send_order.hpp"
#include "sim/algorithms/stationary_matmul.hpp"
#include "sim/matmul.hpp"

using namespace torus;

namespace {

struct SendCounts {
  std::size_t ordered = 0;   // sends of a block the compute does not modify, in a reader's order
  std::size_t ahead = 0;     // of those, sent ahead: the compute before read another block
  std::size_t reshaped = 0;  // of those, the compute before's order has another size
};

// Every send after a compute of every node, under `overlapped`, the interleaved micro-schedule.
SendCounts check_sends(const Program& program) {
  const auto policy = make_roll_policy("overlapped");
  const auto schedule = make_micro_schedule("interleaved");
  std::vector<MicroProgram> micro;
  for (const KernelSpec& kernel : program.kernels) micro.push_back(schedule->build(kernel, false));
  SendCounts counts;
  for (const NodeProgram& node : program.nodes) {
    const NodeDataflow flow = analyse_dataflow(node, program.ffts);
    std::vector<std::uint32_t> compute_task, compute_of(node.tasks.size(), no_task);
    for (std::uint32_t i = 0; i < node.tasks.size(); ++i)
      if (node.tasks[i].kind == TaskKind::Compute) {
        compute_of[i] = static_cast<std::uint32_t>(compute_task.size());
        compute_task.push_back(i);
      }
    const NodeComputes computes{&node, compute_task.size(),
                                [&](std::uint32_t c) {
                                  const TaskDataflow& f = flow.tasks[compute_task[c]];
                                  return ComputeReads{compute_task[c], f.operand_generation, f.coefficient_generation};
                                },
                                [&](std::uint32_t kernel) -> const MicroProgram& { return micro[kernel]; }};
    for (std::uint32_t i = 0; i < node.tasks.size(); ++i) {
      const Task& send = node.tasks[i];
      const std::uint32_t before = flow.tasks[i].preceding_compute;
      if (send.kind != TaskKind::Send || before == no_task) continue;
      const TaskDetail& d = node.detail(node.tasks[before]);
      const bool coefficient = d.coefficient == send.buffer;
      if (!coefficient && d.operand != send.buffer) continue;  // the accumulator's, or a buffer it does not read
      const std::uint32_t words = program.messages[send.message].words;
      const SendOrder order = send_order(computes, *policy, i, flow.tasks[i].generation, words, compute_of[before]);
      REQUIRE(order.order != nullptr);
      CHECK(order.order->size() == words);
      ++counts.ordered;
      const TaskDataflow& read = flow.tasks[before];
      if ((coefficient ? read.coefficient_generation : read.operand_generation) == flow.tasks[i].generation) continue;
      ++counts.ahead;
      const MicroProgram& old = micro[d.kernel];
      if ((coefficient ? old.coefficient_first_use : old.operand_first_use).size() != words) ++counts.reshaped;
      else CHECK(*order.order == (coefficient ? old.coefficient_first_use : old.operand_first_use));
    }
  }
  return counts;
}

MatmulProblem problem(int rows, int columns, std::size_t m, std::size_t k, std::size_t n) {
  return {{rows, columns, 1, {Topology::Torus, Topology::Torus, Topology::Torus}}, m, k, n};
}

}  // namespace

TEST_CASE("overlapped sends leave in their reader's order: a spread posted ahead of its step takes the order of the "
          "block it sends, not of the one the compute before read", "[model][send_order]") {
  for (const std::uint16_t stationary : {matmul_a, matmul_b}) {
    const bool a = stationary == matmul_a;
    const char* name = a ? "a_stationary" : "b_stationary";
    INFO(name);
    // Uneven: the moving blocks (B(c, f) of A stationary, A(f, r) of B stationary) differ in
    // size along f, so the compute before a spread read a block of another size. B stationary
    // runs the transposed shapes, to cut the same sizes.
    const auto shaped = [a](int rows, int columns, std::size_t m, std::size_t k, std::size_t n) {
      return a ? problem(rows, columns, m, k, n) : problem(columns, rows, n, k, m);
    };
    for (const MatmulProblem& q : {shaped(3, 3, 8, 8, 8), shaped(2, 3, 8, 8, 8), shaped(2, 4, 5, 5, 10)}) {
      const SendCounts uneven = check_sends(build_stationary_matmul(q, stationary, name));
      CHECK(uneven.reshaped > 0);
      CHECK(uneven.ahead >= uneven.reshaped);
    }
    // Even: the compute before read a block of the same shape, and its order is kept.
    const SendCounts even = check_sends(build_stationary_matmul(problem(3, 3, 9, 9, 9), stationary, name));
    CHECK(even.ahead > 0);
    CHECK(even.reshaped == 0);
  }
}

TEST_CASE("the other matmul algorithms roll the blocks their compute read: every ordered send takes the compute "
          "before's order, uneven blocks included", "[model][send_order]") {
  for (const std::string name : {"systolic", "systolic_ring", "hypersystolic"})
    for (MatmulProblem q : {problem(3, 2, 7, 8, 13), problem(2, 4, 9, 11, 10), problem(4, 2, 13, 9, 10)}) {
      INFO(name << " " << q.rows() << "x" << q.columns());
      q.mapping = name == "hypersystolic" && q.rows() > 2 ? "plane" : "ring";
      const SendCounts counts = check_sends(make_matmul_algorithm(name)->build(q));
      CHECK(counts.ordered > 0);
      CHECK(counts.ahead == 0);
    }
}
