#pragma once
// The contract between the run driver (models/simulation.cpp) and the engines that time a
// Program: the driver builds and verifies the Program, prepares the values and checks every
// result against the golden reference; an engine times the Program on the machine and leaves
// each node's buffers holding its final values. Engines: models/cycle (SystemC, cycle by
// cycle, the reference) and models/event (block-level discrete events).

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/datapath.hpp"
#include "models/engine_records.hpp"
#include "models/simulation.hpp"
#include "sim/phase_times.hpp"

namespace torus {

struct EngineInputs {
  const RunConfig& run;
  const MachineConfig& machine;
  const FaultConfig& fault;
  const Program& program;
  bool split_complex = false;  // complex data on a real fma unit: four fma per multiply-add
  std::function<std::unique_ptr<NodeDatapath>(std::size_t node)> make_datapath;
  std::function<void(Cycle)> on_progress;  // now and then, the cycle reached; empty: not called
  // Keep per-step spans (done, first and last word sent) in the records: a Chrome trace reads them.
  // The SystemC engine leaves them out otherwise (never); the event engine always keeps them.
  bool step_spans = false;
  // Where the engine adds the time it takes to build its state (phase elaborate) and to run
  // (phase simulate, the same figure as EngineRun::seconds()); null: kept nowhere.
  PhaseTimes* phases = nullptr;
};

// Contract: once the engine function has returned, records() describe the whole run and
// datapath(n) holds node n's buffers at the end. A run that stops making progress throws
// StallError naming who waits on what.
class EngineRun {
 public:
  virtual ~EngineRun() = default;
  virtual const NodeDatapath& datapath(std::size_t node) const = 0;
  virtual EngineRecords records() const = 0;
  virtual std::string fault_record() const = 0;  // what an injected fault did, or empty
  virtual double seconds() const = 0;            // wall time of the timing itself
};

// The record of a fault that was set but found nothing to act on.
std::string never_fired(const FaultConfig& fault);

std::unique_ptr<EngineRun> run_cycle_engine(const EngineInputs& inputs);
std::unique_ptr<EngineRun> run_event_engine(const EngineInputs& inputs);

// A Program timed by the engine the machine names, for the run drivers (models/simulation.cpp,
// models/matmul_simulation.cpp): the engine's state at the end and its records.
struct TimedProgram {
  std::unique_ptr<EngineRun> engine;
  EngineRecords records;
};
// Times inputs.program (its on_progress is set from `progress`), writes the Chrome trace when
// asked, and fills report.timing (all but memory_estimate_bytes) and report.fault. The analytic
// estimate beside it assumes the run's last transform is an inverse when `inverse_last`.
TimedProgram time_program(EngineInputs inputs, bool inverse_last, std::uint64_t fma_expected, const ProgressDisplay& progress,
                          RunReport& report);
// The machine parameters as set, for the report.
std::vector<std::pair<std::string, std::string>> machine_echo(const MachineConfig& machine);

// The timed matmul run (simulate() calls it for task: matmul): C as the engine's nodes hold it
// (empty with values off), with the outcome in report.matmul and the timing in report.timing.
template <class T>
Tensor3<T> simulate_matmul(const RunConfig& run, const MachineConfig& machine, const FaultConfig& fault, RunReport& report,
                           const ProgressDisplay& progress);

}  // namespace torus
