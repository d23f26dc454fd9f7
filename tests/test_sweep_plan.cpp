// The sweep plan against the plain way of making its points (a fresh parameter set per point,
// the scenario read again, the swept values and overrides set on it), and the table's pace.

#include <catch2/catch.hpp>

#include <fstream>

#include "sim/parameter_bundle.hpp"
#include "sim/scenario.hpp"
#include "sim/sweep_cost.hpp"
#include "sim/sweep_plan.hpp"
#include "sim/sweep_table.hpp"
#include "tests/temp_dir.hpp"

using namespace torus;

namespace {

Settings fresh_parameters(const std::string& scenario, const Settings& point) {
  ParameterBundle bundle;
  load_scenario(scenario, bundle.set);
  for (const auto& [key, value] : point) bundle.set.set(key, value);
  Settings values;
  for (const auto& spec : bundle.set.specs()) values.emplace_back(spec.key, spec.current());
  return values;
}

std::size_t lines_in(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace

TEST_CASE("the sweep plan gives each point the parameters a fresh load gives it", "[sweep][plan]") {
  TempDir dir;
  std::ofstream(dir.file("machine.yaml")) << "fma_latency: 3\nlink_latency: 2\n";
  const std::string scenario = dir.file("s.yaml");
  std::ofstream(scenario) << "include: machine.yaml\ntransform: dft\nsweep:\n  N: [4, 6, 8]\n  P: [1, 2, 3]\n"
                             "  fma_latency: ['04', 2]\n  roll_policy: [after_compute, overlapped]\n";
  const Settings overrides = {{"seed", "7"}, {"link_latency", "5"}};
  std::vector<std::string> warnings;
  const SweepPlan plan(scenario, overrides, [&](const std::string& w) { warnings.push_back(w); });
  CHECK(warnings.empty());

  ParameterBundle bundle;
  std::size_t point = 0, dropped = 0;
  for (auto combination : sweep_points(load_scenario(scenario, bundle.set))) {
    combination.insert(combination.end(), overrides.begin(), overrides.end());
    const Settings expected = fresh_parameters(scenario, combination);
    const auto value = [&](const char* key) {
      for (const auto& [k, v] : expected)
        if (k == key) return std::stoll(v);
      return 0LL;
    };
    if (value("N") % value("P") != 0) {
      ++dropped;
      continue;
    }
    REQUIRE(point < plan.size());
    CHECK(plan.parameters(point) == expected);
    CHECK(fresh_parameters(scenario, plan.overrides(point)) == expected);  // what the point's run will see
    ++point;
  }
  CHECK(plan.size() == point);
  CHECK(plan.dropped() == dropped);
  CHECK(point == (2 + 3 + 2) * 2 * 2);  // P = 1, 2 at N = 4; 1, 2, 3 at N = 6; 1, 2 at N = 8
  CHECK(plan.fingerprint(0) != plan.fingerprint(1));
}

TEST_CASE("the sweep plan warns when an override hides a swept parameter", "[sweep][plan]") {
  TempDir dir;
  const std::string scenario = dir.file("s.yaml");
  std::ofstream(scenario) << "N: 8\nsweep:\n  P: [1, 2, 4]\n";
  std::vector<std::string> warnings;
  const SweepPlan plan(scenario, {{"P", "2"}}, [&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "-p P=2 overrides the swept parameter P: its 3 values in the scenario are not used");
  for (std::size_t i = 0; i < plan.size(); ++i) {
    CHECK(fresh_parameters(scenario, plan.overrides(i)) == plan.parameters(i));
    // A point's run refuses a key given twice, so the hidden axis is not passed beside the override.
    CHECK(plan.overrides(i) == Settings{{"P", "2"}});
  }
}

TEST_CASE("sweep tables hold the rows in point order and are rewritten at most once a second", "[sweep][table]") {
  TempDir dir;
  SweepTable table(dir.path().string());
  const auto row = [](std::size_t point) {
    nlohmann::ordered_json r;
    r["point"] = point;
    r["note"] = "a, \"quoted\" value";
    return r;
  };
  const auto t0 = SweepTable::Clock::now();
  table.add(2, row(2));
  table.write_if_due(t0);
  CHECK(lines_in(dir.file("results.jsonl")) == 1);
  table.add(0, row(0));
  table.write_if_due(t0 + std::chrono::milliseconds(999));
  CHECK(lines_in(dir.file("results.jsonl")) == 1);  // too soon
  table.add(1, row(1));
  table.write_if_due(t0 + std::chrono::milliseconds(1000));
  std::ifstream csv(dir.file("results.csv"));
  const std::string text((std::istreambuf_iterator<char>(csv)), std::istreambuf_iterator<char>());
  CHECK(text == "point,note\n0,\"a, \"\"quoted\"\" value\"\n1,\"a, \"\"quoted\"\" value\"\n2,\"a, \"\"quoted\"\" value\"\n");
  CHECK(lines_in(dir.file("results.jsonl")) == 3);
}

TEST_CASE("a point's expected cost is the work the analytic model sizes, for ordering an MPI sweep", "[sweep][cost]") {
  // N = 4, P = 2, forward, DCT, the default machine: the analytic model (and both engines) say
  // 162 cycles; 8 nodes; 3 N^4 = 768 multiply-adds compute the values.
  const Settings point = {{"N", "4"}, {"P", "2"}, {"direction", "forward"}};
  const auto cost = [&](Settings more) {
    more.insert(more.begin(), point.begin(), point.end());
    return expected_point_cost(more);
  };
  CHECK(cost({}) == 162.0 * 8 + 768);  // systemc times every node
  CHECK(cost({{"engine", "event"}, {"symmetry", "off"}, {"values", "off"}}) == 162.0 * 8);
  CHECK(cost({{"engine", "event"}, {"values", "off"}}) == 162.0);  // one node stands for the torus
  CHECK(cost({{"engine", "functional"}}) == 768);                  // values, no cycles
  CHECK(cost({{"direction", "both"}}) > cost({}));                 // two transforms
  CHECK(cost({{"P", "5"}}) == 0);  // no valid run (fewer elements than nodes): it fails at once when it runs
  // The study the MPI benchmark sweeps: the more nodes at N = 16, the longer a point takes.
  CHECK(expected_point_cost({{"N", "16"}, {"P", "16"}}) > expected_point_cost({{"N", "16"}, {"P", "8"}}));
  CHECK(expected_point_cost({{"N", "16"}, {"P", "8"}}) > expected_point_cost({{"N", "16"}, {"P", "4"}}));
}

TEST_CASE("sweep_blocks: any keeps the points with uneven blocks, even (the default) drops them", "[sweep][plan]") {
  TempDir dir;
  const auto plan_of = [&](const std::string& blocks) {
    const std::string scenario = dir.file("s" + blocks + ".yaml");
    std::ofstream(scenario) << "transform: dct\n" << (blocks.empty() ? "" : "sweep_blocks: " + blocks + "\n")
                            << "sweep:\n  N: [6, 7]\n  P: [2, 3]\n";
    return SweepPlan(scenario, {}, [](const std::string&) {});
  };
  CHECK(plan_of("").size() == 2);  // N = 6 on 2 and 3; N = 7 on neither
  CHECK(plan_of("even").size() == 2);
  const SweepPlan any = plan_of("any");
  REQUIRE(any.size() == 4);
  CHECK(any.overrides(3) == Settings{{"N", "7"}, {"P", "3"}});
  CHECK_THROWS_WITH(plan_of("some"), Catch::Contains("sweep_blocks: 'some' is not allowed; allowed: even") &&
                                         Catch::Contains(":2:"));
}
