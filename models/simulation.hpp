#pragma once
// A cycle-accurate run: elaborates the torus for a run and machine configuration, simulates it
// in SystemC, checks every transform it computed against the golden reference and reports
// cycles. SystemC elaborates one design per process: call this at most once per process.

#include <stdexcept>

#include "sim/fault_config.hpp"
#include "sim/machine_config.hpp"
#include "sim/run.hpp"

namespace torus {

// A run the watchdog stopped: no fma issued and no word moved for watchdog_cycles while work
// remained. The message says who waits on what, and what an injected fault did.
class StallError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws std::invalid_argument for bad parameters and StallError for a run that stopped
// making progress.
RunReport simulate(const RunConfig& run, const MachineConfig& machine, const FaultConfig& fault = {});

}  // namespace torus
