// The command line's answers to mistakes: each names the file and line (for scenarios), the
// parameter, the value and what is allowed, and exits with the documented code.

#include <catch2/catch.hpp>

#include <fstream>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

CliRun run_scenario(const TempDir& dir, const std::string& text) {
  const std::string path = dir.file("scenario.yaml");
  std::ofstream(path) << text;
  return run_cli("run " + path);
}

}  // namespace

TEST_CASE("scenario mistakes are reported with file, line and column", "[scenario][cli][errors]") {
  TempDir dir;
  SECTION("unknown key, with a suggestion") {
    const CliRun run = run_scenario(dir, "N: 8\nP: 2\nfma_latncy: 4\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:3:1: unknown key 'fma_latncy' (did you mean 'fma_latency'?)"));
  }
  SECTION("wrong type") {
    const CliRun run = run_scenario(dir, "N: eight\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:1:4: N: 'eight'") && Catch::Contains("whole number from 1 to 4096"));
  }
  SECTION("out of range") {
    const CliRun run = run_scenario(dir, "N: 8\nP: 2\nfma_latency: 0\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:3:14: fma_latency: '0'") && Catch::Contains("from 1 to 1024"));
  }
  SECTION("a list where one value belongs") {
    const CliRun run = run_scenario(dir, "N: [8, 16]\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:1:4: N: a single value is needed"));
  }
  SECTION("malformed YAML") {
    const CliRun run = run_scenario(dir, "N: 8\nP: [2\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:3:1: malformed YAML"));
  }
  SECTION("a choice misspelt") {
    const CliRun run = run_scenario(dir, "roll_policy: overlaped\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("allowed: after_compute, overlapped (did you mean 'overlapped'?)"));
  }
  SECTION("an include that is not there") {
    const CliRun run = run_scenario(dir, "include: machines/nothing.yaml\n");
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("scenario.yaml:1:10: include: 'machines/nothing.yaml' is not a file"));
  }
}

TEST_CASE("options on the command line override the scenario file", "[scenario][cli]") {
  const CliRun run = run_cli("run " + std::string(TORUS_SOURCE_DIR) + "/scenarios/quickstart.yaml --N 8 -p P=2");
  REQUIRE(run.exit_code == 0);
  CHECK(run.report["N"] == 8);
  CHECK(run.report["P"] == 2);
  CHECK(run.report["transform"] == "dct");  // from the file
}

TEST_CASE("exit codes tell usage errors from runtime failures", "[scenario][cli]") {
  CHECK(run_cli("run --N 10 --P 4").exit_code == 2);         // bad parameters
  CHECK(run_cli("frobnicate").exit_code == 2);               // unknown command
  CHECK(run_cli("run --output /proc/x.npy").exit_code == 2); // a folder that cannot be written
  const std::string verify = torus_sim_executable() + " verify --P 3 --alpha all --direction both > /dev/null";
  CHECK(std::system(verify.c_str()) == 0);
}
