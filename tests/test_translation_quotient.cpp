// The orbital Program's translation quotient: node (0,0,0)'s task list, built alone, is every
// node's task list in the whole Program up to block indices, which is what lets the event
// engine time one node for the torus. Checked against the whole Program for every scheduling
// vector and direction on small tori, and the verifier's rules for quotients.

#include <catch2/catch.hpp>

#include "sim/algorithm.hpp"
#include "sim/program_verifier.hpp"
#include "transform_matrices.hpp"

using namespace torus;

namespace {

// What timing can depend on: the task's kind, its buffers, kernel and step labels, and for a
// send or receive the words and route of its message. Block indices are left out.
std::string timing_skeleton(const Program& program, const NodeProgram& node, const Task& t) {
  const bool detailed = t.kind != TaskKind::Send && t.kind != TaskKind::Receive;
  const TaskDetail d = detailed ? node.detail(t) : TaskDetail{};
  std::string out = to_string(t.kind) + " b" + std::to_string(t.buffer) + " o" + std::to_string(d.operand) + " c" +
                    std::to_string(d.coefficient) + " k" + std::to_string(d.kernel) + " z" +
                    std::to_string(t.zero_accumulator) + " kinds" + std::to_string(d.tag.kind) + "," +
                    std::to_string(d.operand_tag.kind) + "," + std::to_string(d.coefficient_tag.kind) + " step" +
                    std::to_string(t.label.global_step) + "/" + std::to_string(t.label.stage) + "/" +
                    std::to_string(t.label.step) + "/" + std::to_string(t.label.transform);
  if (t.kind == TaskKind::Send || t.kind == TaskKind::Receive) {
    const Message& m = program.messages[t.message];
    out += " words" + std::to_string(m.words) + " route";
    for (const Direction hop : program.route(m)) out += to_string(hop);
  }
  return out;
}

// The quotient `algorithm` builds for `pr` is, up to block indices, every node's task list of
// the whole Program, with the same buffers, and counts the same work.
void check_quotient(const Algorithm& algorithm, const TransformProblem& pr) {
  const Program whole = algorithm.build(pr);
  const Program quotient = algorithm.build_quotient(pr);
  REQUIRE(quotient.translation_quotient);
  REQUIRE(quotient.nodes.size() == 1);
  CHECK(quotient.nodes_represented() == whole.nodes.size());
  const ProgramVerification verified = verify_program(quotient, 1);
  INFO((verified.ok() ? std::string() : to_string(quotient, verified.violations.front())));
  CHECK(verified.ok());
  const NodeProgram& one = quotient.nodes.front();
  for (std::size_t n = 0; n < whole.nodes.size(); ++n) {
    const NodeProgram& node = whole.nodes[n];
    REQUIRE(node.tasks.size() == one.tasks.size());
    REQUIRE(node.buffers.size() == one.buffers.size());
    for (std::size_t b = 0; b < node.buffers.size(); ++b) CHECK(node.buffers[b].words == one.buffers[b].words);
    for (std::size_t k = 0; k < node.tasks.size(); ++k)
      if (timing_skeleton(whole, node, node.tasks[k]) != timing_skeleton(quotient, one, one.tasks[k])) {
        INFO("node " << n << " task " << k);
        CHECK(timing_skeleton(whole, node, node.tasks[k]) == timing_skeleton(quotient, one, one.tasks[k]));
      }
  }
  for (const Message& m : quotient.messages) {
    CHECK(m.source == 0);
    CHECK(m.destination == 0);
  }
  CHECK(count(whole, 0).compute_tasks == count(quotient, 0).compute_tasks);
  CHECK(count(whole, 0).scalar_multiply_adds == count(quotient, 0).scalar_multiply_adds);
  CHECK(count(whole, 0).hops == count(quotient, 0).hops);
}

}  // namespace

TEST_CASE("the orbital quotient is every node's task list of the whole Program, up to block indices", "[quotient]") {
  const auto orbital = make_algorithm("orbital");
  REQUIRE(orbital->translation_invariant(cube_problem(2, 2, "+++", {TransformDirection::Forward})));
  using D = TransformDirection;
  for (int p = 1; p <= 4; ++p)
    for (const std::string alpha : {"+++", "++-", "+-+", "+--", "-++", "-+-", "--+", "---"})
      for (const auto& directions : {std::vector<D>{D::Forward}, std::vector<D>{D::Inverse}, std::vector<D>{D::Forward, D::Inverse}}) {
        INFO("P=" << p << " alpha " << alpha << " transforms " << directions.size());
        check_quotient(*orbital, cube_problem(p, p == 3 ? 1 : 2, alpha, directions));
      }
}

TEST_CASE("the local-coefficient quotient is every node's task list too, on any P1 x P2 x P3 with even blocks", "[quotient]") {
  const auto local = make_algorithm("orbital_local_coefficients");
  using D = TransformDirection;
  for (const auto& [n, p] : std::vector<std::pair<Extents3, std::array<std::size_t, 3>>>{
           {{4, 6, 8}, {2, 3, 4}}, {{8, 4, 2}, {4, 2, 1}}, {{3, 3, 5}, {3, 3, 5}}, {{2, 2, 2}, {1, 1, 1}}})
    for (const std::string alpha : {"+++", "-+-", "--+"})
      for (const auto& directions : {std::vector<D>{D::Forward}, std::vector<D>{D::Inverse}, std::vector<D>{D::Forward, D::Inverse}}) {
        const TransformProblem pr{{static_cast<int>(p[0]), static_cast<int>(p[1]), static_cast<int>(p[2])}, BlockGrid::make(n, p),
                                  SchedulingVector::parse(alpha), directions};
        INFO("P=" << p[0] << "x" << p[1] << "x" << p[2] << " alpha " << alpha << " transforms " << directions.size());
        REQUIRE(local->translation_invariant(pr));
        check_quotient(*local, pr);
      }
  const TransformProblem uneven{{4, 3, 2}, BlockGrid::make({10, 10, 10}, {4, 3, 2}), {}, {D::Forward}};
  CHECK_FALSE(local->translation_invariant(uneven));
}

TEST_CASE("the verifier holds a quotient to one node and to messages that move", "[quotient][verifier]") {
  const auto orbital = make_algorithm("orbital");
  const TransformProblem pr = cube_problem(3, 1, "+++", {TransformDirection::Forward});
  SECTION("a message with no route") {
    Program q = orbital->build_quotient(pr);
    q.messages.front().hops = 0;
    const ProgramVerification r = verify_program(q, 8);
    REQUIRE(!r.ok());
    CHECK(to_string(q, r.violations.front()).find("empty route in a translation quotient") != std::string::npos);
  }
  SECTION("more than one node") {
    Program q = orbital->build_quotient(pr);
    q.nodes.push_back(q.nodes.front());
    const ProgramVerification r = verify_program(q, 8);
    REQUIRE(!r.ok());
    CHECK(to_string(q, r.violations.front()).find("a translation quotient has one node; this one has 2") != std::string::npos);
  }
  SECTION("a whole Program that claims to be a quotient") {
    Program whole = orbital->build(pr);
    whole.translation_quotient = true;
    CHECK(!verify_program(whole, 8).ok());
  }
}
