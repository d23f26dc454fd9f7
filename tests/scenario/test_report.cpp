// `torus-sim report`: names reach the plotting tool as they are (no shell), files that are not
// torus-sim results get one clear sentence and exit 2, and outputs are never put over devices.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>

#include "tests/cli_runner.hpp"

using namespace torus;
namespace fs = std::filesystem;

namespace {

// A run's report in `folder`/run.json.
std::string saved_run(const std::string& folder) {
  fs::create_directories(folder);
  const std::string json = folder + "/run.json";
  const CliRun run = run_program({torus_sim_executable(), "run", "--N", "4", "--P", "2", "--report_json", json});
  REQUIRE(run.exit_code == 0);
  return json;
}

}  // namespace

TEST_CASE("report takes names with quotes and shell syntax as plain names", "[scenario][report]") {
  TempDir dir;
  ProgramSettings settings;
  settings.folder = dir.path().string();
  const std::string out = "x'; touch PWNED; echo '";
  SECTION("an output folder that would inject a command through a shell") {
    const CliRun run = run_program({torus_sim_executable(), "report", saved_run(dir.file("results")), "--out", out}, settings);
    INFO(run.output);
    CHECK(run.exit_code == 0);
    CHECK_FALSE(fs::exists(dir.file("PWNED")));
    CHECK(fs::is_regular_file(dir.file(out + "/report.html")));
  }
  SECTION("a results folder with an apostrophe") {
    const CliRun run = run_program({torus_sim_executable(), "report", saved_run(dir.file("Bob's results"))}, settings);
    INFO(run.output);
    CHECK(run.exit_code == 0);
    CHECK(fs::is_regular_file(dir.file("Bob's results/run-report/report.html")));
    CHECK(fs::is_regular_file(dir.file("Bob's results/run-report/report.md")));
  }
}

TEST_CASE("report on a file that is not torus-sim output says so and exits 2", "[scenario][report][errors]") {
  TempDir dir;
  std::ofstream(dir.file("notes.txt")) << "shopping list\n";
  std::ofstream(dir.file("other.json")) << "{\"name\": \"something else\"}\n";
  fs::create_directory(dir.file("empty-folder"));
  for (const char* name : {"notes.txt", "other.json", "empty-folder"}) {
    const CliRun run = run_program({torus_sim_executable(), "report", dir.file(name)});
    INFO(run.output);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains("is not a torus-sim sweep folder") && Catch::Contains(dir.file(name)));
    CHECK_THAT(run.output, !Catch::Contains("Traceback"));
  }
}

TEST_CASE("report refuses to put its pages over a FIFO or a folder over a file", "[scenario][report][output]") {
  TempDir dir;
  const std::string json = saved_run(dir.file("results"));
  fs::create_directory(dir.file("pages"));
  const std::string fifo = dir.file("pages/report.html");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const CliRun run = run_program({torus_sim_executable(), "report", json, "--out", dir.file("pages")});
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("'" + fifo + "' is a FIFO"));
  CHECK(fs::is_fifo(fifo));
  CHECK_FALSE(fs::exists(dir.file("pages/report.md")));  // refused before writing anything

  const CliRun onto_file = run_program({torus_sim_executable(), "report", json, "--out", json});
  CHECK(onto_file.exit_code == 2);
  CHECK_THAT(onto_file.output, Catch::Contains("is a regular file; allowed: a folder"));
}
