// Scenario files read strictly: one document, each key once, a bounded number of includes,
// brackets in comments and quotes not taken for nesting, and paths relative to the file.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/cli_runner.hpp"

using namespace torus;
namespace fs = std::filesystem;

namespace {

CliRun run_file(const std::string& path, const std::string& text, const std::string& folder = "") {
  std::ofstream(path) << text;
  ProgramSettings settings;
  settings.folder = folder;
  return run_program({torus_sim_executable(), "run", path}, settings);
}

}  // namespace

TEST_CASE("a repeated key or a second YAML document is an error", "[scenario][cli][errors]") {
  TempDir dir;
  const std::string path = dir.file("s.yaml");
  const CliRun repeated = run_file(path, "N: 8\nP: 2\nN: 4\n");
  CHECK(repeated.exit_code == 2);
  CHECK_THAT(repeated.output, Catch::Contains("s.yaml:3:1: 'N' is given twice (first on line 1); allowed: each key once"));

  const CliRun second = run_file(path, "N: 8\nP: 2\n---\nN: 4\n");
  CHECK(second.exit_code == 2);
  CHECK_THAT(second.output, Catch::Contains("s.yaml:3:1: a second YAML document ('---') is not allowed"));
}

TEST_CASE("includes are capped in number, not only in depth", "[scenario][cli][errors]") {
  // Level k includes level k+1 four times: 4 + 16 + 64 + 256 + 1024 documents in all.
  TempDir dir;
  for (int level = 0; level < 5; ++level) {
    std::ofstream out(dir.file("level" + std::to_string(level) + ".yaml"));
    out << "fma_latency: 2\n";
    const std::string next = "level" + std::to_string(level + 1) + ".yaml";
    if (level < 4) out << "include: [" << next << ", " << next << ", " << next << ", " << next << "]\n";
  }
  const CliRun run = run_file(dir.file("s.yaml"), "include: [level0.yaml, level0.yaml, level0.yaml, level0.yaml]\nN: 4\nP: 2\n");
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("include: more than 100 included documents in all; allowed: at most 100"));
}

TEST_CASE("brackets in comments and quoted text do not count as nesting", "[scenario][cli]") {
  TempDir dir;
  const std::string deep(40, '[');
  const CliRun run = run_file(dir.file("s.yaml"), "# " + deep + "\nN: 4   # " + deep + "\nP: 2\ndescription: \"" + deep +
                                                       "\"\nalpha: '+++'  # it's " + deep + "\n");
  INFO(run.output);
  CHECK(run.exit_code == 0);
  // Real nesting is still refused.
  const CliRun nested = run_file(dir.file("s.yaml"), "N: " + deep + "4" + std::string(40, ']') + "\n");
  CHECK(nested.exit_code == 2);
  CHECK_THAT(nested.output, Catch::Contains("nested more than 32 levels deep"));
}

TEST_CASE("paths in a scenario are relative to its folder, like include", "[scenario][cli]") {
  TempDir dir;
  fs::create_directory(dir.file("study"));
  const CliRun first = run_program({torus_sim_executable(), "run", "--N", "4", "--P", "2", "--direction", "forward", "--output",
                                    dir.file("study/x.npy")});
  REQUIRE(first.exit_code == 0);
  // Run from the folder above: the paths must not be read from there.
  const CliRun run = run_file(dir.file("study/s.yaml"),
                              "N: 4\nP: 2\ndirection: forward\ninput: x.npy\noutput: y.npy\nreport_json: r.json\n",
                              dir.path().string());
  INFO(run.output);
  CHECK(run.exit_code == 0);
  CHECK(fs::is_regular_file(dir.file("study/y.npy")));
  CHECK(fs::is_regular_file(dir.file("study/r.json")));
  CHECK_FALSE(fs::exists(dir.file("y.npy")));

  // Swept paths too: each point writes next to the scenario.
  std::ofstream(dir.file("study/sweep.yaml")) << "N: 4\nP: 2\ndirection: forward\nsweep:\n  output: [a.npy, b.npy]\n";
  ProgramSettings settings;
  settings.folder = dir.path().string();
  const CliRun sweep =
      run_program({torus_sim_executable(), "sweep", dir.file("study/sweep.yaml"), "--out", dir.file("results")}, settings);
  CHECK(sweep.exit_code == 0);
  CHECK(fs::is_regular_file(dir.file("study/a.npy")));
  CHECK(fs::is_regular_file(dir.file("study/b.npy")));
}
