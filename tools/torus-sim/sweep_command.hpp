#pragma once
// The `sweep` command of torus-sim: on this machine, or, started by an MPI launcher in a build
// with MPI, across the launcher's ranks (sim/mpi_sweep.hpp).

#include "sim/sweep.hpp"

namespace torus_cli {

// Prints the planned points, one line each: number and the values swept.
int list_sweep(const torus::SweepOptions& options);

// Runs the sweep, shows its progress and outcome on stderr, and returns its exit code (or
// dies of the signal that stopped it).
int sweep_command(const torus::SweepOptions& options);

}  // namespace torus_cli
