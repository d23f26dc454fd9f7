// The non-SystemC timing pieces: rates, machine parameters, micro-programs, analytic formulas.

#include <catch2/catch.hpp>

#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <random>
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

TEST_CASE("rates refuse signs, stray characters and overflow instead of misreading them", "[sim][rational][errors]") {
  // Each was once accepted: as 0.5, 0.95, and 2 (after the whole part times 10 overflowed).
  const auto error = [](const char* text) {
    try {
      Rational::parse(text, "link_words_per_cycle");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK_THAT(error("-0.5"), Catch::StartsWith("link_words_per_cycle: '-0.5' is not allowed (not a plain number: no sign"));
  CHECK_THAT(error("1.-5"), Catch::StartsWith("link_words_per_cycle: '1.-5' is not allowed (not a plain number"));
  CHECK_THAT(error("1844674407370955163.6"), Catch::StartsWith("link_words_per_cycle: '1844674407370955163.6' is not allowed (too large)"));
  CHECK_THAT(error("99999999999999999999"), Catch::Contains("(too large)"));
  for (const char* bad : {"+1", "1/-8", "-1/-8", "1/+8", " 1", "1 ", "1e3", "0x10", "1.", ".", "1/8.0", "1..5", "1/0"})
    CHECK_THAT(error(bad), Catch::Contains("allowed: a positive number such as 2, 1/8 or 0.125"));
  CHECK_THAT(error("1/0"), Catch::Contains("(a denominator of zero)"));
  CHECK_THAT(error("0.0"), Catch::Contains("(zero is not positive)"));
  CHECK(Rational::parse(".5", "w") == Rational{1, 2});
  CHECK(Rational::parse("1000000", "w") == Rational{1000000, 1});
  CHECK(Rational::parse("0.000001", "w") == Rational{1, 1000000});
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
  CHECK(m.link_buffer(64) == 128);  // auto: twice the largest block (b = 4: 2 b^3)
  for (const auto& spec : set.specs()) {
    CHECK_FALSE(spec.description.empty());
    CHECK_FALSE(spec.allowed.empty());
  }
}

namespace {

using Update = std::pair<std::size_t, FmaPart>;  // (reduction index r, part)

// What each dependency target must receive, in order: r ascending and, per r, the parts of a
// component in the fixed order re: 0 then 2, im: 1 then 3 (micro_schedule.hpp).
std::vector<Update> expected_updates(std::size_t b, bool split, bool imaginary) {
  std::vector<Update> out;
  for (std::size_t r = 0; r < b; ++r) {
    if (!split) out.emplace_back(r, FmaPart::Whole);
    else if (imaginary) out.insert(out.end(), {{r, FmaPart::RealImag}, {r, FmaPart::ImagReal}});
    else out.insert(out.end(), {{r, FmaPart::RealReal}, {r, FmaPart::ImagImag}});
  }
  return out;
}

// Runs a micro-program on fixed random words with one rounding per fma, as a node's unit does:
// a split complex multiply-add as four real fma, a whole one as one complex multiply-add.
std::vector<std::complex<double>> execute(const MicroProgram& program, std::size_t b) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const auto random_words = [&](std::size_t count) {
    std::vector<std::complex<double>> words(count);
    for (auto& w : words) w = {uniform(rng), uniform(rng)};
    return words;
  };
  const auto operand = random_words(b * b * b), coefficient = random_words(b * b);
  std::vector<std::complex<double>> acc(b * b * b);
  for (const FmaInstruction& i : program.instructions) {
    const std::complex<double> a = operand[i.operand], c = coefficient[i.coefficient];
    std::complex<double>& y = acc[i.accumulator];
    switch (i.part) {
      case FmaPart::Whole: y += a * c; break;
      case FmaPart::RealReal: y.real(std::fma(a.real(), c.real(), y.real())); break;
      case FmaPart::ImagImag: y.real(std::fma(-a.imag(), c.imag(), y.real())); break;
      case FmaPart::RealImag: y.imag(std::fma(a.real(), c.imag(), y.imag())); break;
      case FmaPart::ImagReal: y.imag(std::fma(a.imag(), c.real(), y.imag())); break;
    }
  }
  return acc;
}

}  // namespace

TEST_CASE("every micro-schedule gives each accumulator word its b updates in reduction order", "[sim][micro]") {
  const std::size_t b = 3;
  for (int mode = 1; mode <= 3; ++mode)
    for (const bool split : {false, true}) {
      std::vector<std::vector<std::complex<double>>> results;
      for (const std::string& name : micro_schedule_names()) {
        const MicroProgram program = make_micro_schedule(name)->build(cube_kernel(mode, b), split);
        INFO(name << " mode " << mode << " split " << split);
        REQUIRE(program.instructions.size() == b * b * b * b * (split ? 4 : 1));
        std::map<std::uint32_t, std::vector<Update>> updates;
        for (const FmaInstruction& i : program.instructions) {
          const std::size_t r = i.coefficient % b;  // coefficient word = r + b * output index
          CHECK(i.operand == operand_word(cube_kernel(mode, b), i.accumulator, r));
          CHECK(i.coefficient == coefficient_word(cube_kernel(mode, b), i.accumulator, r));
          updates[program.target(i)].emplace_back(r, i.part);
        }
        CHECK(updates.size() == b * b * b * program.components);
        for (const auto& [target, sequence] : updates)
          CHECK(sequence == expected_updates(b, split, split && target % 2 == 1));
        CHECK(program.operand_first_use.size() == b * b * b);
        CHECK(program.coefficient_first_use.size() == b * b);
        results.push_back(execute(program, b));
      }
      // The same updates in the same order per word: the same bits, whatever the schedule.
      INFO("mode " << mode << " split " << split);
      for (std::size_t s = 1; s < results.size(); ++s)
        CHECK(std::memcmp(results[s].data(), results[0].data(), results[0].size() * sizeof(results[0][0])) == 0);
    }
}

TEST_CASE("operand and coefficient words follow the mode's contraction", "[sim][micro]") {
  // b = 2, accumulator word e = 5 is (i, j, k) = (1, 0, 1); reduction r = 1.
  CHECK(operand_word(cube_kernel(1, 2), 5, 1) == 1 + 2 * (0 + 2 * 1));  // (r, j, k)
  CHECK(operand_word(cube_kernel(2, 2), 5, 1) == 1 + 2 * (1 + 2 * 1));  // (i, r, k)
  CHECK(operand_word(cube_kernel(3, 2), 5, 1) == 1 + 2 * (0 + 2 * 1));  // (i, j, r)
  CHECK(coefficient_word(cube_kernel(1, 2), 5, 1) == 1 + 2 * 1);        // C(r, i)
  CHECK(coefficient_word(cube_kernel(2, 2), 5, 1) == 1 + 2 * 0);        // C(r, j)
  CHECK(coefficient_word(cube_kernel(3, 2), 5, 1) == 1 + 2 * 1);        // C(r, k)
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
  const AnalyticPrediction a = predict_cycles(m, {2, 2, 1, false, false, {}, {}});
  CHECK(a.cycles == 6 * (19 + 7 + 3));
  CHECK(a.exact);
  set.set("link_buffer_words", "8");  // fewer than 2 b^3 = 16: credits may stall
  CHECK_FALSE(predict_cycles(m, {2, 2, 1, false, false, {}, {}}).exact);
}

TEST_CASE("link_bytes_per_cycle sets the words per cycle from the word size", "[sim][parameters]") {
  MachineConfig m;
  m.link_words_per_cycle = std::string{"3"};  // moved in: GCC 12 misreads assigning a literal here (-Wrestrict)
  CHECK(m.for_word_bytes(8).link_words_per_cycle == "3");  // not set: words per cycle as given
  m.link_bytes_per_cycle = "1/2";  // Blue Gene/P: 425 MB/s at 850 MHz
  CHECK(m.for_word_bytes(8).link_rate() == Rational{1, 16});   // real double
  CHECK(m.for_word_bytes(4).link_rate() == Rational{1, 8});    // real float
  CHECK(m.for_word_bytes(16).link_rate() == Rational{1, 32});  // complex double
  m.link_bytes_per_cycle = "24";
  CHECK(m.for_word_bytes(16).link_rate() == Rational{3, 2});
  ParameterSet set;
  m.declare(set);
  CHECK_THROWS_WITH(set.set("link_bytes_per_cycle", "0"), Catch::Contains("link_bytes_per_cycle"));
  CHECK_THROWS_WITH(set.set("link_bytes_per_cycle", "fast"), Catch::Contains("link_bytes_per_cycle"));
}
