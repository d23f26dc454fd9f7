// The timed matmul run: the Program of the chosen algorithm, timed by the engine the machine
// names, with C read back from the engine's node buffers and checked against Eigen's product.

#include <optional>

#include "models/engine.hpp"
#include "sim/matmul_run.hpp"

namespace torus {

template <class T>
Tensor3<T> simulate_matmul(const RunConfig& run, const MachineConfig& machine, const FaultConfig& fault, RunReport& report,
                           const ProgressDisplay& progress) {
  std::optional<PhaseTimer> teardown;  // first made, last destroyed: it times the others' destruction
  PhaseTimes& phases = report.phases;
  const bool values = run.computes_values();
  Program program;
  MatmulOutcome outcome = prepare_matmul(run, program, phases);
  const bool split = is_complex_v<T> && machine.complex_cost() == 4;
  const HostData<T> host{Tensor3<T>(), {},
                         values ? timed(phases, Phase::Input, [&] { return make_operands<T>(run); }) : std::vector<Tensor3<T>>{}};
  const MatmulProblem& q = outcome.problem;
  const std::size_t cost = is_complex_v<T> ? machine.complex_cost() : 1;
  const TimedProgram timed_run = time_program(
      {run, machine, fault, program, split,
       [&](std::size_t node) { return values ? make_datapath(program, node, host) : make_null_datapath(program, node, sizeof(T)); },
       {},
       false},
      false, (q.m * q.k * q.n + outcome.counts.scalar_adds) * cost, progress, report);
  report.values = values;
  Tensor3<T> c;
  if (values) {
    std::vector<T> read_back;
    c = timed(phases, Phase::Gather, [&] {
      return gather_output<T>(program, *program.output(matmul_output), [&](std::size_t node, std::uint32_t buffer) {
        read_back = buffer_values<T>(timed_run.engine->datapath(node), buffer, program.nodes[node].buffers[buffer].words);
        return static_cast<const T*>(read_back.data());
      });
    });
    timed(phases, Phase::Check, [&] { check_product(outcome, c, host.operands, program); });
  }
  report.matmul = outcome;
  teardown.emplace(phases, Phase::Teardown);
  return c;
}

template Tensor3<float> simulate_matmul(const RunConfig&, const MachineConfig&, const FaultConfig&, RunReport&,
                                      const ProgressDisplay&);
template Tensor3<double> simulate_matmul(const RunConfig&, const MachineConfig&, const FaultConfig&, RunReport&,
                                      const ProgressDisplay&);
template Tensor3<std::complex<float>> simulate_matmul(const RunConfig&, const MachineConfig&, const FaultConfig&, RunReport&,
                                      const ProgressDisplay&);
template Tensor3<std::complex<double>> simulate_matmul(const RunConfig&, const MachineConfig&, const FaultConfig&, RunReport&,
                                      const ProgressDisplay&);

}  // namespace torus
