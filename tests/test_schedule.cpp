// The schedule generator and the verifier: legal schedules pass, broken ones are caught with
// a diagnostic that names stage, step, node and block.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "sim/schedule.hpp"
#include "sim/verifier.hpp"

using namespace torus;

namespace {

std::string schedule_violations(const VerificationReport& r) {
  std::string out;
  for (const auto& v : r.violations) out += to_string(v) + "\n";
  return out;
}

}  // namespace

TEST_CASE("every generated schedule is legal for every alpha, direction and P", "[sim][verifier]") {
  const int p = GENERATE(1, 2, 3, 4, 5, 8);
  const auto direction = GENERATE(TransformDirection::Forward, TransformDirection::Inverse);
  for (const SchedulingVector& alpha : all_scheduling_vectors()) {
    const Schedule s = generate_schedule(TorusShape::cube(p), 2, alpha, direction);
    const VerificationReport r = verify_schedule(s);
    INFO("P=" << p << " alpha=" << alpha.to_string() << " " << to_string(direction) << "\n" << schedule_violations(r));
    CHECK(r.ok());
    const std::size_t p4 = static_cast<std::size_t>(p) * p * p * p;
    CHECK(r.block_multiply_adds_checked == 3 * p4);
    CHECK(r.rolls_checked == 3 * 2 * static_cast<std::size_t>(p));
  }
}

TEST_CASE("schedule counts are those the paper derives", "[sim][schedule]") {
  const int p = GENERATE(1, 2, 3, 5);
  const std::size_t b = GENERATE(1, 2, 3);
  const auto direction = GENERATE(TransformDirection::Forward, TransformDirection::Inverse);
  const Schedule s = generate_schedule(TorusShape::cube(p), b, SchedulingVector::parse("-+-"), direction);
  const ScheduleCounts c = count(s);
  const std::size_t n = b * static_cast<std::size_t>(p);
  CHECK(c.steps == 3 * static_cast<std::size_t>(p));
  CHECK(c.block_multiply_adds == 3 * static_cast<std::size_t>(p * p * p * p));
  CHECK(c.scalar_multiply_adds == 3 * n * n * n * n);
  CHECK(c.words_held_per_node == 4 * b * b * b + 3 * b * b);
  const std::size_t light = b * b * b + b * b, heavy = 2 * b * b * b;
  const bool forward = direction == TransformDirection::Forward;
  CHECK(c.stage[0].words_moved_per_node_step == (forward ? light : heavy));
  CHECK(c.stage[1].words_moved_per_node_step == heavy);
  CHECK(c.stage[2].words_moved_per_node_step == (forward ? heavy : light));
}

TEST_CASE("the forward output is skewed and the inverse returns to canonical", "[sim][schedule]") {
  const int p = 4;
  const SchedulingVector alpha = SchedulingVector::parse("+-+");
  const Schedule forward = generate_schedule(TorusShape::cube(p), 1, alpha, TransformDirection::Forward);
  for (const Placement& place : final_layout(forward)) {
    // Output block (K1,K2,K3) lives at Q = K2, S = K1, R = aR (K3 - aQ K2 - aS K1) mod P.
    const auto& k = place.block.index;
    CHECK(place.block.kind == BlockKind::Y);
    CHECK(place.node.q == k[1]);
    CHECK(place.node.s == k[0]);
    CHECK(place.node.r == ((alpha.sign[1] * (k[2] - alpha.sign[0] * k[1] - alpha.sign[2] * k[0])) % p + p) % p);
  }
  const Schedule inverse = generate_schedule(TorusShape::cube(p), 1, alpha, TransformDirection::Inverse);
  for (const Placement& place : final_layout(inverse))
    CHECK(place.block == BlockId{BlockKind::X, {place.node.q, place.node.r, place.node.s}});
  // The inverse starts where the forward ends.
  for (const Placement& place : inverse.initial)
    if (place.block.kind == BlockKind::Y) {
      bool found = false;
      for (const Placement& end : final_layout(forward)) found = found || (end.node == place.node && end.block == place.block);
      CHECK(found);
    }
}

TEST_CASE("a wrong roll direction is caught", "[sim][verifier][broken]") {
  Schedule s = generate_schedule(TorusShape::cube(3), 1, SchedulingVector::parse("+++"), TransformDirection::Forward);
  for (ScheduleStep& step : s.stages[1].steps) step.rolls[0].direction = Direction::MinusQ;  // X'' must go +Q
  const VerificationReport r = verify_schedule(s);
  REQUIRE_FALSE(r.ok());
  const Violation& v = r.violations.front();
  CHECK(v.stage == 2);
  CHECK(v.step == 1);
  CHECK(v.block.rfind("X''(", 0) == 0);
  CHECK_THAT(v.message, Catch::Contains("needed but the node holds X''"));
}

TEST_CASE("on a mesh the schedule's rings still close: its rolls reach the ring's next node", "[sim][verifier]") {
  // The schedule is index algebra on rings; a Program routes the roll across a mesh edge the
  // long way (sim/geometry.hpp, ring_route), so the proof is the torus's.
  for (const TransformDirection d : {TransformDirection::Forward, TransformDirection::Inverse}) {
    Schedule s = generate_schedule(TorusShape::cube(3, Topology::Mesh), 1, SchedulingVector::parse("+-+"), d);
    const VerificationReport r = verify_schedule(s);
    CHECK(r.ok());
    CHECK(r.rolls_checked == 3 * 3 * 2);
  }
}

