// The generic Program verifier: the orbital Program is clean for every parameter set, and
// hand-built or mutated Programs are caught with a diagnostic naming node, task and block.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "sim/algorithm.hpp"
#include "sim/program_verifier.hpp"

using namespace torus;

namespace {

std::string all_violations(const Program& program, const ProgramVerification& r) {
  std::string out;
  for (const ProgramViolation& v : r.violations) out += to_string(program, v) + "\n";
  return out;
}

// The first reported violation whose text contains `text`, or "" (so a failed CHECK prints all).
std::string find(const Program& program, const ProgramVerification& r, const std::string& text) {
  for (const ProgramViolation& v : r.violations) {
    const std::string line = to_string(program, v);
    if (line.find(text) != std::string::npos) return line;
  }
  return "";
}

std::size_t task_count(const Program& program) {
  std::size_t n = 0;
  for (const NodeProgram& node : program.nodes) n += node.tasks.size();
  return n;
}

// ---- a two-node ping-pong, built by hand ----
// Node 0 loads X and sends it; node 1 computes Y = X x C and sends Y back; node 0 computes
// Z = Y x C. Buffer i of every node is meant for tag kind i.
enum Kind : std::uint16_t { X, C, Y, Z };

DataTag tag(Kind kind, int i = 0) { return {kind, {i, 0, 0}}; }

// A task with its detail (a send or receive has none).
struct Entry {
  Entry(const Task& t, const TaskDetail& d = {}) : task(t), detail(d) {}  // NOLINT: a send or receive converts
  Task task;
  TaskDetail detail;
};

void set_tasks(NodeProgram& node, const std::vector<Entry>& entries) {
  node.tasks.clear();
  node.details.clear();
  for (const Entry& e : entries) node.add(e.task, e.detail);
}

Entry load(Kind buffer, std::uint16_t array, DataTag what) {
  Task t = make_task(TaskKind::Load, {});
  t.buffer = buffer;
  TaskDetail d;
  d.tag = what;
  d.source = {array, {what.index[0], 0, 0}};
  return {t, d};
}

Entry compute(Kind acc, Kind operand, Kind coefficient) {
  Task t = make_task(TaskKind::Compute, {});
  t.buffer = acc;
  t.zero_accumulator = true;
  TaskDetail d;
  d.operand = operand;
  d.coefficient = coefficient;
  d.tag = tag(acc);
  d.operand_tag = tag(operand);
  d.coefficient_tag = tag(coefficient);
  return {t, d};
}

Task transfer(TaskKind kind, std::uint32_t buffer, std::uint32_t message) {
  Task t = make_task(kind, {});
  t.buffer = buffer;
  t.message = message;
  return t;
}

Program ping_pong_on(Topology topology = Topology::Torus) {
  Program p;
  p.algorithm = "ping-pong";
  p.shape = {2, 1, 1, {topology, topology, topology}};
  p.grid = BlockGrid::make({2, 1, 1}, {2, 1, 1});
  p.tag_kinds = {{"X", 3, 0, {}}, {"C", 2, 1, {}}, {"Y", 3, 0, {}}, {"Z", 3, 0, {}}};
  p.kernels = {cube_kernel(1, 1)};
  p.host_arrays = {{"input", false, 0, 0, {}, 0}, {"C1", true, 1, 0, {}, 0}};
  p.add_message(0, 1, std::vector<Direction>{Direction::PlusQ}, 1, tag(X));
  p.add_message(1, 0, std::vector<Direction>{Direction::MinusQ}, 1, tag(Y));
  const NodeProgram blank{{{1, X}, {1, C}, {1, Y}, {1, Z}}, {}, {}, {}};
  p.nodes = {blank, blank};
  set_tasks(p.nodes[0], {load(X, 0, tag(X)), load(C, 1, tag(C)), transfer(TaskKind::Send, X, 0),
                         transfer(TaskKind::Receive, Y, 1), compute(Z, Y, C)});
  set_tasks(p.nodes[1], {load(C, 1, tag(C)), transfer(TaskKind::Receive, X, 0), compute(Y, X, C), transfer(TaskKind::Send, Y, 1)});
  p.outputs = {{"result", 0, 3, {Z, Y}, {tag(Z), tag(Y)}, {}}};
  return p;
}

// One message from `source` to `destination` along `route`, on `shape`.
Program one_message(const TorusShape& shape, std::uint32_t source, std::uint32_t destination, std::vector<Direction> route) {
  Program p = ping_pong_on();
  p.shape = shape;
  p.messages.clear();
  p.routes.clear();
  p.add_message(source, destination, route, 1, tag(X));
  p.nodes.assign(shape.node_count(), p.nodes[0]);
  for (NodeProgram& node : p.nodes) set_tasks(node, {});
  set_tasks(p.nodes[source], {load(X, 0, tag(X)), transfer(TaskKind::Send, X, 0)});
  p.nodes[destination].tasks.push_back(transfer(TaskKind::Receive, X, 0));
  p.outputs.clear();
  return p;
}

Program orbital(int p, std::size_t b, const SchedulingVector& alpha, std::vector<TransformDirection> directions) {
  return make_algorithm("orbital")->build(TransformProblem{TorusShape::cube(p), BlockGrid::cube(b, p), alpha, std::move(directions)});
}

// Index of the first task of `kind` at or after `from` (on `buffer` unless no_buffer).
std::size_t find_task(const NodeProgram& node, TaskKind kind, std::size_t from = 0, std::uint32_t buffer = no_buffer) {
  for (std::size_t k = from; k < node.tasks.size(); ++k)
    if (node.tasks[k].kind == kind && (buffer == no_buffer || node.tasks[k].buffer == buffer)) return k;
  FAIL("no such task");
  return 0;
}

}  // namespace

