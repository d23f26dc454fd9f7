#pragma once
// Task helpers the transpose algorithms share: a node's local transform of whole lines along
// one axis, as one FFT task or as dense mode products with blocks of the coefficient matrix.

#include <cstdint>
#include <vector>

#include "sim/program.hpp"

namespace torus {

// Appends to `node` an FFT task of `spec` (added to program.ffts when new, its name set from
// its axis and extents): it reads `inputs` (slices along spec.input_cut, the first tagged
// `first_input`) and writes `outputs` (along spec.output_cut, the first tagged `first_output`),
// both listed in the node's buffer_lists.
void add_fft_task(Program& program, NodeProgram& node, const TaskLabel& label, FftSpec spec,
                  const std::vector<std::uint32_t>& inputs, const DataTag& first_input,
                  const std::vector<std::uint32_t>& outputs, const DataTag& first_output);

// One block of a dense local transform: the load of coefficient block `coefficient` (from
// host array `matrix`) into `coefficient_buffer`, then acc (+)= in x_mode coefficient.
struct ModeProduct {
  int mode = 1;
  std::uint32_t accumulator = no_buffer, operand = no_buffer, coefficient_buffer = no_buffer;
  DataTag accumulator_tag, operand_tag, coefficient;
  std::uint16_t matrix = 0;
  bool zero_accumulator = false;
};
void add_mode_product(Program& program, NodeProgram& node, const TaskLabel& label, const ModeProduct& product);

}  // namespace torus
