// The SystemC node's per-step log (models/cycle/step_log.hpp): the words sent are kept per step,
// the fma and step beginnings go to the run's totals as they happen, exactly as the report
// derives them from per-node records (total_steps); the spans only when asked, and read back as
// never otherwise; the bytes counted are those allocated.

#include <catch2/catch.hpp>

#include "models/cycle/step_log.hpp"

using namespace torus;

namespace {

// Step 1: a compute whose fma issue at 10 and from 12 to 15 (a run issued ahead), passed with
// its last result usable at 19, then one at 30 usable at 33; a send of 3 words sent ahead at
// 40 to 42 noted before a single word at 35. Steps 0 and 2: nothing.
void fill(StepLog& log) {
  log.issued(1, 1, 10);
  log.issued(1, 4, 12);
  log.done(1, 19);
  log.issued(1, 1, 30);
  log.done(1, 33);
  log.sent(1, 3, 40, 42);
  log.sent(1, 1, 35, 35);
}

}  // namespace

TEST_CASE("a step log keeps words sent per step, and spans only when asked", "[model][memory]") {
  for (const bool spans : {false, true}) {
    INFO("spans " << spans);
    StepTotals totals;
    totals.resize(3);
    StepLog log;
    log.allocate(3, spans, totals);
    CHECK(log.keeps_spans() == spans);
    CHECK(log.bytes() == 3 * sizeof(std::uint32_t) + (spans ? 3 * (4 * sizeof(NarrowCycle) + sizeof(std::uint32_t)) : 0));
    fill(log);
    CHECK(totals.fma == std::vector<std::uint64_t>{0, 6, 0});
    const std::vector<StepRecord> r = log.records();
    REQUIRE(r.size() == 3);
    CHECK(r[1].words_sent == 4);
    CHECK(r[1].start == (spans ? 10 : never));
    CHECK(r[1].fma == (spans ? 6 : 0));
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

TEST_CASE("step logs add up to the totals per-node records give, in any order of nodes", "[model][memory]") {
  // Node A: steps 1 and 3 issue (step 3's list reaches past the log's 4 steps of B), finishes
  // at 40. Node B: step 2 first, then an FFT labelled 0 issued later; finishes at 25.
  const auto node_a = [](StepLog& log) {
    log.issued(1, 1, 10);
    log.issued(1, 4, 12);
    log.issued(3, 2, 20);
    log.sent(3, 5, 21, 25);
    log.finish(40);
  };
  const auto node_b = [](StepLog& log) {
    log.issued(2, 3, 5);
    log.issued(0, 1, 9);  // begins nothing: step 0 began with step 2's fma
    log.sent(0, 2, 6, 7);
    log.finish(25);
  };
  StepRecords records;
  records.resize(2, 4);
  std::vector<NodeRecord> nodes(2);
  nodes[0].finish_cycle = 40;
  nodes[1].finish_cycle = 25;
  for (const bool a_first : {true, false}) {
    INFO("node A first " << a_first);
    StepTotals totals;
    totals.resize(4);
    StepLog a, b;
    a.allocate(4, true, totals);
    b.allocate(3, true, totals);
    if (a_first) node_a(a);
    node_b(b);
    if (!a_first) node_a(a);
    totals.note_words(a.words_sent());
    totals.note_words(b.words_sent());
    records.set(0, a.records());
    records.set(1, b.records());
    const StepTotals expected = total_steps(records, nodes, 4);
    // A begins its steps at 10 10 20 20 (lengths 0 10 0 20), B at 5 5 5 25 (0 0 20 0).
    CHECK(totals.start_min == std::vector<Cycle>{5, 5, 5, 20});
    CHECK(totals.start_max == std::vector<Cycle>{10, 10, 20, 25});
    CHECK(totals.length_min == std::vector<Cycle>{0, 0, 0, 0});
    CHECK(totals.length_max == std::vector<Cycle>{0, 10, 20, 20});
    CHECK(totals.fma == std::vector<std::uint64_t>{1, 5, 3, 2});
    CHECK(totals.words_min == std::vector<std::uint32_t>{0, 0, 0, 0});
    CHECK(totals.words_max == std::vector<std::uint32_t>{2, 0, 0, 5});
    CHECK(totals.start_min == expected.start_min);
    CHECK(totals.start_max == expected.start_max);
    CHECK(totals.length_min == expected.length_min);
    CHECK(totals.length_max == expected.length_max);
    CHECK(totals.fma == expected.fma);
    CHECK(totals.words_min == expected.words_min);
    CHECK(totals.words_max == expected.words_max);
  }
}

TEST_CASE("a step log refuses fma noted out of cycle order", "[model][memory]") {
  StepTotals totals;
  totals.resize(2);
  StepLog log;
  log.allocate(2, false, totals);
  log.issued(0, 1, 30);
  CHECK_THROWS_AS(log.issued(1, 1, 20), std::logic_error);
}

TEST_CASE("a step log refuses a task labelled past the run's steps", "[model][memory]") {
  StepTotals totals;
  totals.resize(2);
  StepLog log;
  CHECK_NOTHROW(log.allocate(2, false, totals));
  CHECK_THROWS_AS(log.allocate(3, false, totals), std::invalid_argument);  // a label 2: no room in the totals
}

TEST_CASE("a step log's done is the latest result of the step's tasks, whatever order they pass in", "[model][memory]") {
  StepTotals totals;
  totals.resize(1);
  StepLog log;
  log.allocate(1, true, totals);
  log.done(0, 50);
  log.done(0, 20);  // an FFT labelled with the step, passed later with an earlier result
  log.issued(0, 2, 60);
  log.issued(0, 1, 65);
  const StepRecord r = log.records()[0];
  CHECK(r.done == 50);
  CHECK(r.start == 60);
  CHECK(r.fma == 3);
}
