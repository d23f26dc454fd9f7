#pragma once
// The untimed functional executor: P^3 virtual nodes, each holding its blocks, run a
// schedule step by step (every node's block multiply-add, then the rolls). It computes the
// values a torus computes, in the layout the torus leaves them, with no notion of time.

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "kernels/tensor3.hpp"
#include "sim/schedule.hpp"

namespace torus {

// What one run did, counted while it ran (not read off the schedule).
struct ExecutionCounts {
  std::size_t steps = 0;
  std::size_t block_multiply_adds = 0;
  std::size_t scalar_multiply_adds = 0;                 // b^4 per block multiply-add
  std::array<std::size_t, 3> words_moved_per_node_step{};  // per stage, max over nodes and steps
  std::array<std::size_t, 3> words_moved_per_node_step_min{};
  std::size_t words_held_per_node = 0;                  // peak over nodes and time
  std::size_t fft_butterflies = 0;                     // of the FFT tasks (none in the orbital schedule)
};

template <class T>
struct ExecutionResult {
  Tensor3<T> canonical;                   // the output gathered into canonical order
  std::vector<Placement> layout;          // which output block each node ends with (skewed)
  std::vector<Tensor3<T>> node_output;    // indexed by node, the data of its output block
  ExecutionCounts counts;
};

// `input` is the whole input tensor in canonical order; each node takes the blocks the
// schedule's initial placement gives it. `coefficients[a]` is the N x N matrix of axis a+1
// (forward C or inverse D, matching the schedule's direction). Throws std::logic_error when
// a node does not hold a block the schedule names (verify the schedule first).
template <class T>
ExecutionResult<T> execute_schedule(const Schedule& schedule, const Tensor3<T>& input,
                                    const std::array<Matrix<T>, 3>& coefficients);

}  // namespace torus
