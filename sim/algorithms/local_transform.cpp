#include "sim/algorithms/local_transform.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace torus {

void add_fft_task(Program& program, NodeProgram& node, const TaskLabel& label, FftSpec spec,
                  const std::vector<std::uint32_t>& inputs, const DataTag& first_input,
                  const std::vector<std::uint32_t>& outputs, const DataTag& first_output) {
  spec.inputs = static_cast<std::uint32_t>(inputs.size());
  spec.outputs = static_cast<std::uint32_t>(outputs.size());
  spec.name = fmt::format("fft{} {}", spec.axis, extents_text(spec.whole));
  auto found = std::find(program.ffts.begin(), program.ffts.end(), spec);
  if (found == program.ffts.end()) found = program.ffts.insert(found, spec);
  Task task = make_task(TaskKind::Fft, label);
  TaskDetail d;
  d.kernel = static_cast<std::uint32_t>(found - program.ffts.begin());
  d.list = static_cast<std::uint32_t>(node.buffer_lists.size());
  node.buffer_lists.insert(node.buffer_lists.end(), inputs.begin(), inputs.end());
  node.buffer_lists.insert(node.buffer_lists.end(), outputs.begin(), outputs.end());
  d.operand = inputs.front();
  d.operand_tag = first_input;
  task.buffer = outputs.front();
  d.tag = first_output;
  node.add(task, d);
}

void add_mode_product(Program& program, NodeProgram& node, const TaskLabel& label, const ModeProduct& product) {
  Task load = make_task(TaskKind::Load, label);
  load.buffer = product.coefficient_buffer;
  TaskDetail source;
  source.tag = product.coefficient;
  source.source = {product.matrix, product.coefficient.index};
  node.add(load, source);
  Task compute = make_task(TaskKind::Compute, label);
  compute.buffer = product.accumulator;
  compute.zero_accumulator = product.zero_accumulator;
  TaskDetail d;
  d.operand = product.operand;
  d.coefficient = product.coefficient_buffer;
  d.tag = product.accumulator_tag;
  d.operand_tag = product.operand_tag;
  d.coefficient_tag = product.coefficient;
  d.kernel = program.kernel_for(product.mode, program.extents_of(product.accumulator_tag), program.extents_of(product.operand_tag));
  node.add(compute, d);
}

}  // namespace torus
