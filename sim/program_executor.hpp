#pragma once
// The untimed functional engine for any Program: every node runs its task list in order over
// its own buffers, computing the values the torus computes, with no notion of time. It is the
// engine behind `torus-sim run --engine functional` and the reference the timed engines are
// compared with.
//
// The meaning of the order is the one sim/program_verifier.hpp states: a send never blocks
// (it snapshots the buffer); a receive is posted at its place in the list and from there on its
// buffer holds the message's block, but the node only waits for the message when a later task
// touches that buffer (reads, writes, sends it or receives into it again) or when its list
// ends. Without that, the orbital Program, which posts the next step's receives before the
// current step computes, would deadlock.
//
// Nodes run in passes, in parallel over `threads`: within a pass each node runs until it
// blocks, and a message sent in one pass is seen by its receiver from the next pass on. What a
// node computes depends only on the words it holds, so the values are the same for any number
// of threads.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "kernels/tensor3.hpp"
#include "sim/execution_counts.hpp"
#include "sim/host_data.hpp"
#include "sim/program.hpp"

namespace torus {

template <class T>
struct ProgramResult {
  std::vector<std::vector<std::vector<T>>> buffers;  // [node][buffer]: the words at the end
  ProgramExecutionCounts counts;                     // the whole run
  std::vector<ProgramExecutionCounts> per_transform;  // by TaskLabel::transform

  // Assembles the named output into an N1 x N2 x N3 tensor in canonical order (the Program's
  // grid); `layout` gets which block each node held. Throws std::invalid_argument naming the
  // outputs the Program has when absent.
  Tensor3<T> gather(const Program& program, const std::string& output, std::vector<OutputBlock>* layout = nullptr) const;
};

// Runs `program` with the values of `host` (input tensor and coefficient matrices). Throws
// std::logic_error when a compute finds a buffer holding another block than the task names,
// when buffer sizes do not fit the kernel or message, and when the Program cannot progress
// (naming the waiting nodes and the messages they wait for). Verify the Program first
// (verify_program) for diagnostics of every problem at once.
struct ExecutorOptions {
  unsigned threads = 1;  // at least 1
  // Each compute in the machine's fma order (sim/block_kernel.hpp), bit-identical to the timing
  // engines' values under every micro-schedule; otherwise a dense mode product
  // (kernels/mode_product.hpp), as the functional engine does.
  bool machine_order = false;
};

template <class T>
ProgramResult<T> execute_program(const Program& program, const HostData<T>& host, const ExecutorOptions& options = {});

}  // namespace torus
