#pragma once
// Runs the torus-sim program in its own process (SystemC elaborates one design per process)
// and reads back its JSON report.

#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/temp_dir.hpp"

namespace torus {

struct CliRun {
  int exit_code = -1;
  nlohmann::json report;  // null when the run wrote none
  std::string output;     // stdout and stderr
};

inline std::string torus_sim_executable() { return TORUS_SIM_EXECUTABLE; }

// `arguments` are passed as they are: no shell quoting, so keep them free of spaces.
inline CliRun run_cli(const std::string& arguments) {
  TempDir dir;
  const std::string json = dir.file("report.json"), log = dir.file("output.txt");
  const std::string command =
      torus_sim_executable() + " " + arguments + " --report_json " + json + " > " + log + " 2>&1";
  CliRun run;
  const int status = std::system(command.c_str());
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(json);
  if (in) run.report = nlohmann::json::parse(in);
  std::ifstream text(log);
  run.output.assign(std::istreambuf_iterator<char>(text), std::istreambuf_iterator<char>());
  return run;
}

}  // namespace torus