TEST_CASE("the orbital Program verifies clean for every alpha, P, b and direction set", "[program][verifier]") {
  const int p = GENERATE(1, 2, 3, 4);
  const std::size_t b = GENERATE(1, 2);
  using D = TransformDirection;
  const auto directions = GENERATE(std::vector<D>{D::Forward}, std::vector<D>{D::Inverse}, std::vector<D>{D::Forward, D::Inverse});
  for (const SchedulingVector& alpha : all_scheduling_vectors()) {
    const Program program = orbital(p, b, alpha, directions);
    const ProgramVerification r = verify_program(program);
    INFO("P=" << p << " b=" << b << " alpha=" << alpha.to_string() << " transforms=" << directions.size() << "\n"
              << all_violations(program, r));
    CHECK(r.ok());
    CHECK(r.tasks_checked == task_count(program));
    CHECK(r.messages_checked == program.messages.size());
  }
}

TEST_CASE("a hand-built ping-pong verifies clean, on a torus and on a mesh", "[program][verifier]") {
  const Program program = ping_pong_on(GENERATE(Topology::Torus, Topology::Mesh));
  const ProgramVerification r = verify_program(program);
  INFO(all_violations(program, r));
  CHECK(r.ok());
  CHECK(r.tasks_checked == 9);
  CHECK(r.messages_checked == 2);
}

TEST_CASE("a violation names node, task, labels, buffer and blocks", "[program][verifier]") {
  Program program = ping_pong_on();
  program.nodes[1].tasks.erase(program.nodes[1].tasks.begin());  // the coefficient is never loaded
  program.nodes[1].tasks[1].label = {0, 2, 1, 3};
  const ProgramVerification r = verify_program(program);
  REQUIRE(r.violation_count == 1);
  CHECK(to_string(program, r.violations[0]) ==
        "node (1,0,0), task 1 (compute, transform 0 stage 2 step 1): the coefficient b1 (C) is read before written: C(0,0) expected");
}

