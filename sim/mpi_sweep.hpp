#pragma once
// Sweeps across machines: `mpirun --enable-recovery -np K torus-sim sweep SCENARIO --out DIR
// [-j J]` (or srun) runs the points of one sweep on K ranks, up to J point processes each, and
// leaves the same results folder as `torus-sim sweep` on one machine.
//
// Rank 0 plans the sweep, reads what earlier runs left (resume), orders the points left by the
// analytic model's estimate of their work (sim/sweep_cost.hpp), longest first, and hands them
// out one at a time to whichever rank has a free slot, itself included. Each rank runs its
// points as a plain sweep does, a process per point, into a scratch folder of its own host,
// and sends rank 0 the exit status, the report and the output. Rank 0 alone writes the
// results folder (points/NNNNN.json and .log, results.csv, results.jsonl), through the same
// code as a plain sweep, so the tables and resume are exactly a plain sweep's.
//
// Ranks that die. Open MPI 4.1 (Debian 12) has no fault-tolerant MPI (no ULFM); mpirun ends the
// whole job when a rank dies unless it is started with --enable-recovery, and then it keeps the
// others running. Rank 0 therefore never waits on a rank: all traffic is non-blocking, every
// rank sends a heartbeat each second, and a rank rank 0 has not heard from for --rank-timeout
// seconds is taken for dead: its points in flight go back to the queue and are run by others,
// and anything it sends later is ignored (so a slow rank taken for dead cannot duplicate a
// point; it hears nothing more and stops itself after the same timeout). A rank's points are
// tied to it and die with it. Ranks that lose rank 0 for that long stop their points and exit.
// Without --enable-recovery a dead rank ends the job; the same command resumes it.
//
// Caveat of Open MPI 4.1: with --enable-recovery mpirun exits 0 whatever its ranks return, so
// the sweep's exit class is printed by rank 0 and, once every point is done, reported by a
// plain `torus-sim sweep` of the same folder (it runs nothing and exits with the class).

#include "sim/sweep.hpp"

namespace torus {

struct RankOutcome {
  bool root = false;     // rank 0, whose `summary` is the sweep's, as run_sweep's
  SweepSummary summary;  // other ranks: interrupted_by only
  int exit_code = 0;     // other ranks: 0, or 4 when rank 0 fell silent
};

// Runs this process's part of an MPI sweep: MPI_Init, rank 0's or another rank's loop, and
// MPI_Finalize after a clean end. Throws like run_sweep on rank 0.
RankOutcome run_mpi_sweep(const SweepOptions& options, const SweepListener& listener);

}  // namespace torus