TEST_CASE("a mixed sign between time function and rolls is caught", "[sim][verifier][broken]") {
  // Blocks labelled with alpha = +-+ but rolled as alpha = +++ would roll them.
  Schedule s = generate_schedule(TorusShape::cube(4), 1, SchedulingVector::parse("+-+"), TransformDirection::Inverse);
  const Schedule rolls_from = generate_schedule(TorusShape::cube(4), 1, SchedulingVector::parse("+++"), TransformDirection::Inverse);
  for (std::size_t st = 0; st < 3; ++st)
    for (std::size_t t = 0; t < s.stages[st].steps.size(); ++t) s.stages[st].steps[t].rolls = rolls_from.stages[st].steps[t].rolls;
  const VerificationReport r = verify_schedule(s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.violations.front().stage == 1);  // inverse stage I rolls Y along R
  CHECK(r.violations.front().step == 1);
  CHECK(r.violations.front().block.rfind("Y(", 0) == 0);
}

TEST_CASE("a missing, doubled or wrong multiply-add is caught", "[sim][verifier][broken]") {
  const Schedule good = generate_schedule(TorusShape::cube(2), 1, SchedulingVector::parse("-++"), TransformDirection::Forward);
  SECTION("missing op") {
    Schedule s = good;
    s.stages[2].steps[1].ops.pop_back();
    const VerificationReport r = verify_schedule(s);
    REQUIRE_FALSE(r.ok());
    CHECK(r.violations.front().stage == 3);
    CHECK_THAT(r.violations.front().message, Catch::Contains("performs 0 block multiply-adds"));
    CHECK_THAT(schedule_violations(r), Catch::Contains("performed 15 distinct block multiply-adds; P^4 = 16 needed"));
  }
  SECTION("doubled op") {
    Schedule s = good;
    s.stages[0].steps[1].ops[0] = s.stages[0].steps[0].ops[0];
    const VerificationReport r = verify_schedule(s);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(schedule_violations(r), Catch::Contains("already done at step 0"));
    CHECK_THAT(schedule_violations(r), Catch::Contains("performed 15 distinct block multiply-adds"));
  }
  SECTION("doubled op on an accumulator outside the torus: counted apart, caught the same") {
    Schedule s = good;
    s.stages[0].steps[0].ops[0].accumulator.index[0] = 7;
    s.stages[0].steps[1].ops[0] = s.stages[0].steps[0].ops[0];
    const VerificationReport r = verify_schedule(s);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(schedule_violations(r), Catch::Contains("already done at step 0"));
    // The two ops on the stray block count once: 14 on the torus (of which one doubled away) and it.
    CHECK_THAT(schedule_violations(r), Catch::Contains("performed 15 distinct block multiply-adds"));
  }
  SECTION("wrong coefficient block") {
    Schedule s = good;
    s.stages[1].steps[0].ops[3].coefficient.index[1] ^= 1;
    const VerificationReport r = verify_schedule(s);
    REQUIRE_FALSE(r.ok());
    CHECK(r.violations.front().stage == 2);
    CHECK(r.violations.front().step == 0);
    CHECK_THAT(r.violations.front().message, Catch::Contains("does not map"));
  }
  SECTION("stage order swapped: operand used before it is complete") {
    Schedule s = good;
    std::swap(s.stages[1], s.stages[2]);
    const VerificationReport r = verify_schedule(s);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(schedule_violations(r), Catch::Contains("before its accumulation is complete"));
  }
}

TEST_CASE("schedules print as text and JSON", "[sim][schedule]") {
  const Schedule s = generate_schedule(TorusShape::cube(2), 3, SchedulingVector::parse("+++"), TransformDirection::Forward);
  const std::string text = format_text(s);
  CHECK_THAT(text, Catch::Contains("forward schedule: N=6 P=2 b=3 alpha=+++"));
  CHECK_THAT(text, Catch::Contains("stage I: n3 -> k3") && Catch::Contains("rolls X' +S C3 +Q"));
  CHECK_THAT(text, Catch::Contains("(1,0,0) X'(1,0,1) += X(1,0,0) x3 C3(0,1)"));
  const nlohmann::json j = to_json(s);
  CHECK(j["stages"].size() == 3);
  CHECK(j["stages"][0]["steps"][0]["ops"].size() == 8);
  CHECK(j["stages"][2]["steps"][1]["rolls"][0]["direction"] == "+R");
}

TEST_CASE("schedule generation refuses non-cubic tori", "[sim][schedule][errors]") {
  CHECK_THROWS_WITH(generate_schedule(TorusShape{2, 2, 3}, 1, {}, TransformDirection::Forward),
                    Catch::Contains("cubic torus") && Catch::Contains("2x2x3"));
  CHECK_THROWS_WITH(generate_schedule(TorusShape::cube(2), 0, {}, TransformDirection::Forward), Catch::Contains("b:"));
}
