#pragma once
// The ranks of an MPI sweep other than rank 0 (sim/mpi_sweep.hpp): each runs the points rank 0
// hands it, up to -j at once, and sends back what they left.

#include <chrono>
#include <vector>

#include "sim/mpi_link.hpp"
#include "sim/sweep.hpp"

namespace torus {

// Every rank says it is alive this often; rank 0 polls its mail and its points this often.
inline constexpr std::chrono::seconds heartbeat_interval{1};
inline constexpr std::chrono::milliseconds poll_interval{10};

// The last word to `ranks`: from rank 0, no more points (signal 0) or the sweep was stopped by
// `signal`; from another rank, it was stopped by `signal` and runs nothing more. Waits up to
// two seconds for the messages to leave, never for a dead rank.
void send_stop(Mailbox& mailbox, const std::vector<int>& ranks, int signal);

// Runs points for rank 0 until it says stop (then finalizes MPI, unless the stop names the
// signal that is tearing the job down, and returns 0), until rank 0
// falls silent for options.rank_timeout seconds (stops its points and returns 4), or until
// SIGINT or SIGTERM (stops its points, sets `interrupted_by` and returns 0).
int run_worker(MpiSession& session, Mailbox& mailbox, const SweepOptions& options, const SweepListener& listener,
               int& interrupted_by);

}  // namespace torus
