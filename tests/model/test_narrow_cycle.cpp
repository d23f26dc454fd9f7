// The 32-bit cycles of the SystemC engine's per-node state: every cycle up to the limit and
// `never` read back exactly; one past the limit is refused with the limit and the engine that
// has none, never wrapped around.

#include <catch2/catch.hpp>

#include <string>

#include "models/narrow_cycle.hpp"

using namespace torus;

TEST_CASE("a narrow cycle holds every cycle up to its limit and never, and refuses the next", "[model][memory]") {
  for (const Cycle c : {Cycle{0}, Cycle{1}, Cycle{0x7FFFFFFF}, NarrowCycle::limit - 1, NarrowCycle::limit}) {
    const NarrowCycle n = c;
    CHECK(Cycle{n} == c);
  }
  CHECK(Cycle{NarrowCycle(never)} == never);
  CHECK(Cycle{NarrowCycle{}} == 0);
  CHECK(sizeof(NarrowCycle) == 4);
  for (const Cycle past : {NarrowCycle::limit + 1, Cycle{1} << 32, never - 1}) {
    INFO(past);
    try {
      const NarrowCycle n = past;
      FAIL("stored " << Cycle{n});
    } catch (const CycleLimitError& e) {
      const std::string text = e.what();
      CHECK(text.rfind(CycleLimitError::opening, 0) == 0);
      CHECK(text.find("up to cycle 4294967294; this run reaches cycle " + std::to_string(past)) != std::string::npos);
      CHECK(text.find("engine event") != std::string::npos);
    }
  }
}
