// Where a timed run's wall time goes: phase_seconds in the JSON report and the "time by phase"
// line, for each engine and for runs with values off, with files written and that do not fit.

#include <catch2/catch.hpp>

#include "tests/cli_runner.hpp"
#include "tests/phase_checks.hpp"

using namespace torus;

namespace {

// The phases a run reported, checked as every report's are, and its text's line.
PhaseNames phases_of(const CliRun& run) {
  INFO(run.output);
  CHECK_THAT(run.output, Catch::Contains("\ntime by phase: ") && Catch::Contains(" s, other "));
  return checked_phases(run.report);
}

}  // namespace

TEST_CASE("a SystemC run reports each phase it went through, simulate being the engine's own seconds", "[scenario][phases]") {
  TempDir dir;
  const CliRun run = run_cli("run --N 8 --P 2 --output " + dir.file("y.npy") + " --chrome_trace " + dir.file("trace.json"));
  REQUIRE(run.exit_code == 0);
  CHECK(phases_of(run) == PhaseNames{"memory_check", "input", "program", "verify", "elaborate", "simulate", "records",
                                     "gather", "check", "teardown", "output", "other"});
  // The same measurement, not a second one around it.
  CHECK(run.report["phase_seconds"]["simulate"] == run.report["timing"]["simulation_seconds"]);
  CHECK_THAT(run.output, Catch::Contains("time by phase: memory_check ") && Catch::Contains(", elaborate ") &&
                             Catch::Contains(", simulate ") && Catch::Contains(", check ") && Catch::Contains(", output "));
}

TEST_CASE("values off: no input is made, nothing gathered or checked, so those phases are absent", "[scenario][phases]") {
  for (const char* engine : {"systemc", "event"}) {
    INFO(engine);
    const CliRun run = run_cli(std::string("run --N 8 --P 2 --values off --engine ") + engine);
    REQUIRE(run.exit_code == 0);
    CHECK(phases_of(run) ==
          PhaseNames{"memory_check", "program", "verify", "elaborate", "simulate", "records", "teardown", "other"});
    CHECK(run.report["phase_seconds"]["simulate"] == run.report["timing"]["simulation_seconds"]);
  }
}

TEST_CASE("the event engine timing one node for the torus computes the values apart: phase values", "[scenario][phases]") {
  const CliRun run = run_cli("run --N 8 --P 2 --engine event");
  REQUIRE(run.exit_code == 0);
  REQUIRE(run.report["timing"]["nodes_timed"] == 1);
  CHECK(phases_of(run) == PhaseNames{"memory_check", "input", "program", "verify", "elaborate", "simulate", "records",
                                     "values", "gather", "check", "teardown", "other"});
}

TEST_CASE("a run that does not fit the nodes spent its time deciding so", "[scenario][phases][node_memory]") {
  const CliRun run = run_cli("run --N 8 --P 2 --node_memory_bytes 100");
  REQUIRE(run.report["fits"] == false);
  CHECK(phases_of(run) == PhaseNames{"memory_check", "other"});
}

TEST_CASE("a timed matmul run reports its phases", "[scenario][phases][matmul]") {
  const CliRun run = run_cli("run --task matmul --algorithm systolic --m 6 --k 4 --n 6 --array 2x2");
  REQUIRE(run.exit_code == 0);
  CHECK(phases_of(run) == PhaseNames{"input", "program", "verify", "elaborate", "simulate", "records", "gather", "check",
                                     "teardown", "other"});
  CHECK(run.report["phase_seconds"]["simulate"] == run.report["timing"]["simulation_seconds"]);
}
