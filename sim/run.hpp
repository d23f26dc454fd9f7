#pragma once
// Orchestrates one run: input, coefficients, the algorithm's Program and its verification,
// the functional execution of every requested direction (sim/program_executor.hpp), and the
// golden check of each result.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "sim/accuracy.hpp"
#include "sim/coefficient_tables.hpp"
#include "sim/executor.hpp"
#include "sim/machine_config.hpp"
#include "sim/node_capacity.hpp"
#include "sim/matmul.hpp"
#include "sim/phase_times.hpp"
#include "sim/run_config.hpp"
#include "sim/schedule.hpp"
#include "sim/timing_report.hpp"

namespace torus {

// Process exit codes of torus-sim, distinct per failure class.
enum class ExitCode : int { Success = 0, UsageError = 2, GoldenMismatch = 3, RuntimeFailure = 4, Stalled = 5 };

struct TransformOutcome {
  TransformDirection direction = TransformDirection::Forward;
  ScheduleCounts expected;        // read off the schedule (functional engine: off the Program)
  ExecutionCounts measured;       // counted by the engine while it ran; the functional engine's
                                  // words_held_per_node is the buffers a node allocates, second
                                  // buffers of rolled blocks included
  std::size_t schedule_violations = 0;
  std::string first_violation;
  // What was proved: "program" (the algorithm's own checks and the generic verifier on the
  // whole Program) or "quotient" (the generic verifier on its translation quotient only).
  std::string verified = "program";
  ErrorReport error;              // against the golden reference
  std::string mismatch;           // first failing output block and its node, if any
};

struct RunReport {
  std::string task = "transform";  // or "matmul": then `matmul` holds the outcome, `transforms` is empty
  std::optional<MatmulOutcome> matmul;
  std::string engine = "functional";
  std::string algorithm = "orbital";
  Extents3 n{0, 0, 0};           // N1, N2, N3
  std::array<int, 3> p{0, 0, 0};  // P1, P2, P3
  std::string boundary = "torus";  // "torus", or per axis "torus,mesh,mesh" (boundary_text)
  std::string b;                 // the blocks' edges: "4", "4x5x3", "2-3x3-4x5" (BlockGrid::describe_blocks)
  bool uniform_cube = true;      // N x N x N in b x b x b blocks on P x P x P nodes: the paper's formulas apply
  Extents3 largest_block{0, 0, 0};  // the largest block's extents along each axis
  bool coefficients_local = false;  // the nodes generate their coefficient blocks from tables
  CoefficientTables tables;         // what each node keeps for that
  std::string transform;
  std::string alpha;
  std::string normalisation;
  ScalarType scalar;
  std::uint64_t seed = 0;
  std::string input;  // "random(seed)" or the file
  std::vector<TransformOutcome> transforms;
  std::optional<ErrorReport> round_trip;
  std::vector<double> inverse_defects;  // per axis, for the round-trip bound
  std::vector<std::pair<std::string, std::string>> machine;  // timing parameters, as set
  std::string fault;  // what an injected fault did, or empty
  std::optional<TimingReport> timing;
  double wall_seconds = 0;  // from validating the parameters to the result file written
  PhaseTimes phases;        // where wall_seconds went (sim/phase_times.hpp)
  bool values = true;  // false: timed only (values: off), nothing computed or checked
  std::optional<NodeMemoryFit> node_memory;  // the fullest node's memory against node_memory_bytes
  // What the memory check estimated before the run (bytes; 0 when it did not check), kept for
  // the report: estimating again afterwards would, for the algorithms that cut the tensor their
  // own way, build a second Program beside the run's.
  double memory_estimate = 0;

  // fma per scalar multiply-add: 4 for complex data on a real fma unit, else 1.
  std::size_t fma_per_multiply_add = 1;
  bool passed() const;
  // False when the run needs more memory per node than the machine has: it was not simulated.
  bool fits() const { return !node_memory || node_memory->fits(); }
  std::size_t nodes() const { return static_cast<std::size_t>(p[0]) * static_cast<std::size_t>(p[1]) * static_cast<std::size_t>(p[2]); }
};

// Validates `config`, runs it and returns the report; writes config.output and
// config.report_json when set. Throws std::invalid_argument for bad parameters.
RunReport run_functional(const RunConfig& config, const MachineConfig& machine = {});

// The report fields every engine fills the same way, before running.
RunReport describe_run(const RunConfig& config, ScalarType scalar);
// The fullest node's memory against `machine.node_memory_bytes`, read off the Program's
// buffers (its translation quotient when it has one: every node holds the same buffers).
NodeMemoryFit fit_in_node_memory(const RunConfig& config, const MachineConfig& machine, const RunReport& report);
// Whether fit_in_node_memory builds at most a million nodes' task lists, so it may come before
// the host's memory check (a run that does not fit the simulated machine says so, whatever
// this host could do); otherwise the host's check comes first and refuses absurd sizes at once.
bool node_memory_is_cheap(const RunConfig& config);
// A run that does not fit: its report (config.report_json) says so, and nothing else is written.
void write_unfit_report(const RunConfig& config, const RunReport& report);
// The node-memory decision (report.node_memory) and the host's memory check, in the order that
// keeps both cheap. False when the run does not fit the simulated nodes: its report is then
// complete and written, and nothing is to be simulated.
bool admit_run(const RunConfig& config, const MachineConfig& machine, RunReport& report, bool complex_data,
               std::chrono::steady_clock::time_point start);
// Writes config.output (the final result; phase output), ends report.wall_seconds, counted
// from `start`, and writes config.report_json, which holds it.
template <class T>
void write_run_outputs(const RunConfig& config, RunReport& report, const Tensor3<T>& result,
                       std::chrono::steady_clock::time_point start);

}  // namespace torus
