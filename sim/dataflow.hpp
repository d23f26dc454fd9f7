#pragma once
// What an engine needs to know about a node's task list beyond the tasks themselves, derived
// once from the Program: which "generation" of each buffer a task writes or reads (every load,
// receive, zeroing compute and every output of an FFT replaces a buffer's content and starts a
// new generation), which
// receives a compute must wait for, and which compute a send follows. With it an engine can
// run tasks out of order where the Program allows and still give each task the content its
// place in the list means.

#include <array>
#include <cstdint>
#include <vector>

#include "sim/program.hpp"

namespace torus {

inline constexpr std::uint32_t no_task = no_buffer;

struct TaskDataflow {
  // load, receive, zeroing compute: the generation it creates in its buffer; send: the one it
  // sends; compute: the accumulator's.
  std::uint32_t generation = 0;
  std::uint32_t operand_generation = 0;      // compute
  std::uint32_t coefficient_generation = 0;  // compute
  // compute: the receive tasks whose words fill its accumulator, operand and coefficient (no_task
  // when that content does not come by a receive).
  std::array<std::uint32_t, 3> filled_by{no_task, no_task, no_task};
  std::uint32_t preceding_compute = no_task;  // send: the last compute (or FFT) before it in the list
  std::uint32_t fft = no_task;  // fft: its index in NodeDataflow::ffts
};

// An FFT task reads every input's generation (all of them before it writes: in place, an
// output that is also an input is read in its old generation) and starts a new one in every
// output, like a zeroing compute.
struct FftDataflow {
  std::uint32_t task = 0;
  std::vector<std::uint32_t> input_generations;   // per input buffer
  std::vector<std::uint32_t> filled_by;           // per input: the receive that filled it, or no_task
  std::vector<std::uint32_t> output_generations;  // per output buffer
  bool operator==(const FftDataflow&) const = default;
};

struct NodeDataflow {
  std::vector<TaskDataflow> tasks;
  std::vector<FftDataflow> ffts;  // in list order
};

// `ffts` is the Program's (Program::ffts), which says how many buffers an FFT task reads and writes.
NodeDataflow analyse_dataflow(const NodeProgram& node, const std::vector<FftSpec>& ffts);

// For every message, the index of its receive task in the destination node's list.
std::vector<std::uint32_t> receive_tasks(const Program& program);
// For every message, the index of its send task in the source node's list.
std::vector<std::uint32_t> send_tasks(const Program& program);

}  // namespace torus