TEST_CASE("missing, duplicated and misplaced sends and receives are caught", "[program][verifier]") {
  Program program = ping_pong_on();
  SECTION("a send without a receive") {
    program.add_message(0, 1, std::vector<Direction>{Direction::PlusQ}, 1, tag(X));
    program.nodes[0].tasks.push_back(transfer(TaskKind::Send, X, 2));
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "node (0,0,0), task 5 (send") != "");
    CHECK(find(program, r, "message 2 (X(0,0,0) from (0,0,0) to (1,0,0)) is never received") != "");
    CHECK(r.violation_count == 1);
  }
  SECTION("a receive without a send: also a wait that never ends") {
    program.add_message(1, 0, std::vector<Direction>{Direction::MinusQ}, 1, tag(C));
    program.nodes[0].tasks.push_back(transfer(TaskKind::Receive, C, 2));
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "message 2 (C(0,0) from (1,0,0) to (0,0,0)) is never sent") != "");
    CHECK(find(program, r, "waits for message 2 from node (1,0,0), which never sends it") != "");
    CHECK(r.violation_count == 2);
  }
  SECTION("a message sent twice and received at the wrong node") {
    program.nodes[0].tasks.push_back(transfer(TaskKind::Send, X, 0));
    program.nodes[0].tasks.push_back(transfer(TaskKind::Receive, no_buffer, 0));
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "node (0,0,0), task 5 (send").find("is sent twice; first by node (0,0,0), task 2") != std::string::npos);
    CHECK(find(program, r, "is received twice; first by node (1,0,0), task 1") != "");
    CHECK(r.violation_count == 2);
  }
  SECTION("indices out of range") {
    program.nodes[0].tasks[2].message = 7;
    program.nodes[1].detail(program.nodes[1].tasks[2]).kernel = 3;
    program.nodes[1].tasks[0].buffer = 9;
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "names message 7; there are 2 messages") != "");
    CHECK(find(program, r, "uses kernel 3; there are 1 kernel") != "");
    CHECK(find(program, r, "the loaded buffer is buffer 9, but the node has 4 buffers") != "");
  }
  SECTION("a detail record and a route out of range") {
    program.nodes[1].tasks[2].detail = 5;  // the compute; node 1 has two records (its load's and its compute's)
    program.messages[1].route_begin = 2;   // one hop from 2: the Program has two
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "node (1,0,0), task 2 (compute").find("names detail record 5; the node has 2") != std::string::npos);
    CHECK(find(program, r, "its 1 hops from 2 run past the Program's 2 route hops") != "");
  }
  SECTION("buffer sizes: too small for the block (a larger buffer is fine: blocks lead it)") {
    program.nodes[1].buffers[X].words = 0;
    program.nodes[1].buffers[C].words = 8;
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "the receiving buffer b0 (X) has 0 words; 1 are needed") != "");
    CHECK(find(program, r, "the operand b0 (X) has 0 words; 1 are needed") != "");
    CHECK(r.violation_count == 2);
  }
  SECTION("block extents: the kernel's, and a message as long as its block") {
    program.kernels[0].operand = {2, 1, 1};  // the mode-1 operand X(0,0,0) is 1x1x1
    program.messages[1].words = 2;
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "the operand X(0,0,0) is 1x1x1; the kernel needs 2x1x1") != "");
    CHECK(find(program, r, "message 1 (Y(0,0,0) from (1,0,0) to (0,0,0)) carries 2 words; its block has 1") != "");
  }
}

TEST_CASE("routes must be chains of neighbouring links", "[program][verifier]") {
  SECTION("a hop along the wrong axis ends at the wrong node") {
    const Program program = one_message({2, 2, 1}, 0, 1, {Direction::PlusR});
    const ProgramVerification r = verify_program(program);
    INFO(all_violations(program, r));
    CHECK(find(program, r, "node (0,0,0), task 1 (send").find("route is not a chain of links to the destination; it ends at node (0,1,0)") !=
          std::string::npos);
    CHECK(r.violation_count == 1);
  }
  SECTION("a hop off the edge of a mesh") {
    Program program = ping_pong_on(Topology::Mesh);
    program.route(program.messages[1])[0] = Direction::PlusQ;  // wraps on a torus, not on a mesh
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "message 1 (Y(0,0,0) from (1,0,0) to (0,0,0)): hop 0 (+Q) from node (1,0,0) leaves the mesh") != "");
    CHECK(r.violation_count == 1);
  }
  SECTION("an empty route between different nodes, a longer route that arrives") {
    CHECK(find(one_message({2, 1, 1}, 0, 1, {}), verify_program(one_message({2, 1, 1}, 0, 1, {})), "empty route") != "");
    CHECK(verify_program(one_message({3, 2, 1}, 0, 5, {Direction::MinusQ, Direction::PlusR})).ok());
    CHECK(verify_program(one_message({2, 1, 1}, 1, 1, {})).ok());
  }
}

