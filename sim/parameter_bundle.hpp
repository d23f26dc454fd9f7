#pragma once
// Every parameter of a run in one place: the run itself, the machine, faults. The command line,
// scenario files, sweeps and the generated documentation all declare parameters through this.

#include "sim/fault_config.hpp"
#include "sim/machine_config.hpp"
#include "sim/parameters.hpp"
#include "sim/run_config.hpp"

namespace torus {

struct ParameterBundle {
  RunConfig run;
  MachineConfig machine;
  FaultConfig fault;
  ParameterSet set;

  ParameterBundle() {
    run.declare(set);
    machine.declare(set);
    fault.declare(set);
  }
  // `set` refers to the fields above: the bundle stays where it was made.
  ParameterBundle(const ParameterBundle&) = delete;
  ParameterBundle& operator=(const ParameterBundle&) = delete;
};

}  // namespace torus
