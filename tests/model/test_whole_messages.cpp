// Whole messages in closed form (docs/timing-model.md, "Closed forms of a whole message"): the
// event engine without values (where they hold) against the SystemC engine on hand-built
// Programs that reach the forms' edge cases: a message whose first word shares a cycle with the
// last word of the message before it on the link (more than one word a cycle), and a receive
// posted after its words arrived, so they wait in the link's buffer.

#include <catch2/catch.hpp>

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

}  // namespace

TEST_CASE("whole messages: back to back on a link, at any rate, as the SystemC engine times them", "[model][event][closed_form]") {
  const Program p = two_messages_one_link();
  for (const Rational rate : {Rational{1, 1}, Rational{3, 2}, Rational{2, 1}, Rational{2, 3}, Rational{5, 3}})
    for (const Cycle latency : {Cycle{1}, Cycle{3}}) {
      INFO("rate " << rate.num << "/" << rate.den << ", latency " << latency);
      Machine machine;
      machine.link_rate = rate;
      machine.link_latency = latency;
      machine.link_buffer_words = 20;
      all_agree(p, machine);
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