TEST_CASE("the data flow: reads before writes, overwritten blocks, wrong tags", "[program][verifier]") {
  Program program = ping_pong_on();
  auto& tasks = program.nodes[0].tasks;
  SECTION("a send whose buffer a later load overwrote") {
    const Entry overwrite = load(X, 0, tag(X, 1));
    program.nodes[0].add(overwrite.task, overwrite.detail);  // its detail is appended; the task moves to place 2
    std::rotate(tasks.begin() + 2, tasks.end() - 1, tasks.end());
    const ProgramVerification r = verify_program(program);
    INFO(all_violations(program, r));
    CHECK(find(program, r, "node (0,0,0), task 3 (send") ==
          "node (0,0,0), task 3 (send, transform 0 stage 1 step 0): the sent buffer b0 (X) was overwritten before it was sent: "
          "X(0,0,0) (written by task 0 (load X(0,0,0))) was replaced by task 2 (load X(1,0,0)) with X(1,0,0) "
          "(message 0 declares X(0,0,0))");
    CHECK(r.violation_count == 1);
  }
  SECTION("a send whose buffer a receive placed before it overwrote (and so waits for the reply)") {
    tasks[3].buffer = X;
    std::swap(tasks[2], tasks[3]);
    const ProgramVerification r = verify_program(program);
    INFO(all_violations(program, r));
    CHECK(find(program, r, "was overwritten before it was sent: X(0,0,0) (written by task 0 (load X(0,0,0))) was replaced by "
                           "task 2 (receive of message 1)") != "");
    CHECK(find(program, r, "deadlock") != "");
  }
  SECTION("a compute that expects another block") {
    program.nodes[1].detail(program.nodes[1].tasks[2]).operand_tag = tag(X, 2);
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "the operand b0 (X) holds X(0,0,0) (written by task 1 (receive of message 0)), not X(2,0,0)") != "");
    CHECK(r.violation_count == 1);
  }
  SECTION("a message that declares another block than its buffer holds") {
    program.messages[0].tag = tag(X, 1);
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "the sent buffer b0 (X) holds X(0,0,0) (written by task 0 (load X(0,0,0))), not X(1,0,0)") != "");
    CHECK(find(program, r, "operand b0 (X) holds X(1,0,0)") != "");  // the receiver got what was declared
    CHECK(r.violation_count == 2);
  }
  SECTION("an output whose buffer holds the wrong block") {
    program.outputs[0].tag[1] = tag(Y, 1);
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "node (1,0,0): output 'result' promises Y(1,0,0) in b2 (Y), which holds Y(0,0,0) (written by task 2 "
                           "(compute Y(0,0,0))), not Y(1,0,0)") != "");
    CHECK(r.violation_count == 1);
  }
}

TEST_CASE("a deadlock names the cycle of waits", "[program][verifier]") {
  Program program = ping_pong_on();
  auto& tasks = program.nodes[0].tasks;
  std::rotate(tasks.begin() + 2, tasks.begin() + 3, tasks.end());  // node 0 sends only after using the reply
  const ProgramVerification r = verify_program(program);
  INFO(all_violations(program, r));
  REQUIRE(r.violation_count == 1);
  CHECK(to_string(program, r.violations[0]) ==
        "node (0,0,0), task 3 (compute, transform 0 stage 1 step 0): deadlock, no node can progress: node (0,0,0) at task 3 "
        "(compute Z(0,0,0)) waits for message 1 from node (1,0,0), which at task 2 (compute Y(0,0,0)) waits for message 0 "
        "from node (0,0,0): a cycle of 2 waiting nodes");
  CHECK(r.tasks_checked == task_count(program));  // the rest is still checked
}

