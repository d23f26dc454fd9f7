#pragma once
// Small hand-built Programs and a way to time them on the SystemC torus, for exact-cycle tests
// of the node, its router and the links: each run happens in its own process (run_isolated)
// and reports, per node and task, the cycles its records hold.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/cycle/isolated_run.hpp"
#include "models/cycle/torus_top.hpp"
#include "sim/program.hpp"

namespace torus::bench {

// A Program on `shape` whose nodes hold one b^3 buffer per entry of `buffers`.
inline Program empty_program(const TorusShape& shape, std::size_t b, std::size_t buffers) {
  Program p;
  p.algorithm = "hand-built";
  p.shape = shape;
  p.block_size = b;
  p.tag_kinds = {{"A", 3}, {"B", 3}};
  p.kernels = {{"mode1", 1, b}};
  p.host_arrays = {{"input", false, 0, 0}};
  p.transforms = {"forward"};
  p.stages = {{0, 1, 1, "hand-built", 1}};
  const auto words = static_cast<std::uint32_t>(b * b * b);
  p.nodes.assign(shape.node_count(), NodeProgram{std::vector<BufferSpec>(buffers, BufferSpec{words, 0}), {}});
  return p;
}

inline DataTag tag(std::uint16_t kind, int i) { return {kind, {i, 0, 0}}; }

inline void load(Program& p, std::size_t node, std::uint32_t buffer, const DataTag& t) {
  Task task = make_task(TaskKind::Load, {});
  task.buffer = buffer;
  task.tag = t;
  task.source = {0, {0, 0, 0}};
  p.nodes[node].tasks.push_back(task);
}

// A mode-1 product into `accumulator` (zeroed first) of `operand` and `coefficient`.
inline void compute(Program& p, std::size_t node, std::uint32_t accumulator, std::uint32_t operand, std::uint32_t coefficient,
                    const DataTag& acc, const DataTag& op, const DataTag& coef) {
  Task task = make_task(TaskKind::Compute, {});
  task.buffer = accumulator;
  task.operand = operand;
  task.coefficient = coefficient;
  task.zero_accumulator = true;
  task.tag = acc;
  task.operand_tag = op;
  task.coefficient_tag = coef;
  p.nodes[node].tasks.push_back(task);
}

// Adds a message from `from` (its buffer `buffer`) along `route`, and the receive at its end
// into `into`. Returns the message index.
inline std::uint32_t message(Program& p, std::size_t from, std::uint32_t buffer, std::vector<Direction> route,
                             std::uint32_t into, const DataTag& t) {
  NodeCoord at = p.shape.coord_of(from);
  for (const Direction d : route) at = *p.shape.neighbour(at, d);
  const auto id = static_cast<std::uint32_t>(p.messages.size());
  p.messages.push_back({static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(p.shape.index_of(at)), std::move(route),
                        p.nodes[from].buffers[buffer].words, t});
  Task send = make_task(TaskKind::Send, {});
  send.buffer = buffer;
  send.message = id;
  p.nodes[from].tasks.push_back(send);
  Task receive = make_task(TaskKind::Receive, {});
  receive.buffer = into;
  receive.message = id;
  p.nodes[p.shape.index_of(at)].tasks.push_back(receive);
  return id;
}

struct Machine {
  Cycle link_latency = 1;
  Rational link_rate{1, 1};
  std::uint64_t link_buffer_words = 64;
  Cycle fma_latency = 1;
  std::string policy = "after_compute";
};

// Runs `program` and returns {"total": cycles, "nodes": [[{"first", "last", "count"} per task]]}.
nlohmann::json time_program(const Program& program, const Machine& machine);
// The same in this process: at most once per process (require_fresh_systemc_kernel).
nlohmann::json time_program_here(const Program& program, const Machine& machine);

}  // namespace torus::bench
