// The torus has a clock only when some node steps every cycle: with every node fast-forwarding,
// SystemC advances straight to the next cycle a node, a link or the watchdog asked for, so a
// run's idle stretches (a slow link's gaps, a stall) cost nothing per cycle, and every figure
// stays what the stepping run and the event engine give.

#include <catch2/catch.hpp>

#include "tests/model/program_bench.hpp"

using namespace torus;
using namespace torus::bench;

TEST_CASE("with every node fast-forwarding there is no clock, and a slow link's idle cycles cost nothing", "[model][clock]") {
  // Eight words over a link that moves one word per million cycles: about 8 million cycles, of
  // which all but a few dozen change nothing.
  Machine slow;
  slow.link_rate = {1, 1000000};
  const Program p = one_message(2, 1);
  const nlohmann::json on = time_program(p, slow);
  CHECK_FALSE(on["clock"].get<bool>());
  REQUIRE(on["completed"].get<bool>());
  CHECK(on["total"] == time_program_event(p, slow)["total"]);
  CHECK(on["total"].get<Cycle>() > 7000000);
  CHECK(on["ended_at"] == on["total"]);  // stopped when the last node finished, not later
  // Every node stepping: the clock is made, and the figures are the same (a faster link, so
  // that stepping each cycle stays quick).
  Machine medium;
  medium.link_rate = {1, 1000};
  Machine stepping = medium;
  stepping.fast_forward = "off";
  const nlohmann::json off = time_program(p, stepping);
  CHECK(off["clock"].get<bool>());
  const nlohmann::json fast = time_program(p, medium);
  CHECK_FALSE(fast["clock"].get<bool>());
  CHECK(fast["total"] == off["total"]);
  CHECK(fast["nodes"] == off["nodes"]);
}

TEST_CASE("the watchdog stops a stall at the same cycle with and without a clock", "[model][clock][watchdog]") {
  // Neither node of the pair ever progresses after its loads: the watchdog (1,000 cycles in the
  // bench) fires at the first multiple of 64 from max(1000, last progress + 1000).
  const Program p = deadlocked_pair();
  Machine stepping;
  stepping.fast_forward = "off";
  const nlohmann::json on = time_program(p, Machine{});
  const nlohmann::json off = time_program(p, stepping);
  CHECK_FALSE(on["clock"].get<bool>());
  CHECK(off["clock"].get<bool>());
  CHECK_FALSE(on["completed"].get<bool>());
  CHECK_FALSE(off["completed"].get<bool>());
  CHECK(on["ended_at"].get<Cycle>() == 1024);
  CHECK(off["ended_at"].get<Cycle>() == 1024);
  CHECK(on["stall"] == off["stall"]);
}

TEST_CASE("nodes that can only wait sleep through a stall, with the stepping run's figures", "[model][clock][watchdog]") {
  // Node 0 is out of credit with nothing else to do; node 1 waits for a block stuck behind a word
  // it has not yet posted a receive for. Stepping, both ran every cycle until the watchdog; now
  // a credit starting back or a receive being posted are the only things that could wake them.
  const Program p = head_of_line_stall();
  Machine one_word;
  one_word.link_buffer_words = 1;
  Machine stepping = one_word;
  stepping.fast_forward = "off";
  const nlohmann::json on = time_program(p, one_word);
  const nlohmann::json off = time_program(p, stepping);
  REQUIRE_FALSE(on["completed"].get<bool>());
  REQUIRE_FALSE(off["completed"].get<bool>());
  CHECK(on["ended_at"] == off["ended_at"]);
  CHECK(on["stall"] == off["stall"]);
  CHECK(on["chain"] == off["chain"]);
  // Per task records. (Stall counts are not compared: a stalled run reports none, and a node
  // asleep at the watchdog has not yet counted the cycles it slept.)
  for (std::size_t n = 0; n < 2; ++n) {
    CHECK(on["nodes"][n]["tasks"] == off["nodes"][n]["tasks"]);
    CHECK(on["nodes"][n]["finish"] == off["nodes"][n]["finish"]);
  }
  CHECK(on["nodes"][0]["tasks"][2]["count"] == 1);  // A's first word left; its second waits for the credit
  CHECK_THAT(on["chain"].get<std::string>(), Catch::Contains("waits for a credit on +Q"));
  INFO(on["activations"].dump() << " against " << off["activations"].dump() << " stepping");
  CHECK(off["activations"][0].get<std::uint64_t>() > 1000);
  for (const auto& activations : on["activations"]) CHECK(activations.get<std::uint64_t>() < 20);
}
