#pragma once
// Sweeps: the Cartesian product of a scenario's sweep lists, each point simulated in its own
// process (SystemC elaborates one design per process), up to `jobs` at once.
//
// Results live in a folder: points/NNNNN.json holds each finished point (written atomically),
// and results.csv / results.jsonl are rewritten atomically from all finished points, in point
// order, after each one. So a sweep can be killed at any moment and run again: finished points
// are skipped and the final tables equal those of an uninterrupted run (wall time and process
// memory, which measure the host, aside).

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace torus {

struct SweepOptions {
  std::string scenario;  // path of the scenario file
  std::vector<std::pair<std::string, std::string>> overrides;  // -p key=value, applied to every point
  unsigned jobs = 1;
  std::string out_dir;     // default: <scenario name>-results next to the working directory
  std::string executable;  // the torus-sim binary that runs each point
};

struct SweepSummary {
  std::size_t points = 0;
  std::size_t dropped = 0;  // combinations that are no valid run (P does not divide N)
  std::size_t skipped = 0;  // finished in an earlier run
  std::size_t ran = 0;
  std::size_t failed = 0;   // exit code other than 0 (golden mismatch, watchdog, ...)
  std::string out_dir;
};

// `progress` receives a one-line status after each point (done, failed, ETA).
SweepSummary run_sweep(const SweepOptions& options, const std::function<void(const std::string&)>& progress);

}  // namespace torus
