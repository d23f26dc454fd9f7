// Whole messages in closed form (docs/timing-model.md, "Closed forms of a whole message"): the
// event engine without values (where they hold) against the SystemC engine on hand-built
// Programs that reach the forms' edge cases: a message whose first word shares a cycle with the
// last word of the message before it on the link (more than one word a cycle), and a receive
// posted after its words arrived, so they wait in the link's buffer; and messages forwarded
// whole through routers.

#include <catch2/catch.hpp>

#include <algorithm>

#include "tests/model/program_bench.hpp"

using namespace torus;
using namespace torus::bench;

namespace {

void all_agree(const Program& p, const Machine& machine) {
  const nlohmann::json systemc = engine_records(p, machine, "systemc");
  REQUIRE(systemc["completed"] == true);
  CHECK(engine_records(p, machine, "event_no_values") == systemc);
  CHECK(engine_records(p, machine, "event") == systemc);
}

// A link of `rate` words per cycle and `latency`, with 20-word buffers (more than any message here).
Machine link_of(Rational rate, Cycle latency) {
  Machine machine;
  machine.link_rate = rate;
  machine.link_latency = latency;
  machine.link_buffer_words = 20;
  return machine;
}

}  // namespace

TEST_CASE("whole messages: back to back on a link, at any rate, as the SystemC engine times them", "[model][event][closed_form]") {
  const Program p = two_messages_one_link();
  for (const Rational rate : {Rational{1, 1}, Rational{3, 2}, Rational{2, 1}, Rational{2, 3}, Rational{5, 3}})
    for (const Cycle latency : {Cycle{1}, Cycle{3}}) {
      INFO("rate " << rate.num << "/" << rate.den << ", latency " << latency);
      all_agree(p, link_of(rate, latency));
    }
}

TEST_CASE("whole messages: a receive posted after its words arrived", "[model][event][closed_form]") {
  Program p = empty_program(TorusShape{2, 1, 1}, 2, 3);
  load(p, 0, 0, tag(0, 0));
  load(p, 1, 0, tag(0, 1));
  load(p, 1, 1, tag(1, 1));
  compute(p, 1, 2, 0, 1, tag(1, 2), tag(0, 1), tag(1, 1));  // keeps node 1 busy before it posts the receive
  message(p, 0, 0, {Direction::PlusQ}, 0, tag(0, 0));
  for (const Rational rate : {Rational{1, 1}, Rational{3, 2}})
    for (const char* micro : {"interleaved", "chained"}) {
      INFO("rate " << rate.num << "/" << rate.den << ", " << micro);
      Machine machine;
      machine.link_rate = rate;
      machine.fma_latency = 6;
      machine.micro_schedule = micro;
      machine.link_buffer_words = 20;
      all_agree(p, machine);
    }
}

TEST_CASE("whole messages through routers: each hop forwards the words as they arrive", "[model][event][closed_form][router]") {
  // One message of 8 words from node 0 three hops on. Node 0 sends word j at floor(j den / num)
  // (the first hop's whole form from tick 0); nodes 1 and 2 forward each word in the cycle it
  // arrives, so it lands at node 3 at floor(j den / num) + 3d and the run ends with the last
  // word stored: rate 1: 7 + 3d; rate 2/3: floor(21 / 2) + 3d = 10 + 3d; rate 3/2:
  // floor(14 / 3) + 3d = 4 + 3d.
  const Program p = one_message(4, 3);
  for (const auto& [rate, last_leaves] : {std::pair{Rational{1, 1}, 7}, {Rational{2, 3}, 10}, {Rational{3, 2}, 4}})
    for (const Cycle d : {Cycle{1}, Cycle{4}}) {
      INFO("rate " << rate.num << "/" << rate.den << ", latency " << d);
      const Machine machine = link_of(rate, d);
      all_agree(p, machine);
      const nlohmann::json closed = engine_records(p, machine, "event_no_values");
      std::int64_t finish = 0;
      for (const auto& node : closed["records"]["nodes"]) finish = std::max<std::int64_t>(finish, node["finish"]);
      CHECK(finish == last_leaves + static_cast<std::int64_t>(3 * d));
      CHECK_THAT(closed_form_note(p, machine), Catch::Contains("every compute and message"));
    }
  // With 4-word buffers the words wait for credits on every hop: per word, and still the same.
  Machine tight;
  tight.link_buffer_words = 4;
  all_agree(p, tight);
  CHECK_THAT(closed_form_note(p, tight), !Catch::Contains("every compute and message"));
}

TEST_CASE("whole messages: one that arrives while the one before it still waits in the link's buffer",
          "[model][event][closed_form]") {
  // Node 0 sends two 8-word blocks to node 1 back to back on +Q (rate 1, latency 4): message 0's
  // words leave at k and arrive at 4 + k, message 1's leave at 8 + k and arrive at 12 + k. Node
  // 1 first multiplies its block in buffer 0 (16 fma at cycles 0..15, L = 1: done at 16), sends
  // that block to node 0 (its word k leaves at 16 + k, so its place is free from 17 + k), and
  // receives message 0 into buffer 0: word k is stored at max(4 + k, 17 + k) = 17 + k, while
  // message 1's words arrive at 12..19. Message 1's word k (k = 0..7) finds the 8 words of
  // message 0 and its own k + 1, less message 0's words taken before 12 + k (those stored at
  // 17 + j < 12 + k: j < k - 5): 9 + k - max(0, k - 5), 14 from k = 5 on. Message 1 is stored
  // after message 0's last word (24): all of it at 24.
  Program p = empty_program(TorusShape{2, 1, 1}, 2, 4);
  load(p, 0, 0, tag(0, 0));
  load(p, 0, 1, tag(1, 0));
  message(p, 0, 0, {Direction::PlusQ}, 0, tag(0, 0));
  message(p, 0, 1, {Direction::PlusQ}, 3, tag(1, 0));
  load(p, 1, 0, tag(0, 1));
  load(p, 1, 1, tag(1, 1));
  compute(p, 1, 2, 0, 1, tag(1, 2), tag(0, 1), tag(1, 1));
  const std::uint32_t back = message(p, 1, 0, {Direction::PlusQ}, 2, tag(0, 1));
  // Node 1 receives message 0 (into buffer 0) and 1 (into 3), in that order, after its send.
  std::vector<Task>& tasks = p.nodes[1].tasks;
  std::rotate(tasks.begin(), tasks.begin() + 2, tasks.end());
  REQUIRE(tasks.back().kind == TaskKind::Receive);
  REQUIRE(tasks[tasks.size() - 3].message == back);
  Machine machine = link_of(Rational{1, 1}, 4);
  all_agree(p, machine);
  const nlohmann::json closed = engine_records(p, machine, "event_no_values");
  CHECK(closed["records"]["links"][0][2] == 14);  // node 0's +Q link
  CHECK_THAT(closed_form_note(p, machine), Catch::Contains("every compute and message"));
  for (const Rational rate : {Rational{3, 2}, Rational{2, 3}, Rational{2, 1}}) {
    INFO("rate " << rate.num << "/" << rate.den);
    machine.link_rate = rate;
    all_agree(p, machine);
  }
}
