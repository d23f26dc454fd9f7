// The SystemC node's per-step log (models/cycle/step_log.hpp): the tallies the report needs
// are always kept, exactly; the spans only when asked, and read back as never otherwise; the
// bytes counted are those allocated.

#include <catch2/catch.hpp>

#include "models/cycle/step_log.hpp"

using namespace torus;

namespace {

// Step 1: a compute whose fma issue at 10 and from 12 to 15 (a run issued ahead), passed with
// its last result usable at 19, then one at 30 usable at 33; a send of 3 words sent ahead at
// 40 to 42 noted before a single word at 35. Steps 0 and 2: nothing.
void fill(StepLog& log) {
  StepTally& s = log.tally(1);
  StepLog::issued(s, 1, 10);
  StepLog::issued(s, 4, 12);
  log.done(s, 19);
  StepLog::issued(s, 1, 30);
  log.done(s, 33);
  log.sent(s, 3, 40, 42);
  log.sent(s, 1, 35, 35);
}

}  // namespace

TEST_CASE("a step log keeps start, fma and words sent per step, and spans only when asked", "[model][memory]") {
  for (const bool spans : {false, true}) {
    INFO("spans " << spans);
    StepLog log;
    log.allocate(3, spans);
    CHECK(log.keeps_spans() == spans);
    CHECK(log.bytes() == 3 * sizeof(StepTally) + (spans ? 3 * 3 * sizeof(NarrowCycle) : 0));
    CHECK(sizeof(StepTally) == 12);
    fill(log);
    const std::vector<StepRecord> r = log.records();
    REQUIRE(r.size() == 3);
    CHECK(r[1].start == 10);
    CHECK(r[1].fma == 6);
    CHECK(r[1].words_sent == 4);
    CHECK(r[1].done == (spans ? 33 : never));
    CHECK(r[1].first_send == (spans ? 35 : never));
    CHECK(r[1].last_send == (spans ? 42 : never));
    for (const std::size_t g : {0, 2}) {
      CHECK(r[g].start == never);
      CHECK(r[g].fma == 0);
      CHECK(r[g].words_sent == 0);
      CHECK(r[g].done == never);
      CHECK(r[g].first_send == never);
      CHECK(r[g].last_send == never);
    }
  }
}

TEST_CASE("a step log's done is the latest result of the step's tasks, whatever order they pass in", "[model][memory]") {
  StepLog log;
  log.allocate(1, true);
  StepTally& s = log.tally(0);
  log.done(s, 50);
  log.done(s, 20);  // an FFT labelled with the step, passed later with an earlier result
  StepLog::issued(s, 2, 60);
  StepLog::issued(s, 1, 5);  // a later issue never moves the start
  const StepRecord r = log.records()[0];
  CHECK(r.done == 50);
  CHECK(r.start == 60);
  CHECK(r.fma == 3);
}
