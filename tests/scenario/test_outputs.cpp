// What torus-sim does with the paths it writes: a target that is not a regular file is refused
// before the run, a link is written through, and a trace cut short by a full disk fails the run.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>

#include "tests/cli_runner.hpp"

using namespace torus;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> small_run(std::initializer_list<std::string> extra) {
  std::vector<std::string> args = {torus_sim_executable(), "run", "--N", "4", "--P", "2", "--direction", "forward"};
  args.insert(args.end(), extra);
  return args;
}

}  // namespace

TEST_CASE("outputs that are not regular files are refused before the run and left alone", "[scenario][cli][output]") {
  TempDir dir;
  const std::string fifo = dir.file("fifo.json"), folder = dir.file("folder.vcd");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  fs::create_directory(folder);
  for (const char* key : {"--output", "--report_json", "--chrome_trace"}) {
    const CliRun run = run_program(small_run({key, fifo}));
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains(std::string(key).substr(2) + ": '" + fifo + "' is a FIFO"));
    CHECK_THAT(run.output, !Catch::Contains("golden"));  // refused before it ran
    CHECK(fs::is_fifo(fifo));
  }
  const CliRun run = run_program(small_run({"--vcd_trace", folder}));
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("vcd_trace: '" + folder + "' is a directory"));
  CHECK(fs::is_directory(folder));
  CHECK(fs::is_empty(folder));
}

TEST_CASE("an output behind a symbolic link is written through the link", "[scenario][cli][output]") {
  TempDir dir;
  fs::create_directory(dir.file("store"));
  std::ofstream(dir.file("store/report.json")) << "{}\n";
  fs::create_symlink("store/report.json", dir.file("report.json"));
  const CliRun run = run_program(small_run({"--report_json", dir.file("report.json")}));
  REQUIRE(run.exit_code == 0);
  CHECK(fs::is_symlink(dir.file("report.json")));
  std::ifstream in(dir.file("store/report.json"));
  CHECK(nlohmann::json::parse(in)["N"] == 4);
}

TEST_CASE("a waveform cut short by a full disk fails the run and leaves no file", "[scenario][cli][output][vcd]") {
  TempDir dir;
  const std::string vcd = dir.file("run.vcd");
  ProgramSettings settings;
  settings.file_size_limit = 64 * 1024;  // the waveform of N = 8 on 4 x 4 x 4 is about 300 kB
  const CliRun run = run_program({torus_sim_executable(), "run", "--N", "8", "--P", "4", "--vcd_trace", vcd}, settings);
  CHECK(run.exit_code == 4);
  CHECK_THAT(run.output, Catch::Contains("vcd_trace: cannot write '" + vcd + "': File too large"));
  CHECK_FALSE(fs::exists(vcd));
  CHECK(fs::is_empty(dir.path()));  // no temporary left either
}

TEST_CASE("a waveform run prints its report and no SystemC warnings", "[scenario][cli][vcd]") {
  TempDir dir;
  const CliRun run = run_program(small_run({"--vcd_trace", dir.file("run.vcd")}));
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Catch::Contains("golden"));
  CHECK_THAT(run.output, !Catch::Contains("W713") && !Catch::Contains("Warning") && !Catch::Contains("Info:"));
}
