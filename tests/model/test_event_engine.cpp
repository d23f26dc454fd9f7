// The event engine against the SystemC engine on hand-built Programs (docs/timing-model.md):
// per task, the first and last cycle and the count must be the same as the cycle-by-cycle run,
// and the hand-derived cycles of a message's words (latency, bandwidth, credits) must hold. A
// node finishes when its last word has left, not when the SystemC engine scheduled it ahead.

#include <catch2/catch.hpp>

#include "tests/model/program_bench.hpp"

using namespace torus;
using namespace torus::bench;

namespace {

// What both engines must agree on: per node, every task's span and the finish cycle.
nlohmann::json timing(const nlohmann::json& run) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& node : run["nodes"]) nodes.push_back({{"tasks", node["tasks"]}, {"finish", node["finish"]}});
  return {{"total", run["total"]}, {"nodes", nodes}};
}

nlohmann::json both_engines(const Program& program, const Machine& machine) {
  const nlohmann::json cycle = time_program(program, machine), event = time_program_event(program, machine);
  REQUIRE(cycle["completed"] == true);
  REQUIRE(event["completed"] == true);
  CHECK(timing(event) == timing(cycle));
  return event;
}

// One 8-word block (b = 2) from node 0 to node 1 of a two-node ring.
Program one_hop() {
  Program p = empty_program(TorusShape{2, 1, 1}, 2, 1);
  load(p, 0, 0, tag(0, 0));
  message(p, 0, 0, {Direction::PlusQ}, 0, tag(0, 0));
  return p;
}

std::int64_t at(const nlohmann::json& run, std::size_t node, std::size_t task, const char* which) {
  return run["nodes"][node]["tasks"][task][which];
}

}  // namespace

TEST_CASE("event engine: a word is readable latency cycles after it leaves, not before", "[model][event]") {
  for (const Cycle d : {Cycle{1}, Cycle{3}, Cycle{8}}) {
    INFO("link latency " << d);
    Machine machine;
    machine.link_latency = d;
    const nlohmann::json run = both_engines(one_hop(), machine);
    CHECK(at(run, 0, 1, "first") == 0);  // word 0 leaves in cycle 0
    CHECK(at(run, 0, 1, "last") == 7);   // one word a cycle
    CHECK(at(run, 1, 0, "first") == static_cast<std::int64_t>(d));
    CHECK(at(run, 1, 0, "last") == static_cast<std::int64_t>(7 + d));
  }
}

TEST_CASE("event engine: with a one-word buffer, word j leaves at 2 d j", "[model][event][credits]") {
  for (const Cycle d : {Cycle{1}, Cycle{2}, Cycle{5}}) {
    INFO("link latency " << d);
    Machine machine;
    machine.link_latency = d;
    machine.link_buffer_words = 1;
    const nlohmann::json run = both_engines(one_hop(), machine);
    CHECK(at(run, 0, 1, "last") == static_cast<std::int64_t>(2 * d * 7));
    CHECK(at(run, 1, 0, "last") == static_cast<std::int64_t>(2 * d * 7 + d));
  }
}

TEST_CASE("event engine: bandwidth 3/2 sends words at 0, 0, 1, 2, 2, 3, 4, 4 and 1/8 one every 8 cycles", "[model][event]") {
  Machine fast;
  fast.link_rate = {3, 2};
  CHECK(at(both_engines(one_hop(), fast), 0, 1, "last") == 4);  // floor(7 x 2 / 3)
  Machine slow;
  slow.link_rate = {1, 8};
  CHECK(at(both_engines(one_hop(), slow), 1, 0, "last") == 7 * 8 + 1);
}

TEST_CASE("event engine: ping-pong, a word stored in a cycle may leave again in that cycle", "[model][event]") {
  const Program p = ping_pong();
  const nlohmann::json run = both_engines(p, Machine{});
  CHECK(at(run, 0, 2, "first") == 2);
  CHECK(at(run, 0, 2, "last") == 9);
  CHECK(run["total"] == 9);
}

