#include "sim/program.hpp"

#include <algorithm>
#include <bit>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace torus {

std::string to_string(TaskKind kind) {
  static const std::array<const char*, 5> names = {"load", "compute", "send", "receive", "fft"};
  return names[static_cast<std::size_t>(kind)];
}

namespace {
std::uint32_t narrow_index(std::size_t value, const char* what) {
  if (value > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error(fmt::format("Program: {} {} exceeds the limit {}", what, value, std::numeric_limits<std::uint32_t>::max()));
  return static_cast<std::uint32_t>(value);
}
}  // namespace

TaskLabel::TaskLabel(std::size_t transform_, std::size_t stage_, std::size_t step_, std::size_t global_step_)
    : step(narrow_index(step_, "step")), global_step(narrow_index(global_step_, "global step")) {
  constexpr std::size_t most = std::numeric_limits<std::uint16_t>::max();
  if (transform_ > most || stage_ > most)
    throw std::length_error(fmt::format("Program: transform {} or stage {} exceeds the limit {}", transform_, stage_, most));
  transform = static_cast<std::uint16_t>(transform_);
  stage = static_cast<std::uint16_t>(stage_);
}

void NodeProgram::add(Task task, const TaskDetail& detail) {
  if (task.kind == TaskKind::Send || task.kind == TaskKind::Receive) return add(task);
  task.detail = narrow_index(details.size(), "task details of a node");
  details.push_back(detail);
  tasks.push_back(task);
}

void NodeProgram::shrink_to_fit() {
  buffers.shrink_to_fit();
  tasks.shrink_to_fit();
  details.shrink_to_fit();
  buffer_lists.shrink_to_fit();
}

std::uint32_t Program::add_message(std::size_t source, std::size_t destination, std::span<const Direction> route,
                                   std::size_t words, const DataTag& tag) {
  const std::uint32_t index = narrow_index(messages.size(), "messages");
  const std::uint32_t begin = narrow_index(routes.size(), "route hops");
  narrow_index(routes.size() + route.size(), "route hops");
  routes.insert(routes.end(), route.begin(), route.end());
  messages.push_back({narrow_index(source, "message source"), narrow_index(destination, "message destination"), begin,
                      static_cast<std::uint32_t>(route.size()), narrow_index(words, "message words"), tag});
  // bytes() walks the nodes: looked at once per node count of messages (at least 4,096), it
  // costs a constant per message.
  if (byte_budget != 0 && ++unchecked_messages_ >= std::max<std::size_t>(4096, nodes.size())) {
    unchecked_messages_ = 0;
    check_budget();
  }
  return index;
}

void Program::check_budget() const {
  const std::size_t held = bytes(*this);
  if (held <= byte_budget) return;
  constexpr double mib = 1024.0 * 1024.0;
  throw std::invalid_argument(fmt::format(
      "memory: the Program of {} for this problem grew past {:.1f} MiB, what the memory allowed leaves for it (max_memory, "
      "or else the memory the system reports available), after {} messages and still growing; allowed: a smaller N or P, or a "
      "larger max_memory",
      algorithm, static_cast<double>(byte_budget) / mib, messages.size()));
}

void Program::shrink_to_fit() {
  messages.shrink_to_fit();
  routes.shrink_to_fit();
  for (NodeProgram& node : nodes) node.shrink_to_fit();
}

std::string Program::describe(const DataTag& tag) const {
  const TagKind* kind = tag.kind < tag_kinds.size() ? &tag_kinds[tag.kind] : nullptr;
  const std::string name = kind ? kind->name : fmt::format("tag{}", tag.kind);
  if (kind && kind->dimensions == 2) return fmt::format("{}({},{})", name, tag.index[0], tag.index[1]);
  return fmt::format("{}({},{},{})", name, tag.index[0], tag.index[1], tag.index[2]);
}

KernelSpec cube_kernel(int mode, std::size_t b) { return {"mode" + std::to_string(mode), mode, {b, b, b}, {b, b, b}}; }

std::size_t FftSpec::passes() const { return static_cast<std::size_t>(std::countr_zero(length())); }
std::size_t FftSpec::butterflies() const { return lines() * (length() / 2) * passes(); }

Extents3 FftSpec::input_extents() const {
  Extents3 e = whole;
  e[static_cast<std::size_t>(input_cut - 1)] /= inputs;
  return e;
}

Extents3 FftSpec::output_extents() const {
  Extents3 e = whole;
  e[static_cast<std::size_t>(output_cut - 1)] /= outputs;
  return e;
}

Extents3 Program::extents_of(const DataTag& tag) const {
  if (tag.kind < tag_kinds.size() && tag_kinds[tag.kind].cut) return tag_kinds[tag.kind].cut->extents(tag.index);
  const int axis = tag.kind < tag_kinds.size() ? tag_kinds[tag.kind].axis : 0;
  if (axis < 1 || axis > 3) return grid.extents(tag.index);
  const AxisSplit& split = grid.axis[static_cast<std::size_t>(axis - 1)];
  return {split.size(static_cast<std::size_t>(tag.index[0])), split.size(static_cast<std::size_t>(tag.index[1])), 1};
}

std::size_t Program::largest_block_words() const {
  std::size_t most = grid.largest_words();
  for (const TagKind& kind : tag_kinds)
    if (kind.cut) most = std::max(most, kind.cut->largest_words());
  return most;
}

Extents3 Program::host_block_extents(const HostBlock& block) const {
  const HostArray& array = host_arrays.at(block.array);
  if (array.cut) return array.cut->extents(block.index);
  if (!array.matrix) return grid.extents(block.index);
  const AxisSplit& split = grid.axis[static_cast<std::size_t>(std::clamp(array.axis, 1, 3) - 1)];
  return {split.size(static_cast<std::size_t>(block.index[0])), split.size(static_cast<std::size_t>(block.index[1])), 1};
}

Extents3 Program::origin_of(const DataTag& tag) const {
  if (tag.kind < tag_kinds.size() && tag_kinds[tag.kind].cut) return tag_kinds[tag.kind].cut->origin(tag.index);
  const int axis = tag.kind < tag_kinds.size() ? tag_kinds[tag.kind].axis : 0;
  if (axis < 1 || axis > 3) return grid.origin(tag.index);
  const AxisSplit& split = grid.axis[static_cast<std::size_t>(axis - 1)];
  return {split.offset(static_cast<std::size_t>(tag.index[0])), split.offset(static_cast<std::size_t>(tag.index[1])), 0};
}

std::pair<AxisSplit, AxisSplit> Program::matrix_splits(const HostArray& array) const {
  if (array.cut) return {array.cut->axis[0], array.cut->axis[1]};
  const AxisSplit& split = grid.axis[static_cast<std::size_t>(std::clamp(array.axis, 1, 3) - 1)];
  return {split, split};
}

std::size_t Program::words_of(const DataTag& tag) const {
  const Extents3 e = extents_of(tag);
  return e[0] * e[1] * e[2];
}

std::uint32_t Program::kernel_for(int mode, const Extents3& accumulator, const Extents3& operand) {
  for (std::uint32_t k = 0; k < kernels.size(); ++k)
    if (kernels[k].mode == mode && kernels[k].accumulator == accumulator && kernels[k].operand == operand) return k;
  // One name per mode when every block is b x b x b; otherwise the extents tell kernels apart.
  std::string name = "mode" + std::to_string(mode);
  if (!grid.uniform_cube())
    name += fmt::format(" {}x{}x{}+={}x{}x{}", accumulator[0], accumulator[1], accumulator[2], operand[0], operand[1], operand[2]);
  kernels.push_back({name, mode, accumulator, operand});
  return static_cast<std::uint32_t>(kernels.size() - 1);
}

std::string Program::describe_node(std::size_t node) const { return to_string(shape.coord_of(node)); }

std::size_t Program::global_steps() const {
  std::size_t steps = 0;
  for (const StageInfo& s : stages) steps += s.steps;
  return steps;
}

const ProgramOutput* Program::output(const std::string& name) const {
  for (const ProgramOutput& o : outputs)
    if (o.name == name) return &o;
  return nullptr;
}

ProgramCounts count(const Program& program, std::uint32_t transform) {
  ProgramCounts c;
  std::set<std::uint32_t> steps;
  for (std::size_t n = 0; n < program.nodes.size(); ++n) {
    const NodeProgram& node = program.nodes[n];
    std::size_t declared = 0;
    for (const BufferSpec& b : node.buffers) declared += b.words;
    c.words_held_per_node = std::max(c.words_held_per_node, declared);
    std::uint32_t step = ~0u, stage = 0;
    std::size_t sent = 0;
    auto close_step = [&] {
      if (stage >= 1 && stage <= 3) {
        auto& w = c.words_sent_per_node_step[stage - 1];
        w = std::max(w, sent);
      }
      sent = 0;
    };
    for (const Task& task : node.tasks) {
      if (task.label.transform != transform) continue;
      if (task.label.global_step != step) {
        close_step();
        step = task.label.global_step;
        stage = task.label.stage;
        steps.insert(step);
      }
      if (task.kind == TaskKind::Compute) {
        ++c.compute_tasks;
        c.scalar_multiply_adds += program.kernels[node.detail(task).kernel].multiply_adds();
      } else if (task.kind == TaskKind::Fft) {
        ++c.fft_tasks;
        c.fft_butterflies += program.ffts[node.detail(task).kernel].butterflies();
      } else if (task.kind == TaskKind::Send) {
        const Message& m = program.messages[task.message];
        sent += m.words;
        ++c.messages;
        c.hops += m.hops;
        c.max_hops = std::max<std::size_t>(c.max_hops, m.hops);
      }
    }
    close_step();
  }
  c.steps = steps.size();
  const std::size_t copies = program.nodes_represented() / std::max<std::size_t>(program.nodes.size(), 1);
  c.compute_tasks *= copies;
  c.scalar_multiply_adds *= copies;
  c.fft_tasks *= copies;
  c.fft_butterflies *= copies;
  c.messages *= copies;
  c.hops *= copies;
  return c;
}

std::size_t words_one_per_kind(const Program& program) {
  std::size_t most = 0;
  for (const NodeProgram& node : program.nodes) {
    std::vector<std::size_t> largest(program.tag_kinds.size() + 1, 0);
    for (const BufferSpec& b : node.buffers) {
      std::size_t& of_kind = largest[std::min<std::size_t>(b.kind, program.tag_kinds.size())];
      of_kind = std::max<std::size_t>(of_kind, b.words);
    }
    std::size_t words = 0;
    for (const std::size_t w : largest) words += w;
    most = std::max(most, words);
  }
  return most;
}

std::size_t bytes(const Program& program) {
  std::size_t total = sizeof(Program) + program.messages.capacity() * sizeof(Message) +
                      program.routes.capacity() * sizeof(Direction) + program.nodes.capacity() * sizeof(NodeProgram);
  for (const NodeProgram& n : program.nodes)
    total += n.tasks.capacity() * sizeof(Task) + n.details.capacity() * sizeof(TaskDetail) +
             n.buffers.capacity() * sizeof(BufferSpec) + n.buffer_lists.capacity() * sizeof(std::uint32_t);
  total += program.kernels.capacity() * sizeof(KernelSpec) + program.ffts.capacity() * sizeof(FftSpec);
  for (const FftSpec& f : program.ffts) total += f.name.capacity();
  for (const ProgramOutput& o : program.outputs) total += (o.buffer.capacity() + o.node.capacity()) * sizeof(std::uint32_t) + o.tag.capacity() * sizeof(DataTag);
  return total;
}

}  // namespace torus
