#include "sim/dataflow.hpp"

namespace torus {

NodeDataflow analyse_dataflow(const NodeProgram& node, const std::vector<FftSpec>& ffts) {
  NodeDataflow out;
  std::vector<TaskDataflow>& flow = out.tasks;
  flow.resize(node.tasks.size());
  std::vector<std::uint32_t> generation(node.buffers.size(), 0);
  std::vector<std::uint32_t> written_by(node.buffers.size(), no_task);  // the receive that filled it, if any
  std::uint32_t last_compute = no_task;
  const auto replace = [&](std::uint32_t buffer, std::uint32_t task, bool by_receive) {
    written_by[buffer] = by_receive ? task : no_task;
    return ++generation[buffer];
  };
  for (std::uint32_t i = 0; i < node.tasks.size(); ++i) {
    const Task& task = node.tasks[i];
    TaskDataflow& f = flow[i];
    switch (task.kind) {
      case TaskKind::Load: f.generation = replace(task.buffer, i, false); break;
      case TaskKind::Receive:
        if (task.buffer != no_buffer) f.generation = replace(task.buffer, i, true);
        break;
      case TaskKind::Send:
        f.generation = generation[task.buffer];
        f.preceding_compute = last_compute;
        break;
      case TaskKind::Compute: {
        const TaskDetail& d = node.detail(task);
        f.operand_generation = generation[d.operand];
        f.coefficient_generation = generation[d.coefficient];
        f.filled_by = {task.zero_accumulator ? no_task : written_by[task.buffer], written_by[d.operand],
                       written_by[d.coefficient]};
        f.generation = task.zero_accumulator ? replace(task.buffer, i, false) : generation[task.buffer];
        last_compute = i;
        break;
      }
      case TaskKind::Fft: {
        const FftSpec& spec = ffts.at(node.detail(task).kernel);
        FftDataflow fft{i, {}, {}, {}};
        for (std::uint32_t b = 0; b < spec.inputs; ++b) {
          fft.input_generations.push_back(generation[fft_input(node, task, b)]);
          fft.filled_by.push_back(written_by[fft_input(node, task, b)]);
        }
        for (std::uint32_t b = 0; b < spec.outputs; ++b)
          fft.output_generations.push_back(replace(fft_output(node, task, spec, b), i, false));
        f.fft = static_cast<std::uint32_t>(out.ffts.size());
        out.ffts.push_back(std::move(fft));
        last_compute = i;
        break;
      }
    }
  }
  return out;
}

namespace {

std::vector<std::uint32_t> tasks_of_kind(const Program& program, TaskKind kind) {
  std::vector<std::uint32_t> out(program.messages.size(), no_task);
  for (const NodeProgram& node : program.nodes)
    for (std::uint32_t i = 0; i < node.tasks.size(); ++i)
      if (node.tasks[i].kind == kind) out[node.tasks[i].message] = i;
  return out;
}

}  // namespace

std::vector<std::uint32_t> receive_tasks(const Program& program) { return tasks_of_kind(program, TaskKind::Receive); }
std::vector<std::uint32_t> send_tasks(const Program& program) { return tasks_of_kind(program, TaskKind::Send); }

}  // namespace torus