TEST_CASE("mutations of the orbital Program are caught", "[program][verifier]") {
  Program program = orbital(3, 2, SchedulingVector::parse("+-+"), {TransformDirection::Forward, TransformDirection::Inverse});
  REQUIRE(verify_program(program).ok());
  NodeProgram& node = program.nodes[5];
  const std::size_t first_send = find_task(node, TaskKind::Send);
  SECTION("a block sent before the compute that makes it") {
    const std::size_t compute = find_task(node, TaskKind::Compute);
    std::swap(node.tasks[compute], node.tasks[first_send]);
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "is sent before written") != "");
  }
  SECTION("the next block received before the current one is sent") {
    const std::size_t next = find_task(node, TaskKind::Receive, first_send, node.tasks[first_send].buffer);
    std::swap(node.tasks[first_send], node.tasks[next]);
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "overwritten before it was sent") != "");
  }
  SECTION("a receive into the wrong buffer") {
    Task& receive = node.tasks[find_task(node, TaskKind::Receive)];
    const std::uint32_t right = receive.buffer;
    SECTION("of the wrong size") {
      receive.buffer = node.detail(node.tasks[find_task(node, TaskKind::Compute)]).coefficient;
      const ProgramVerification r = verify_program(program);
      CHECK(find(program, r, "the receiving buffer").find("has 4 words; 8 are needed") != std::string::npos);
    }
    SECTION("of the right size: the block it should have filled is never there") {
      receive.buffer = node.detail(node.tasks[find_task(node, TaskKind::Compute)]).operand;
      const ProgramVerification r = verify_program(program);
      INFO(all_violations(program, r));
      CHECK(find(program, r, "the accumulator b" + std::to_string(right) + " (X') is read before written") != "");
    }
  }
  SECTION("a dropped send") {
    const std::uint32_t message = node.tasks[first_send].message;
    node.tasks.erase(node.tasks.begin() + static_cast<std::ptrdiff_t>(first_send));
    const ProgramVerification r = verify_program(program);
    CHECK(find(program, r, "message " + std::to_string(message) + " (").find("is never sent") != std::string::npos);
    CHECK(find(program, r, "waits for message " + std::to_string(message) + " from node (2,1,0), which never sends it") != "");
    CHECK(r.tasks_checked == task_count(program));
  }
}

TEST_CASE("only the first max_reported violations are kept, all are counted", "[program][verifier]") {
  Program program = orbital(2, 1, SchedulingVector::parse("+++"), {TransformDirection::Forward});
  for (NodeProgram& node : program.nodes)
    std::erase_if(node.tasks, [](const Task& t) { return t.kind == TaskKind::Load; });
  const ProgramVerification r = verify_program(program, 5);
  CHECK(r.violations.size() == 5);
  CHECK(r.violation_count > 5);
}

TEST_CASE("task labels refuse what their narrow fields cannot hold, and bytes() counts the pooled routes", "[program]") {
  CHECK_NOTHROW(TaskLabel(65535, 3, 70000, 80000));
  CHECK_THROWS_WITH(TaskLabel(65536, 1, 0, 0), Catch::Contains("transform 65536") && Catch::Contains("limit 65535"));
  CHECK_THROWS_WITH(TaskLabel(0, 65536, 0, 0), Catch::Contains("stage 65536"));
  Program program = ping_pong_on();
  const std::size_t before = bytes(program);
  const std::uint32_t m = program.add_message(0, 1, std::vector<Direction>(1000, Direction::PlusQ), 1, tag(X));
  CHECK(m == 2);
  CHECK(program.route(program.messages[m]).size() == 1000);
  CHECK(program.route(program.messages[m]).front() == Direction::PlusQ);
  CHECK(program.route(program.messages[1]).front() == Direction::MinusQ);  // the earlier routes stay where they were
  CHECK(bytes(program) >= before + 1000 * sizeof(Direction) + sizeof(Message));
}

TEST_CASE("a task labelled past the Program's stages is caught", "[program][verifier]") {
  Program program = orbital(2, 2, SchedulingVector::parse("+++"), {TransformDirection::Forward});
  const std::size_t steps = program.global_steps();
  REQUIRE(verify_program(program).ok());
  Task& task = program.nodes[1].tasks.back();
  task.label = {task.label.transform, task.label.stage, task.label.step, steps};
  const ProgramVerification r = verify_program(program);
  CHECK(r.violation_count == 1);
  CHECK(find(program, r, "is labelled step " + std::to_string(steps) + "; the stages have " + std::to_string(steps) + " steps") != "");
}
