// huge_pages changes where the engine's memory comes from (sim/host_heap.hpp), never what a run
// computes or reports about the simulated machine.

#include <catch2/catch.hpp>

#include <string>

#include "tests/cli_runner.hpp"

using namespace torus;

TEST_CASE("huge_pages on or off gives the same results and the same report figures", "[scenario][memory]") {
  TempDir dir;
  std::string results[2];
  nlohmann::json reports[2];
  const std::string modes[2] = {"on", "off"};
  for (int i = 0; i < 2; ++i) {
    const std::string npy = dir.file(modes[i] + ".npy");
    const CliRun run = run_cli("run --N 16 --P 4 --transform dft --direction both --fast_forward off --huge_pages " + modes[i] +
                               " --output " + npy);
    REQUIRE(run.exit_code == 0);
    CHECK(run.report["passed"] == true);
    reports[i] = report_machine_figures(run.report);
    results[i] = file_bytes(npy);
  }
  CHECK_FALSE(results[0].empty());
  CHECK(results[0] == results[1]);
  CHECK(reports[0] == reports[1]);
}

TEST_CASE("huge_pages names what it allows when given something else", "[scenario][memory][errors]") {
  const CliRun run = run_cli("run --N 8 --P 2 --huge_pages always");
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("huge_pages: 'always' is not allowed; allowed: auto, on, off"));
}
