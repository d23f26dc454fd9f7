#pragma once
// Small hand-built Programs and a way to time them on the SystemC torus, for exact-cycle tests
// of the node, its router and the links: each run happens in its own process (run_isolated)
// and reports, per node and task, the cycles its records hold. The same Programs are timed by
// the event engine, and both engines' records (everything a report is read off) can be had
// through the engine interface the run driver uses.

#include <algorithm>
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
  p.grid = BlockGrid::cube(b, static_cast<std::size_t>(std::max({shape.p1, shape.p2, shape.p3})));
  p.tag_kinds = {{"A", 3, 0, std::nullopt}, {"B", 3, 0, std::nullopt}};
  p.kernels = {cube_kernel(1, b)};
  p.host_arrays = {{"input", false, 0, 0, {}, 0}};
  p.transforms = {"forward"};
  p.stages = {{0, 1, 1, "hand-built", 1}};
  const auto words = static_cast<std::uint32_t>(b * b * b);
  p.nodes.assign(shape.node_count(), NodeProgram{std::vector<BufferSpec>(buffers, BufferSpec{words, 0}), {}, {}, {}});
  return p;
}

inline DataTag tag(std::uint16_t kind, int i) { return {kind, {i, 0, 0}}; }

inline void load(Program& p, std::size_t node, std::uint32_t buffer, const DataTag& t) {
  Task task = make_task(TaskKind::Load, {});
  task.buffer = buffer;
  TaskDetail d;
  d.tag = t;
  d.source = {0, {0, 0, 0}};
  p.nodes[node].add(task, d);
}

// A mode-1 product into `accumulator` (zeroed first) of `operand` and `coefficient`.
inline void compute(Program& p, std::size_t node, std::uint32_t accumulator, std::uint32_t operand, std::uint32_t coefficient,
                    const DataTag& acc, const DataTag& op, const DataTag& coef) {
  Task task = make_task(TaskKind::Compute, {});
  task.buffer = accumulator;
  task.zero_accumulator = true;
  TaskDetail d;
  d.operand = operand;
  d.coefficient = coefficient;
  d.tag = acc;
  d.operand_tag = op;
  d.coefficient_tag = coef;
  p.nodes[node].add(task, d);
}

