// The fma unit's timing: issue width per cycle and the latency after which a result may be used.

#include <catch2/catch.hpp>

#include "models/cycle/compute_schedule.hpp"
#include "models/cycle/fma_pipeline.hpp"

using namespace torus;

TEST_CASE("a result issued at cycle c is usable at c + L, not c + L - 1", "[model][fma]") {
  FmaPipeline unit(4, 1);
  const Cycle usable = unit.issue(7);
  CHECK(usable == 11);  // 7 + 4: not 10, the cycle before
  CHECK(unit.stats().issued == 1);
}

TEST_CASE("the unit accepts fma_per_cycle issues per cycle", "[model][fma]") {
  FmaPipeline unit(2, 3);
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
  FmaPipeline unit(L, 1);
  Cycle usable = 0;
  for (int k = 0; k < 6; ++k) usable = unit.issue(usable);  // each waits for the previous result
  CHECK(usable == 6 * L);
}

TEST_CASE("a fast-forwarded run counts one issue per cycle and refuses to overlap earlier issues", "[model][fma]") {
  FmaPipeline unit(3, 1);
  unit.issue(10);
  CHECK_THROWS_AS(unit.issue_run(5, 5, 14), std::logic_error);  // 5 issues by cycle 14 would need cycle 10 again
  CHECK_THROWS_AS(unit.issue_run(5, 4, 15), std::logic_error);  // one a cycle: 5 fma take 5 cycles
  unit.issue_run(5, 5, 15);                                      // cycles 11..15, or later ones with gaps
  CHECK(unit.stats().issued == 6);
  CHECK(unit.stats().busy_cycles == 6);
  CHECK_FALSE(unit.has_slot(15));
  CHECK(unit.has_slot(16));
}

TEST_CASE("a fast-forwarded run on a unit of several fma a cycle counts its cycles and closes its last", "[model][fma]") {
  FmaPipeline unit(3, 4);
  unit.issue(10);
  unit.issue(10);
  CHECK_THROWS_AS(unit.issue_run(13, 3, 13), std::logic_error);  // 3 cycles hold 12 at most
  CHECK_THROWS_AS(unit.issue_run(2, 3, 13), std::logic_error);   // a cycle of the run issues at least one
  CHECK_THROWS_AS(unit.issue_run(9, 3, 12), std::logic_error);   // cycles 10..12 would share cycle 10
  unit.issue_run(9, 3, 13);                                      // cycles 11..13, or later ones with gaps
  CHECK(unit.stats().issued == 11);
  CHECK(unit.stats().busy_cycles == 4);
  CHECK_FALSE(unit.has_slot(13));  // the ordinary issue resumes at the next cycle
  CHECK(unit.has_slot(14));
}

namespace {

MicroProgram accumulating(const std::vector<std::uint32_t>& words, std::uint32_t updates) {
  MicroProgram micro;
  for (const std::uint32_t w : words) micro.instructions.push_back({w, 0, 0, FmaPart::Whole});
  micro.updates_per_word = updates;
  return micro;
}

}  // namespace

TEST_CASE("a compute's schedule: each fma one cycle after the last, or when the word it adds to is usable", "[model][fma]") {
  // One word updated three times, L = 4: issues at 0, 4, 8; after all but the last the word
  // is usable at 4 + 4 and waits for one more update.
  const ComputeSchedule chain = schedule_compute(accumulating({0, 0, 0}, 3), 4, 1);
  CHECK(chain.issue == std::vector<Cycle>{0, 4, 8});
  CHECK(chain.ready_before_last == std::vector<Cycle>{8});
  CHECK(chain.left_before_last == std::vector<std::uint16_t>{1});
  CHECK_FALSE(chain.some_final_before_last);
  // Two words interleaved, L = 3: 0 1 | 3 4 | 6 7; word 0 is final before the last fma.
  const ComputeSchedule pair = schedule_compute(accumulating({0, 1, 0, 1, 0, 1}, 3), 3, 1);
  CHECK(pair.issue == std::vector<Cycle>{0, 1, 3, 4, 6, 7});
  CHECK(pair.ready_before_last == std::vector<Cycle>{9, 7});
  CHECK(pair.left_before_last == std::vector<std::uint16_t>{0, 1});
  CHECK(pair.some_final_before_last);
  // Two fma a cycle, L = 3: each pair shares a cycle (0 0 | 3 3 | 6 6), the last with the one
  // before, so no run ends before it.
  const ComputeSchedule wide = schedule_compute(accumulating({0, 1, 0, 1, 0, 1}, 3), 3, 2);
  CHECK(wide.issue == std::vector<Cycle>{0, 0, 3, 3, 6, 6});
  CHECK(wide.run_cycles == 3);
  CHECK(wide.last_shares_cycle);
  // Two a cycle, L = 2, each word updated twice in a row: 0 | 2 2 | 4 4 | 6, the last alone.
  const ComputeSchedule alone = schedule_compute(accumulating({0, 0, 1, 1, 2, 2}, 2), 2, 2);
  CHECK(alone.issue == std::vector<Cycle>{0, 2, 2, 4, 4, 6});
  CHECK(alone.run_cycles == 2);
  CHECK_FALSE(alone.last_shares_cycle);
  CHECK(alone.ready_before_last == std::vector<Cycle>{4, 6, 6});
  CHECK(alone.left_before_last == std::vector<std::uint16_t>{0, 0, 1});
  // Split complex words have two dependency targets: no schedule, timed fma by fma instead.
  MicroProgram split = accumulating({0, 0, 0}, 3);
  split.components = 2;
  CHECK(schedule_compute(split, 4, 1).issue.empty());
}
