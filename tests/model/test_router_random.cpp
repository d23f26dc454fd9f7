// Both engines on random Programs whose messages pass through routers (random_programs.hpp):
// every record a report is read off must be equal, and a Program one engine finds cannot
// finish (a wormhole deadlock, a receive posted too late) must stall in the other too (FFT tasks
// included, docs/timing-model.md "FFT tasks"); the event
// engine without values (closed forms of whole messages where they hold) likewise. The
// normal suite runs 100 cases; the label "long" runs 2000 more.

#include <catch2/catch.hpp>

#include <iostream>

#include "sim/program_verifier.hpp"
#include "tests/model/random_programs.hpp"

using namespace torus;
using namespace torus::bench;

namespace {

struct EngineTally {
  std::size_t equal = 0, stalled = 0, routed = 0, ffts = 0;
};

void compare(std::uint64_t first, std::uint64_t count, EngineTally& tally) {
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    const RandomCase c = random_case(seed);
    INFO(c.summary << "\n" << format_text(c.program));
    const nlohmann::json systemc = engine_records(c.program, c.machine, "systemc");
    const nlohmann::json event = engine_records(c.program, c.machine, "event");
    const nlohmann::json closed = engine_records(c.program, c.machine, "event_no_values");  // closed forms where they hold
    REQUIRE(systemc["completed"] == event["completed"]);
    REQUIRE(closed["completed"] == event["completed"]);
    if (systemc["completed"] == false) {
      ++tally.stalled;
      continue;
    }
    const nlohmann::json differences = nlohmann::json::diff(systemc["records"], event["records"]);
    INFO("event engine against systemc (JSON patch, first entries): " << differences.dump().substr(0, 1200));
    CHECK(differences.empty());
    const nlohmann::json closed_differences = nlohmann::json::diff(systemc["records"], closed["records"]);
    INFO("event engine without values against systemc: " << closed_differences.dump().substr(0, 1200));
    CHECK(closed_differences.empty());
    if (differences.empty() && closed_differences.empty()) ++tally.equal;
    if (!c.program.ffts.empty()) ++tally.ffts;
    for (const Message& m : c.program.messages)
      if (m.hops > 1) {
        ++tally.routed;
        break;
      }
  }
}

// Cases first .. first + count - 1; most must run to the end and route through other nodes,
// or the sample checks little.
void sample(std::uint64_t first, std::uint64_t count) {
  EngineTally tally;
  compare(first, count, tally);
  std::cout << "router cross-check: " << tally.equal << " equal, " << tally.stalled << " stalled in both, " << tally.routed
            << " with messages of more than one hop, " << tally.ffts << " with FFT tasks, of " << count << "\n";
  CHECK(tally.equal >= count * 7 / 10);
  CHECK(tally.ffts >= count / 5);
  CHECK(tally.routed >= count * 6 / 10);
}

}  // namespace

TEST_CASE("random Programs routed through routers: both engines give every record alike", "[model][router][random]") {
  sample(1, 100);
}

// Under the label "long" (tests/CMakeLists.txt), not in the normal suite.
TEST_CASE("random Programs routed through routers, 2000 more", "[.][long][router][random]") { sample(1001, 2000); }

TEST_CASE("a torus whose nodes all run the same routed task list: one node timed for the torus gives every node's records",
          "[model][router][random][symmetry]") {
  // The event engine times the translation quotient's one node; each hop of a message leaves
  // that node on the link of the hop, standing for the copy it passes (docs/timing-model.md,
  // "One node for the torus"). Every node of the whole Program, timed by both engines, must
  // show exactly that node's records.
  std::size_t equal = 0, stalled = 0, ffts = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const SymmetricCase c = symmetric_case(seed);
    if (!c.whole.ffts.empty()) ++ffts;
    INFO(c.summary << "\n" << format_text(c.quotient));
    REQUIRE(verify_program(c.whole, 1).ok());
    REQUIRE(verify_program(c.quotient, 1).ok());
    const nlohmann::json one = engine_records(c.quotient, c.machine, "event");
    const nlohmann::json every = engine_records(c.whole, c.machine, "event");
    const nlohmann::json systemc = engine_records(c.whole, c.machine, "systemc");
    REQUIRE(every["completed"] == systemc["completed"]);
    REQUIRE(one["completed"] == systemc["completed"]);
    if (systemc["completed"] == false) {
      ++stalled;
      continue;
    }
    CHECK(nlohmann::json::diff(systemc["records"], every["records"]).empty());
    const nlohmann::json& q = one["records"];
    const nlohmann::json& w = every["records"];
    CHECK(q["copies"] == c.whole.node_count());
    bool same = true;
    for (std::size_t n = 0; n < c.whole.node_count(); ++n) {
      INFO("node " << n);
      CHECK(w["nodes"][n] == q["nodes"][0]);
      for (std::size_t d = 0; d < direction_count; ++d) CHECK(w["links"][n * direction_count + d] == q["links"][d]);
      for (const char* field : {"start", "done", "first_send", "last_send", "fma", "words_sent"}) CHECK(w["steps"][field][n] == q["steps"][field][0]);
      same = same && w["nodes"][n] == q["nodes"][0];
    }
    if (same) ++equal;
  }
  std::cout << "router symmetry: " << equal << " equal, " << stalled << " stalled in all three, " << ffts
            << " with FFT tasks, of 40\n";
  CHECK(equal >= 30);
  CHECK(ffts >= 8);
}
