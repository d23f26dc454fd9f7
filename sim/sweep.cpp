#include "sim/sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "sim/held_signals.hpp"
#include "sim/point_processes.hpp"
#include "sim/sweep_book.hpp"
#include "sim/sweep_plan.hpp"

namespace torus {
namespace {

using Clock = std::chrono::steady_clock;

const char* class_name(int code) {
  switch (code) {
    case 2: return "input problem";
    case 3: return "golden mismatch";
    case 5: return "stalled";
    default: return "runtime failure or killed";
  }
}

// Runs the points left to run, `jobs` at once, each writing its output and report straight
// into the results folder.
class Runner {
 public:
  Runner(const SweepOptions& options, const SweepPlan& plan, SweepSummary& summary, SweepBook& book)
      : options_(options), plan_(plan), summary_(summary), book_(book) {}

  void run(std::vector<std::size_t> todo, const SweepListener& listener);

 private:
  void launch(std::size_t point);
  void reap(bool block, const SweepListener& listener);
  void finish(const PointProcesses::Ended& ended);
  void stop(int signal, const SweepListener& listener);

  const SweepOptions& options_;
  const SweepPlan& plan_;
  SweepSummary& summary_;
  SweepBook& book_;
  PointProcesses running_;
  Clock::time_point start_ = Clock::now();
  std::size_t to_run_ = 0;
};

void Runner::launch(std::size_t point) {
  running_.launch(point,
                  point_command(options_.executable, options_.scenario, plan_.overrides(point),
                                point_file(summary_.out_dir, point, ".report.json")),
                  point_file(summary_.out_dir, point, ".log"));
}

void Runner::finish(const PointProcesses::Ended& ended) {
  book_.record(ended.point, ended.exit, ended.wall_seconds, take_file(point_file(summary_.out_dir, ended.point, ".report.json")));
}

// Collects every point that has ended; with `block`, waits for at least one.
void Runner::reap(bool block, const SweepListener& listener) {
  for (const PointProcesses::Ended& ended : running_.reap(block)) {
    finish(ended);
    listener.progress(book_.status(to_run_, start_));
  }
}

// Passes the signal on to every running point and waits for them all.
void Runner::stop(int signal, const SweepListener& listener) {
  summary_.interrupted_by = signal;
  running_.signal_all(signal);
  while (!running_.empty()) reap(true, listener);
}

void Runner::run(std::vector<std::size_t> todo, const SweepListener& listener) {
  HeldSignals signals;
  to_run_ = todo.size();
  listener.progress(book_.status(to_run_, start_));
  std::size_t next = 0;
  const std::size_t jobs = std::max(1u, options_.jobs);
  try {
    while (summary_.interrupted_by == 0 && (next < todo.size() || !running_.empty())) {
      while (next < todo.size() && running_.size() < jobs) launch(todo[next++]);
      reap(false, listener);
      book_.write_tables_if_due();
      if (next < todo.size() && running_.size() < jobs) continue;
      if (const int s = signals.wait_for_stop(std::chrono::milliseconds(1000)); s != 0) stop(s, listener);
    }
  } catch (...) {
    // When the sweep itself fails (its folder cannot be written, ...), no point may outlive it.
    running_.abandon();
    throw;
  }
  book_.write_tables();
}

}  // namespace

SweepSummary run_sweep(const SweepOptions& options, const SweepListener& listener) {
  const SweepPlan plan(options.scenario, options.overrides, listener.note);
  SweepSummary summary = planned_summary(options, plan);
  SweepBook book(plan, summary, listener);
  Runner runner(options, plan, summary, book);
  runner.run(book.resume(), listener);
  return summary;
}

int launched_ranks() {
  // Open MPI's mpirun, then PMI-1/2 launchers (MPICH's Hydra, srun --mpi=pmi2); PMIx (srun
  // --mpi=pmix) names the rank only, and Slurm the step's task count.
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* value = std::getenv(variable); value != nullptr) return std::max(1, std::atoi(value));
  if (std::getenv("PMIX_RANK") == nullptr) return 0;
  const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
  return tasks != nullptr ? std::max(1, std::atoi(tasks)) : 1;
}

std::string describe_failures(const SweepSummary& summary) {
  std::string text = std::to_string(summary.failed) + " failed:";
  for (const auto& [code, count] : summary.failed_by_code)
    text += fmt::format(" {} {} (exit {}),", count, class_name(code), code);
  text.back() = ';';
  return text + fmt::format(" the sweep exits {}, its worst class ({}), first at point {}", summary.exit_code,
                            class_name(summary.exit_code), summary.worst_point);
}

}  // namespace torus