TEST_CASE("event engine: two messages on one link leave whole, in the order they were posted", "[model][event]") {
  const Program p = two_messages_one_link();
  for (const std::uint64_t buffer : {std::uint64_t{64}, std::uint64_t{3}}) {
    Machine machine;
    machine.link_buffer_words = buffer;
    machine.link_latency = 2;
    const nlohmann::json run = both_engines(p, machine);
    // With 3 credits and latency 2, word j >= 3 waits for the credit of word j - 3: 4 cycles
    // after it left (leaves 0, 1, 2, 4, 5, 6, 8, 9); the second message follows at once.
    CHECK(at(run, 0, 2, "last") == (buffer == 64 ? 7 : 9));
    CHECK(at(run, 0, 3, "first") == (buffer == 64 ? 8 : 10));
  }
}

TEST_CASE("event engine: a compute's sends wait for its results (after_compute) or for each word (overlapped)", "[model][event]") {
  for (const char* policy : {"after_compute", "overlapped"}) {
    INFO(policy);
    // Node 0 computes acc = x x1 c from loaded blocks and sends the accumulator to node 1,
    // which computes with it as its operand.
    Program p = empty_program(TorusShape{2, 1, 1}, 2, 3);
    for (std::size_t node = 0; node < 2; ++node) {
      load(p, node, 2, tag(1, 9));
    }
    load(p, 0, 1, tag(0, 1));
    compute(p, 0, 0, 1, 2, tag(0, 2), tag(0, 1), tag(1, 9));
    message(p, 0, 0, {Direction::PlusQ}, 1, tag(0, 2));
    compute(p, 1, 0, 1, 2, tag(0, 3), tag(0, 2), tag(1, 9));
    for (const Cycle latency : {Cycle{1}, Cycle{6}}) {
      Machine machine;
      machine.policy = policy;
      machine.fma_latency = latency;
      both_engines(p, machine);
    }
  }
}

TEST_CASE("event engine: a Program that cannot finish is reported as a stall", "[model][event][watchdog]") {
  const Program p = deadlocked_pair();
  const nlohmann::json stalled = time_program_event(p, Machine{});
  CHECK(stalled["completed"] == false);
  CHECK_THAT(stalled["stall"].get<std::string>(), Catch::Contains("node (0,0,0): task 2 (compute"));
}

TEST_CASE("per-step records are kept when asked for even where node 0 has no tasks", "[model][event]") {
  // Node 1 loads a block; node 0 has nothing to do. Whether the records keep per-step spans
  // is the run's setting, not read off node 0.
  Program p = empty_program(TorusShape{2, 1, 1}, 1, 1);
  load(p, 1, 0, tag(0, 0));
  const Machine machine;
  const nlohmann::json cycle = engine_records(p, machine, "systemc");
  REQUIRE(cycle["completed"] == true);
  CHECK(cycle["records"]["steps"]["start"].size() == 2);  // both nodes, one step each
  CHECK(cycle["records"]["steps"]["start"][1].size() == 1);
  CHECK(engine_records(p, machine, "event") == cycle);
}

TEST_CASE("both engines refuse a Program whose received words would land over a later load", "[model][event][errors]") {
  const Program p = receive_then_replace();
  // The SystemC run happens in a child process, whose exception comes back as a runtime_error.
  const auto refusal = [&p](const std::string& engine) -> std::string {
    try {
      engine_records(p, Machine{}, engine);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "ran";
  };
  const std::string cycle = refusal("systemc"), event = refusal("event");
  CHECK_THAT(cycle, Catch::Contains("node (1,0,0)") && Catch::Contains("a word of an earlier receive lands at cycle") &&
                        Catch::Contains("which a later task has already replaced"));
  CHECK_THAT(event, Catch::Contains("replaces buffer 0 at cycle") && Catch::Contains("before a word of an earlier receive lands"));
}
