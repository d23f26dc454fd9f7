// The non-SystemC timing pieces: rates, machine parameters, micro-programs, analytic formulas.

#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "sim/analytic_model.hpp"
#include "sim/machine_config.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/rational.hpp"

using namespace torus;

TEST_CASE("rates parse as exact reduced rationals", "[sim][rational]") {
  CHECK(Rational::parse("1/8", "w") == Rational{1, 8});
  CHECK(Rational::parse("0.125", "w") == Rational{1, 8});
  CHECK(Rational::parse("6/4", "w") == Rational{3, 2});
  CHECK(Rational::parse("2", "w").to_string() == "2");
  for (const char* bad : {"0", "-1", "1/0", "abc", "1/", "0.0000001", "2000000"})
    CHECK_THROWS_WITH(Rational::parse(bad, "link_words_per_cycle"), Catch::Contains("link_words_per_cycle: '"));
}

TEST_CASE("machine parameters are declared with ranges and refuse bad values", "[sim][parameters]") {
  MachineConfig m;
  ParameterSet set;
  m.declare(set);
  CHECK_THROWS_WITH(set.set("fma_latency", "0"), Catch::Contains("fma_latency: '0'") && Catch::Contains("from 1"));
  CHECK_THROWS_WITH(set.set("complex_fma_cost", "2"), Catch::Contains("allowed: 4, 1"));
  CHECK_THROWS_WITH(set.set("link_buffer_words", "0"), Catch::Contains("'auto' or a whole number"));
  CHECK_THROWS_WITH(set.set("roll_policy", "overlaped"), Catch::Contains("did you mean 'overlapped'"));
  CHECK_THROWS_WITH(set.set("clock_hz", "fast"), Catch::Contains("clock_hz: 'fast'"));
  set.set("link_words_per_cycle", "1/8");
  CHECK(m.link_rate() == Rational{1, 8});
  CHECK(m.link_buffer(4) == 128);
  for (const auto& spec : set.specs()) {
    CHECK_FALSE(spec.description.empty());
    CHECK_FALSE(spec.allowed.empty());
  }
}

TEST_CASE("every micro-schedule gives each accumulator word its b updates in reduction order", "[sim][micro]") {
  for (const std::string& name : micro_schedule_names())
    for (int mode = 1; mode <= 3; ++mode)
      for (const bool split : {false, true}) {
        const std::size_t b = 3;
        const MicroProgram program = make_micro_schedule(name)->build(mode, b, split);
        INFO(name << " mode " << mode << " split " << split);
        REQUIRE(program.instructions.size() == b * b * b * b * (split ? 4 : 1));
        // Per target, the sequence of (reduction, part) must be the same for every schedule:
        // r ascending, and per r the real-unit parts in the order re: 0 then 2, im: 1 then 3.
        std::map<std::uint32_t, std::vector<std::pair<std::uint32_t, int>>> updates;
        for (const FmaInstruction& i : program.instructions)
          updates[program.target(i)].push_back({i.operand, static_cast<int>(i.part)});
        CHECK(updates.size() == b * b * b * program.components);
        for (const auto& [target, sequence] : updates) CHECK(sequence.size() == b * (split ? 2 : 1));
        CHECK(program.operand_first_use.size() == b * b * b);
        CHECK(program.coefficient_first_use.size() == b * b);
      }
}

TEST_CASE("operand and coefficient words follow the mode's contraction", "[sim][micro]") {
  // b = 2, accumulator word e = 5 is (i, j, k) = (1, 0, 1); reduction r = 1.
  CHECK(operand_word(1, 2, 5, 1) == 1 + 2 * (0 + 2 * 1));  // (r, j, k)
  CHECK(operand_word(2, 2, 5, 1) == 1 + 2 * (1 + 2 * 1));  // (i, r, k)
  CHECK(operand_word(3, 2, 5, 1) == 1 + 2 * (0 + 2 * 1));  // (i, j, r)
  CHECK(coefficient_word(1, 2, 5, 1) == 1 + 2 * 1);        // C(r, i)
  CHECK(coefficient_word(2, 2, 5, 1) == 1 + 2 * 0);        // C(r, j)
  CHECK(coefficient_word(3, 2, 5, 1) == 1 + 2 * 1);        // C(r, k)
}

TEST_CASE("analytic compute span matches the hand derivation", "[sim][analytic]") {
  MachineConfig m;
  ParameterSet set;
  m.declare(set);
  set.set("fma_latency", "4");
  CHECK(compute_span(m, 4, false) == 255 + 4);  // interleaved, b^3 = 64 >= L: b^4 issues in a row
  set.set("fma_latency", "100");
  CHECK(compute_span(m, 2, false) == 1 * 100 + 7 + 100);  // b^3 = 8 < L: rounds start L apart
  set.set("fma_latency", "4");
  set.set("micro_schedule", "chained");
  CHECK(compute_span(m, 2, false) == 8 * (1 * 4 + 1) - 1 + 4);  // 8 chains of 2
  set.set("fma_per_cycle", "2");
  set.set("micro_schedule", "interleaved");
  CHECK(compute_span(m, 4, false) == 127 + 4);  // two issues per cycle
}

TEST_CASE("analytic after_compute prediction and its exactness conditions", "[sim][analytic]") {
  MachineConfig m;
  ParameterSet set;
  m.declare(set);
  set.set("fma_latency", "4");
  set.set("link_latency", "3");
  const AnalyticPrediction a = predict_cycles(m, {2, 2, 1, false, false});
  CHECK(a.cycles == 6 * (19 + 7 + 3));
  CHECK(a.exact);
  set.set("link_buffer_words", "8");  // fewer than 2 b^3 = 16: credits may stall
  CHECK_FALSE(predict_cycles(m, {2, 2, 1, false, false}).exact);
}
