// The split of a run's wall time into phases (sim/phase_times.hpp): the timer itself, and the
// phases a functional run reports in its JSON and text.

#include <catch2/catch.hpp>

#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "sim/report.hpp"
#include "sim/run.hpp"
#include "tests/phase_checks.hpp"
#include "tests/temp_dir.hpp"

using namespace torus;

namespace {

RunConfig config_of(std::initializer_list<std::pair<const char*, std::string>> settings) {
  RunConfig config;
  ParameterSet parameters;
  config.declare(parameters);
  for (const auto& [key, value] : settings) parameters.set(key, value);
  return config;
}

}  // namespace

TEST_CASE("a phase adds up its pieces, and a phase that never ran is not reported", "[sim][phases]") {
  PhaseTimes times;
  CHECK(times.ran_phases().empty());
  times.add(Phase::Verify, std::chrono::milliseconds(250));
  times.add(Phase::Program, std::chrono::milliseconds(500));
  times.add(Phase::Verify, std::chrono::milliseconds(250));
  CHECK(times.seconds(Phase::Verify) == 0.5);
  CHECK(times.seconds(Phase::Check) == 0.0);
  CHECK_FALSE(times.ran(Phase::Check));
  CHECK(times.total_seconds() == 1.0);
  // In the order a run meets them, whatever order they were added in.
  const std::vector<std::pair<std::string_view, double>> expected = {{"program", 0.5}, {"verify", 0.5}};
  CHECK(times.ran_phases() == expected);
}

TEST_CASE("a phase timer adds what it measured, once, and refuses to overlap another", "[sim][phases]") {
  PhaseTimes times;
  PhaseTimer timer(times, Phase::Gather);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  CHECK_THROWS_WITH(PhaseTimer(times, Phase::Check),
                    "phase 'check' started while phase 'gather' runs: phases may not overlap");
  const auto took = timer.stop();
  CHECK(took >= std::chrono::milliseconds(2));
  CHECK(times.seconds(Phase::Gather) == std::chrono::duration<double>(took).count());
  CHECK(timer.stop() == PhaseTimes::Clock::duration::zero());  // stopped already: adds nothing
  CHECK(times.seconds(Phase::Gather) == std::chrono::duration<double>(took).count());
  CHECK(timed(times, Phase::Check, [] { return 7; }) == 7);  // the first timer no longer runs
  CHECK(times.ran(Phase::Check));
  for (std::size_t i = 0; i < phase_count; ++i) CHECK(documented_phases.count(std::string(phase_names[i])) == 1);
}

TEST_CASE("a functional run splits its wall time into phases that add up to it", "[sim][run][phases]") {
  TempDir dir;
  const RunReport report = run_functional(config_of({{"N", "8"}, {"P", "2"}, {"output", dir.file("y.npy")},
                                                     {"report_json", dir.file("r.json")}}));
  REQUIRE(report.passed());
  std::ifstream in(dir.file("r.json"));
  const nlohmann::json written = nlohmann::json::parse(in);
  // The functional engine builds no timed state and keeps no records; its execution is the run.
  CHECK(checked_phases(written) == PhaseNames{"memory_check", "input", "program", "verify", "simulate", "gather", "check",
                                              "teardown", "output", "other"});
  CHECK(report.phases.total_seconds() <= report.wall_seconds);
  // The text says the same in one line, in the order the run went through them.
  const std::string text = format_text(report);
  const std::size_t line = text.find("\ntime by phase: ");
  REQUIRE(line != std::string::npos);
  const std::string phase_line = text.substr(line + 1, text.find('\n', line + 1) - line - 1);
  CHECK_THAT(phase_line, Catch::Matches("time by phase: memory_check [0-9.]+ s, input [0-9.]+ s, program [0-9.]+ s, "
                                        "verify [0-9.]+ s, simulate [0-9.]+ s, gather [0-9.]+ s, check [0-9.]+ s, "
                                        "teardown [0-9.]+ s, output [0-9.]+ s, other [0-9.]+ s"));
  CHECK(text.substr(line + 1 + phase_line.size() + 1).starts_with("result: PASS"));
}

TEST_CASE("a functional matmul run reports its phases too, and nothing written is no output phase", "[sim][matmul][phases]") {
  const RunReport report = run_functional(config_of({{"task", "matmul"}, {"algorithm", "systolic"}, {"m", "6"}, {"k", "4"},
                                                     {"n", "6"}, {"array", "2x2"}}));
  REQUIRE(report.passed());
  CHECK(checked_phases(to_json(report)) == PhaseNames{"input", "program", "verify", "simulate", "gather", "check", "teardown",
                                                      "other"});
  CHECK(report.phases.total_seconds() <= report.wall_seconds);
}
