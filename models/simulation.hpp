#pragma once
// A cycle-accurate run: elaborates the torus for a run and machine configuration, simulates it
// in SystemC, checks every transform it computed against the golden reference and reports
// cycles. SystemC elaborates one design per process: call this at most once per process.

#include <functional>
#include <stdexcept>
#include <string>

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

// A line of progress for a long run (sim/progress_meter.hpp), or "" when the run is over and
// the line may end; never called for runs of a few seconds.
using ProgressDisplay = std::function<void(const std::string&)>;

// Throws std::invalid_argument for bad parameters and StallError for a run that stopped
// making progress. `progress`, when set, hears how far a long run is.
RunReport simulate(const RunConfig& run, const MachineConfig& machine, const FaultConfig& fault = {},
                   const ProgressDisplay& progress = {});

}  // namespace torus