// Adds a message from `from` (its buffer `buffer`) along `route`, and the receive at its end
// into `into`. Returns the message index.
inline std::uint32_t message(Program& p, std::size_t from, std::uint32_t buffer, std::vector<Direction> route,
                             std::uint32_t into, const DataTag& t) {
  NodeCoord at = p.shape.coord_of(from);
  for (const Direction d : route) at = *p.shape.neighbour(at, d);
  const std::uint32_t id = p.add_message(from, p.shape.index_of(at), route, p.nodes[from].buffers[buffer].words, t);
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

// Two 8-word blocks (b = 2) from node 0 to node 1 of a two-node ring, on the same link, posted in order.
inline Program two_messages_one_link() {
  Program p = empty_program(TorusShape{2, 1, 1}, 2, 2);
  load(p, 0, 0, tag(0, 0));
  load(p, 0, 1, tag(1, 0));
  message(p, 0, 0, {Direction::PlusQ}, 0, tag(0, 0));
  message(p, 0, 1, {Direction::PlusQ}, 1, tag(1, 0));
  return p;
}

// One message of b^3 = 8 words from node 0 of a ring along Q to the node `hops` hops on.
inline Program one_message(int ring, std::size_t hops) {
  Program p = empty_program(TorusShape{ring, 1, 1}, 2, 1);
  load(p, 0, 0, tag(0, 0));
  message(p, 0, 0, std::vector<Direction>(hops, Direction::PlusQ), 0, tag(0, 0));
  return p;
}

// Router cases (docs/timing-model.md, "Routers"), each explained where it is built
// (program_bench.cpp) and timed by hand in tests/model/test_router.cpp:
Program contending_pair();                   // a message passing through against the node's own
Program late_posted_contender();             // an own message released long before it is posted
Program turn_behind(bool first_turns);       // a message queued behind another that leaves
Program blocked_head_of_line();              // a message that cannot ask while behind another
Program wormhole_ring();                     // every node of a 4-ring sends 2 hops on
Program startup_contender();                 // an own message in start-up and one passing through

// Where message `m` is received, or sent: {node, index in its task list}.
std::pair<std::size_t, std::size_t> receive_of(const Program& program, std::uint32_t m);
std::pair<std::size_t, std::size_t> send_of(const Program& program, std::uint32_t m);

// Node 0 sends its block to node 1, which sends it straight back (b = 2: 8 words).
inline Program ping_pong() {
  Program p = empty_program(TorusShape{2, 1, 1}, 2, 2);
  load(p, 0, 0, tag(0, 0));
  message(p, 0, 0, {Direction::PlusQ}, 0, tag(0, 0));
  message(p, 1, 0, {Direction::PlusQ}, 1, tag(0, 0));
  return p;
}

// Two nodes that each compute with the block the other sends only after its own compute:
// neither compute can start. (The Program verifier rejects it; engines are run on it anyway.)
inline Program deadlocked_pair() {
  Program p = empty_program(TorusShape{2, 1, 1}, 1, 3);
  for (std::size_t node = 0; node < 2; ++node) {
    load(p, node, 1, tag(1, static_cast<int>(node)));
    Task receive = make_task(TaskKind::Receive, {});
    receive.buffer = 0;
    receive.message = static_cast<std::uint32_t>(1 - node);  // node 0 gets message 1, node 1 message 0
    p.nodes[node].tasks.push_back(receive);
    compute(p, node, 2, 0, 1, tag(0, 9), tag(1, static_cast<int>(1 - node)), tag(1, static_cast<int>(node)));
    Task send = make_task(TaskKind::Send, {});
    send.buffer = 1;
    send.message = static_cast<std::uint32_t>(node);
    p.nodes[node].tasks.push_back(send);
    p.add_message(node, 1 - node, std::vector<Direction>{Direction::PlusQ}, 1, tag(1, static_cast<int>(node)));
  }
  return p;
}

// Node 0 sends two 8-word blocks (b = 2) on its one link to node 1, A before B; node 1 takes B
// first, computes with it, and only then posts its receive of A. A's first word fills node 1's
// one-word link buffer and stays there, and B never gets past it: node 0 waits for a credit
// and node 1 for B, with nothing to do but wait. (Rejected by the verifier; timed anyway.)
inline Program head_of_line_stall() {
  Program p = empty_program(TorusShape{2, 1, 1}, 2, 4);
  load(p, 0, 0, tag(0, 0));
  load(p, 0, 1, tag(1, 0));
  load(p, 1, 2, tag(1, 1));
  const std::vector<Direction> route{Direction::PlusQ};
  const std::uint32_t a = p.add_message(0, 1, route, 8, tag(0, 0));
  const std::uint32_t b = p.add_message(0, 1, route, 8, tag(1, 0));
  const auto transfer = [&p](TaskKind kind, std::size_t node, std::uint32_t buffer, std::uint32_t message) {
    Task task = make_task(kind, {});
    task.buffer = buffer;
    task.message = message;
    p.nodes[node].tasks.push_back(task);
  };
  transfer(TaskKind::Send, 0, 0, a);
  transfer(TaskKind::Send, 0, 1, b);
  transfer(TaskKind::Receive, 1, 1, b);
  compute(p, 1, 3, 1, 2, tag(0, 9), tag(1, 0), tag(1, 1));
  transfer(TaskKind::Receive, 1, 0, a);
  return p;
}

// Node 1 receives node 0's 8-word block into its buffer 0 and, next in its task list, loads
// that buffer afresh: nothing orders the load after the words land, and they would overwrite
// the loaded block. (The verifier takes it: the received block is never read.)
inline Program receive_then_replace() {
  Program p = empty_program(TorusShape{2, 1, 1}, 2, 1);
  load(p, 0, 0, tag(0, 0));
  message(p, 0, 0, {Direction::PlusQ}, 0, tag(0, 0));
  load(p, 1, 0, tag(0, 1));
  return p;
}

struct Machine {
  Cycle link_latency = 1;
  Rational link_rate{1, 1};
  std::uint64_t link_buffer_words = 64;
  Cycle message_startup = 0;
  Cycle fma_latency = 1;
  unsigned fma_per_cycle = 1;
  std::uint64_t fma_per_butterfly = 8;
  std::string policy = "after_compute";
  std::string micro_schedule = "interleaved";
  std::string fast_forward = "on";  // SystemC only
  std::size_t threads = 1;           // SystemC only: host threads stepping the nodes (fast-forward off)
};

// Runs `program` and returns {"total": cycles, "nodes": [[{"first", "last", "count"} per task]]},
// with whether the torus had a clock ("clock"), the cycle SystemC stopped at ("ended_at"), each
// node's activations and the host threads that stepped the nodes ("stepping_threads").
nlohmann::json time_program(const Program& program, const Machine& machine);
// The same in this process: at most once per process (require_fresh_systemc_kernel).
nlohmann::json time_program_here(const Program& program, const Machine& machine);
// The same run timed by the event engine (in this process, as often as wanted); a stall gives
// {"completed": false, "stall": message}.
nlohmann::json time_program_event(const Program& program, const Machine& machine);

// The engine's records through the engine interface (models/engine.hpp), as the run driver
// gets them: {"completed": true, "records": {...}} with per node its cycle classes, fma and
// finish, per link its words, active cycles and peak occupancy, per node and step its step
// record (every report figure is read off these by one function, assemble_timing); or
// {"completed": false, "stall": message} when the engine found the Program cannot finish (the
// run driver's exit 5). `engine`: "systemc" (run in its own process) or "event".
nlohmann::json engine_records(const Program& program, const Machine& machine, const std::string& engine);
// The values a run leaves in node `node`'s buffers, for a Program with FFT tasks (complex<double>
// data; `input` is the host's tensor, of the Program's grid extents): [buffer][word].
using ComplexBuffers = std::vector<std::vector<std::complex<double>>>;
ComplexBuffers engine_buffers(const Program& program, const Machine& machine, const std::string& engine,
                              const Tensor3<std::complex<double>>& input, std::size_t node);
// What the event engine without values timed in closed form (its report's fast-forward note).
std::string closed_form_note(const Program& program, const Machine& machine);

}  // namespace torus::bench
