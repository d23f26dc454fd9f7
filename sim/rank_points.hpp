#pragma once
// The points one rank of an MPI sweep runs, each in its own `torus-sim run` process, with its
// report and output in a private scratch folder on the rank's own host (the results folder
// need not be shared: rank 0 writes every file in it from what the ranks send). The points
// are tied to the rank: if the rank is killed, its points die with it.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/point_processes.hpp"

namespace torus {

class RankPoints {
 public:
  struct Outcome {
    std::size_t point;
    ChildExit exit;
    double wall_seconds;
    std::optional<std::string> report;  // the report's text, when the point wrote one
    std::string log;                    // its standard output and error
  };

  // Makes the scratch folder (under TMPDIR, or /tmp); throws std::runtime_error when it cannot.
  RankPoints(std::string executable, std::string scenario);
  // Ends any point still running and removes the scratch folder.
  ~RankPoints();
  RankPoints(const RankPoints&) = delete;
  RankPoints& operator=(const RankPoints&) = delete;

  void launch(std::size_t point, const Settings& overrides);
  // The points that have ended since the last call, with what they left.
  std::vector<Outcome> collect();
  // Passes `signal` on to every running point and waits for them; what they leave is dropped
  // (their points have no record, so they run again when the sweep resumes).
  void stop(int signal);
  std::size_t running() const { return processes_.size(); }

 private:
  std::string file(std::size_t point, const char* extension) const;

  std::string executable_, scenario_, folder_;
  PointProcesses processes_;
};

}  // namespace torus
