#pragma once
// A cycle-accurate run: elaborates the torus for a run and machine configuration, simulates it
// in SystemC, checks every transform it computed against the golden reference and reports
// cycles. SystemC elaborates one design per process: call this at most once per process.

#include "sim/machine_config.hpp"
#include "sim/run.hpp"

namespace torus {

// Throws std::invalid_argument for bad parameters and std::runtime_error when the watchdog
// stops a run that no longer makes progress (with who waits on what).
RunReport simulate(const RunConfig& run, const MachineConfig& machine);

}  // namespace torus
