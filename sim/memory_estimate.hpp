#pragma once
// A conservative estimate of what a run will take, checked before anything is built, so an
// enormous torus is refused in a moment instead of exhausting the machine. Calibrated against
// measured peaks (tools/benchmark.py): it overestimates by up to about 50 %.

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/machine_config.hpp"
#include "sim/run_config.hpp"

namespace torus {

struct MemoryEstimate {
  double nodes_bytes = 0;     // node models: state, two buffers per rolled kind, six links
  double schedule_bytes = 0;  // the schedules as data and their verification
  double tensors_bytes = 0;   // input (as read and as held), results, golden reference and bounds
  std::string what = "run";   // "run", or the schedule command ("torus-sim verify")
  // Engine event, values off: why it keeps state per word or per fma (empty: it keeps none,
  // docs/timing-model.md "Closed forms"), named when the run is refused.
  std::string per_word_because;
  // 14 MiB: the program itself, its libraries and their heaps (the smallest runs peak at 12.5).
  double total() const { return 14.0 * 1024 * 1024 + nodes_bytes + schedule_bytes + tensors_bytes; }
  std::string describe() const;
};

MemoryEstimate estimate_memory(const RunConfig& run, const MachineConfig& machine, bool complex_data);

// Throws std::invalid_argument naming the estimate and the limit when the run would not fit:
// max_memory when set, otherwise the memory the system reports available. Returns the estimate
// it checked.
MemoryEstimate check_memory(const RunConfig& run, const MachineConfig& machine, bool complex_data);
// The same for any estimate; `smaller` says what to reduce ("a smaller P").
void check_memory(const MemoryEstimate& estimate, std::int64_t max_memory, std::string_view smaller);

// The bytes a run or command may use: max_memory when set (> 0), otherwise the memory the
// system reports available (0 when unknown).
std::size_t memory_limit(std::int64_t max_memory);
// The byte budget of a Program built to look at it before a run (TransformProblem::
// max_program_bytes): half the limit, as the run's estimate counts the Program twice; 0 (none)
// when the limit is unknown.
std::size_t program_budget(std::int64_t max_memory);

// What `torus-sim schedule`, `verify` and `program` (`command`) need at torus edge P, in
// `format` ("text" or "json"), for `directions` transforms: a schedule's output is built whole
// (P = 128 once took 8 GB before printing a line); a Program's is written once it is built.
// Fitted to the orbital schedule: an algorithm of many more messages (ring_block_fft with dense
// local kernels: 6 GB at N = 64 on 16^3 nodes) needs more, and is held to memory_limit() while
// it is built (Program::byte_budget).
MemoryEstimate estimate_schedule_command(std::string_view command, std::string_view format, std::int64_t p,
                                         std::size_t directions);

}  // namespace torus
