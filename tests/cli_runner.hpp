#pragma once
// Runs the torus-sim program in its own process (SystemC elaborates one design per process)
// and reads back its JSON report.

#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
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

// torus-sim with `arguments` (no shell quoting: keep them free of spaces), its output into the
// file `log`; returns its exit code, -1 if a signal ended it.
inline int run_cli_to(const std::string& arguments, const std::string& log) {
  const int status = std::system((torus_sim_executable() + " " + arguments + " > " + log + " 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// `arguments` are passed as they are: no shell quoting, so keep them free of spaces.
inline CliRun run_cli(const std::string& arguments) {
  TempDir dir;
  const std::string json = dir.file("report.json"), log = dir.file("output.txt");
  CliRun run;
  run.exit_code = run_cli_to(arguments + " --report_json " + json, log);
  std::ifstream in(json);
  if (in) run.report = nlohmann::json::parse(in);
  std::ifstream text(log);
  run.output.assign(std::istreambuf_iterator<char>(text), std::istreambuf_iterator<char>());
  return run;
}

// A file's bytes, empty when it cannot be read.
inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A run's report without what describes the host or the engine rather than the simulated
// machine: what two engines timing the same run must agree on, figure for figure.
// A report's timing without the figures that describe the host or the engine itself.
inline nlohmann::json timing_machine_figures(nlohmann::json timing) {
  for (const char* host : {"simulation_seconds", "node_cycles_per_second", "peak_memory_bytes", "memory", "fast_forwarded_fma", "node_activations", "stepping_threads",
                           "fast_forward_note", "nodes_timed"})
    timing.erase(host);
  return timing;
}

inline nlohmann::json report_machine_figures(nlohmann::json report) {
  for (const char* key : {"engine", "wall_seconds", "phase_seconds", "machine"}) report.erase(key);
  report["timing"] = timing_machine_figures(report["timing"]);
  return report;
}

// A sweep's table (JSON Lines) without the two columns that measure the host (wall time and
// memory): what must be the same however the sweep was run.
inline std::string deterministic_table(const std::string& results_dir) {
  std::ifstream in(results_dir + "/results.jsonl");
  std::string out;
  for (std::string line; std::getline(in, line);) {
    nlohmann::json row = nlohmann::json::parse(line);
    row.erase("wall_seconds");
    row.erase("peak_memory_bytes");
    out += row.dump() + "\n";
  }
  return out;
}

// How many points of a sweep have finished: files points/NNNNN.json, one per finished point.
inline std::size_t finished_points(const std::string& results_dir) {
  std::size_t n = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(results_dir + "/points", error)) {
    const std::string name = entry.path().filename().string();
    n += name.size() == 10 && name.ends_with(".json") ? 1 : 0;
  }
  return n;
}

struct ProgramSettings {
  std::string folder;                      // working folder; empty: the test's own
  rlim_t file_size_limit = RLIM_INFINITY;  // a stand-in for a full disk
};

// Runs a program with an argument vector, as it is: quotes, spaces and semicolons in the
// arguments reach it unchanged. Returns its exit code (-1 if a signal ended it) and its output.
inline CliRun run_program(const std::vector<std::string>& arguments, const ProgramSettings& settings = {}) {
  TempDir dir;
  const std::string log = dir.file("output.txt");
  std::vector<char*> argv;
  for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails instead of killing
    const rlimit limit{settings.file_size_limit, settings.file_size_limit};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    if (!settings.folder.empty() && ::chdir(settings.folder.c_str()) != 0) ::_exit(126);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  CliRun run;
  int status = 0;
  ::waitpid(child, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream text(log);
  run.output.assign(std::istreambuf_iterator<char>(text), std::istreambuf_iterator<char>());
  return run;
}

}  // namespace torus
