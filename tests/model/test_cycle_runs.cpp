// The run-length FIFO of a link's leave and credit-return cycles gives back exactly the cycles
// it was given, in order, whatever their spacing; evenly spaced cycles share an entry.

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "models/cycle/cycle_runs.hpp"

using namespace torus;

TEST_CASE("cycle runs give back every cycle in order, evenly spaced ones in one entry", "[model][link][memory]") {
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 200; ++trial) {
    CycleRuns runs;
    std::vector<Cycle> expected;
    std::size_t popped = 0;
    Cycle at = rng() % 1000;
    for (int k = 0; k < 300; ++k) {
      // Runs of equal, consecutive and evenly spaced cycles, jumps, and now and then one that
      // goes back (the FIFO must hold it as given).
      const int kind = static_cast<int>(rng() % 6);
      at = kind == 0 ? at : kind == 1 ? at + 1 : kind == 2 ? at + 3 : kind == 3 ? at + rng() % 100000 : kind == 4 ? at + 2 : at - std::min<Cycle>(at, 5);
      runs.push_back(at);
      expected.push_back(at);
      if (rng() % 4 == 0) {
        REQUIRE(runs.front() == expected[popped++]);
        runs.pop_front();
      }
      REQUIRE(runs.size() == expected.size() - popped);
    }
    while (!runs.empty()) {
      REQUIRE(runs.front() == expected[popped++]);
      runs.pop_front();
    }
    CHECK(popped == expected.size());
  }
  CycleRuns message;
  for (Cycle c = 100; c < 164; ++c) message.push_back(c);  // a 64-word message at one word a cycle
  CHECK(message.bytes() <= 4 * 12);                          // one run (the ring's smallest capacity is 4)
}

TEST_CASE("cycle runs: a run pushed at once and cycles popped up to a cycle, as one at a time", "[model][link][memory]") {
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 200; ++trial) {
    CycleRuns runs, one_by_one;
    Cycle at = rng() % 1000, now = 0;
    for (int k = 0; k < 100; ++k) {
      // Runs that continue the last one's spacing or not, of one cycle, of equal cycles.
      const Cycle step = rng() % 4 == 0 ? 0 : 1 + rng() % 3;
      const std::size_t count = rng() % 5 == 0 ? 1 : rng() % 70;
      at += rng() % 3 == 0 ? step : rng() % 50;
      runs.push_run(at, step, count);
      for (std::size_t i = 0; i < count; ++i) one_by_one.push_back(at + step * i);
      if (count > 0) at += step * (count - 1);
      REQUIRE(runs.size() == one_by_one.size());
      REQUIRE(runs.bytes() == one_by_one.bytes());
      if (rng() % 3 == 0) {
        now += rng() % 80;
        std::size_t popped = 0;
        while (!one_by_one.empty() && one_by_one.front() <= now) {
          one_by_one.pop_front();
          ++popped;
        }
        REQUIRE(runs.pop_through(now) == popped);
        REQUIRE(runs.size() == one_by_one.size());
        if (!runs.empty()) REQUIRE(runs.front() == one_by_one.front());
      }
    }
    while (!runs.empty()) {
      REQUIRE(runs.front() == one_by_one.front());
      runs.pop_front();
      one_by_one.pop_front();
    }
    CHECK(one_by_one.empty());
  }
}
