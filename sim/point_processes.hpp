#pragma once
// The points of a sweep that are running, each in its own `torus-sim run` process (SystemC
// elaborates one design per process). The plain sweep and every rank of an MPI sweep keep
// theirs here.

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "sim/child_process.hpp"
#include "sim/sweep_plan.hpp"

namespace torus {

// The command that runs one point: `executable run scenario -p key=value ... --report_json report`.
std::vector<std::string> point_command(const std::string& executable, const std::string& scenario,
                                       const Settings& overrides, const std::string& report);

// The whole text of the file at `path`, which is then removed; nothing when it is not there.
// For what a point leaves: its report, its output.
std::optional<std::string> take_file(const std::string& path);

class PointProcesses {
 public:
  using Clock = std::chrono::steady_clock;
  struct Ended {
    std::size_t point;
    ChildExit exit;
    double wall_seconds;
  };

  // Starts `command` for `point`, its output to `log`; `tied`: it dies when this process does
  // (see spawn_child). Throws std::runtime_error when it cannot be started.
  void launch(std::size_t point, const std::vector<std::string>& command, const std::string& log, bool tied = false);
  // Every point whose process has ended; with `block`, waits for at least one. Children that
  // are not points are reaped and ignored.
  std::vector<Ended> reap(bool block);
  // Sends `signal` to every running point.
  void signal_all(int signal) const;
  // Ends every running point (SIGTERM) and waits for it, forgetting what it was doing: for a
  // sweep that fails, so that no point outlives it.
  void abandon();

  std::size_t size() const { return running_.size(); }
  bool empty() const { return running_.empty(); }

 private:
  struct Running {
    std::size_t point;
    Clock::time_point start;
  };
  std::map<pid_t, Running> running_;
};

}  // namespace torus
