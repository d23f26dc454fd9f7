// The fma unit's timing: issue width per cycle and the latency after which a result may be used.

#include <catch2/catch.hpp>

#include "models/cycle/fma_pipeline.hpp"

using namespace torus;

TEST_CASE("a result issued at cycle c is usable at c + L, not c + L - 1", "[model][fma]") {
  FmaPipeline unit("fma", 4, 1);
  const Cycle usable = unit.issue(7);
  CHECK(usable == 11);  // 7 + 4: not 10, the cycle before
  CHECK(unit.stats().issued == 1);
}

TEST_CASE("the unit accepts fma_per_cycle issues per cycle", "[model][fma]") {
  FmaPipeline unit("fma", 2, 3);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(unit.has_slot(0));
    unit.issue(0);
  }
  CHECK_FALSE(unit.has_slot(0));
  CHECK_THROWS_AS(unit.issue(0), std::logic_error);
  CHECK(unit.has_slot(1));
  unit.issue(1);
  CHECK(unit.stats().issued == 4);
  CHECK(unit.stats().busy_cycles == 2);
}

TEST_CASE("a chain of k dependent fma, each issued when its input is usable, ends at k L", "[model][fma]") {
  const Cycle L = 5;
  FmaPipeline unit("fma", L, 1);
  Cycle usable = 0;
  for (int k = 0; k < 6; ++k) usable = unit.issue(usable);  // each waits for the previous result
  CHECK(usable == 6 * L);
}
