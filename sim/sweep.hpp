#pragma once
// Sweeps: the Cartesian product of a scenario's sweep lists (sim/sweep_plan.hpp), each point
// simulated in its own process (SystemC elaborates one design per process), up to `jobs` at
// once.
//
// Results live in a folder: points/NNNNN.json holds each finished point (written atomically),
// and results.csv / results.jsonl hold a row per finished point, in point order (rewritten
// at most once a second, and at the end). So a sweep can be killed at any moment and run
// again: finished points are skipped, and points whose record is missing, unreadable or says
// the point died of a signal run again, so the final tables equal those of an uninterrupted
// run (wall time and process memory, which measure the host, aside).
//
// SIGINT and SIGTERM are passed on to the running points; the sweep waits for them, writes
// its tables and then dies of the same signal.

#include <functional>
#include <map>
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
  unsigned rank_timeout = 60;  // MPI sweeps (sim/mpi_sweep.hpp): seconds of silence after which a rank is taken for dead
};

struct SweepSummary {
  std::size_t points = 0;
  std::size_t dropped = 0;  // combinations that are no valid run (P does not divide N)
  std::size_t skipped = 0;  // finished in an earlier run
  std::size_t ran = 0;
  std::size_t failed = 0;   // points whose exit code is not 0, in this run or an earlier one
  // The worst point's class, the sweep's exit code: the largest of the points' exit codes
  // (2 input, 3 golden mismatch, 4 runtime failure or killed by a signal, 5 stalled), 0 if
  // every point passed; with the first point of that class.
  int exit_code = 0;
  std::size_t worst_point = 0;
  std::map<int, std::size_t> failed_by_code;
  int interrupted_by = 0;  // SIGINT or SIGTERM when the sweep was stopped
  std::string out_dir;
};

struct SweepListener {
  std::function<void(const std::string&)> progress;  // a status line after each point
  std::function<void(const std::string&)> note;      // warnings and what resuming found
};

SweepSummary run_sweep(const SweepOptions& options, const SweepListener& listener);

// How many processes an MPI launcher (mpirun, mpiexec, srun with PMI) started together with
// this one, as its environment says; 0 when none did, 1 when the count is not told.
int launched_ranks();

// "2 failed: 1 input problem (exit 2), 1 stalled (exit 5); worst: stalled (exit 5), first at point 7"
std::string describe_failures(const SweepSummary& summary);

}  // namespace torus
