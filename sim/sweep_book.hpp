#pragma once
// The results folder of a sweep and the account of its points, kept by the one process that
// writes them (the sweep, or rank 0 of an MPI sweep): what earlier runs left (resume), the
// record of each point that ran (points/NNNNN.json, written atomically), the tables, the
// failure counts and the status line. How the points ran is the caller's business.

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/child_process.hpp"
#include "sim/sweep.hpp"
#include "sim/sweep_plan.hpp"
#include "sim/sweep_table.hpp"

namespace torus {

// A sweep's summary before it runs: its points, the dropped combinations and its folder (by
// default <scenario name>-results in the working directory).
SweepSummary planned_summary(const SweepOptions& options, const SweepPlan& plan);

// points/NNNNN<extension> in the results folder `dir`.
std::string point_file(const std::string& dir, std::size_t index, const char* extension);

class SweepBook {
 public:
  using Clock = std::chrono::steady_clock;
  // Checks that summary.out_dir is a folder (made when missing) and that its tables can be
  // written; throws std::invalid_argument otherwise. `plan`, `summary` and `listener` must
  // outlive the book.
  SweepBook(const SweepPlan& plan, SweepSummary& summary, const SweepListener& listener);

  // Reads what earlier runs left, counts and tabulates the finished points, writes the
  // tables, and returns the points still to run, in point order; `tick`, when set, is called
  // after each point (an MPI sweep's heartbeats). Throws std::invalid_argument when a point's
  // record path is not a regular file.
  std::vector<std::size_t> resume(const std::function<void()>& tick = {});
  // A point that ran: writes its record, adds its row and counts it. `report` is the text of
  // the report the point wrote, if it wrote one.
  void record(std::size_t point, const ChildExit& exit, double wall_seconds, const std::optional<std::string>& report);
  // Writes a point's output (of a point run by another process) as points/NNNNN.log.
  void write_log(std::size_t point, const std::string& text) const;

  void write_tables() { table_.write(); }
  void write_tables_if_due() { table_.write_if_due(Clock::now()); }
  // The status line after `to_run` points were planned for this run at `start`.
  std::string status(std::size_t to_run, Clock::time_point start) const;

 private:
  void count(std::size_t point, int cls);

  const SweepPlan& plan_;
  SweepSummary& summary_;
  const SweepListener& listener_;
  SweepTable table_;
};

}  // namespace torus
