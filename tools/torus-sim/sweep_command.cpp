#include "tools/torus-sim/sweep_command.hpp"

#include <csignal>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <unistd.h>

#include "sim/run.hpp"
#include "sim/sweep_plan.hpp"
#ifdef TORUS_HAVE_MPI
#include "sim/mpi_sweep.hpp"
#endif

namespace torus_cli {
namespace {

// The sweep's summary: run here, or, under an MPI launcher, across its ranks; nothing on the
// ranks other than 0, whose exit code (or signal) is set in `rank_exit`.
std::optional<torus::SweepSummary> run_sweep_here(const torus::SweepOptions& options, const torus::SweepListener& listener,
                                                  [[maybe_unused]] torus::SweepSummary& rank_exit) {
  const int launched = torus::launched_ranks();
#ifdef TORUS_HAVE_MPI
  if (launched > 0) {
    torus::RankOutcome outcome = torus::run_mpi_sweep(options, listener);
    if (outcome.root) return outcome.summary;
    rank_exit.exit_code = outcome.exit_code;
    rank_exit.interrupted_by = outcome.summary.interrupted_by;
    return std::nullopt;
  }
#else
  if (launched > 1)
    throw std::invalid_argument("sweep: started by an MPI launcher as one of " + std::to_string(launched) +
                                " processes, but this torus-sim was built without MPI, so each would run the whole sweep; "
                                "allowed: one process (no mpirun), or a build with MPI (tools/setup.sh installs libopenmpi-dev)");
#endif
  return torus::run_sweep(options, listener);
}

// Dies of the signal that stopped the sweep, as a shell expects of an interrupted program.
void die_of(int signal) {
  std::signal(signal, SIG_DFL);
  ::raise(signal);
}

}  // namespace

int list_sweep(const torus::SweepOptions& options) {
  const torus::SweepPlan plan(options.scenario, options.overrides,
                              [](const std::string& note) { std::cerr << "torus-sim: warning: " << note << '\n'; });
  std::string out;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    out += fmt::format("{:05}", i);
    for (const auto& [key, value] : plan.overrides(i)) out.append(" ").append(key).append("=").append(value);
    out += '\n';
  }
  std::cout << out << std::flush;  // before the summary on stderr, which may be the same file
  std::cerr << plan.size() << " points to run, " << plan.dropped() << " combinations dropped (P does not divide N)\n";
  return static_cast<int>(torus::ExitCode::Success);
}

int sweep_command(const torus::SweepOptions& options) {
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  bool status_shown = false;  // on a terminal, the status line is rewritten in place
  torus::SweepListener listener;
  listener.progress = [&](const std::string& line) {
    std::cerr << (tty ? "\r" : "") << line << (tty ? "" : "\n") << std::flush;
    status_shown = tty;
  };
  listener.note = [&](const std::string& line) {
    std::cerr << (status_shown ? "\n" : "") << "torus-sim: " << line << '\n';
    status_shown = false;
  };
  torus::SweepSummary rank_exit;
  const std::optional<torus::SweepSummary> ran = run_sweep_here(options, listener, rank_exit);
  if (!ran) {
    if (rank_exit.interrupted_by != 0) die_of(rank_exit.interrupted_by);
    return rank_exit.exit_code;
  }
  const torus::SweepSummary& summary = *ran;
  std::cerr << (status_shown ? "\n" : "") << "results: " << summary.out_dir << "/results.csv and results.jsonl\n";
  if (summary.failed != 0) std::cerr << "torus-sim: sweep: " << torus::describe_failures(summary) << '\n';
  if (summary.interrupted_by != 0) {
    std::cerr << "torus-sim: sweep stopped by signal " << summary.interrupted_by
              << "; run the same command again to finish it\n";
    die_of(summary.interrupted_by);
  }
  return summary.exit_code;
}

}  // namespace torus_cli
