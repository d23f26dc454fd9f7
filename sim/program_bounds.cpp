#include "sim/program_bounds.hpp"

#include <complex>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/fft_task.hpp"

namespace torus {

std::string task_location(const Program& program, std::size_t n, std::size_t k) {
  const Task& t = program.nodes[n].tasks[k];
  return fmt::format("node {}, task {} ({}, transform {} stage {} step {})", program.describe_node(n), k, to_string(t.kind),
                     t.label.transform, t.label.stage, t.label.step);
}

namespace {

template <class Fits>
bool fft_fits(const Program& program, const NodeProgram& node, const Task& t, const Fits& fits) {
  const TaskDetail& d = node.detail(t);
  if (d.kernel >= program.ffts.size() || !fft_spec_problems(program.ffts[d.kernel]).empty()) return false;
  const FftSpec& f = program.ffts[d.kernel];
  if (d.list != no_buffer && std::size_t{d.list} + f.inputs + f.outputs > node.buffer_lists.size()) return false;
  const Extents3 in = f.input_extents(), out = f.output_extents();
  for (std::uint32_t i = 0; i < f.inputs; ++i)
    if (!fits(fft_input(node, t, i), in[0] * in[1] * in[2])) return false;
  for (std::uint32_t i = 0; i < f.outputs; ++i)
    if (!fits(fft_output(node, t, f, i), out[0] * out[1] * out[2])) return false;
  return true;
}

template <class T>
bool in_host(const Program& program, const HostData<T>& host, const HostBlock& block) {
  const HostArray& array = program.host_arrays[block.array];
  const auto fits = [](std::int32_t index, const AxisSplit& split) {
    return index >= 0 && static_cast<std::size_t>(index) < split.parts;
  };
  if (array.cut && !array.matrix) {
    const Tensor3<T>* from = array.input_pieces ? &host.input
                             : array.operand < host.operands.size() ? &host.operands[array.operand] : nullptr;
    if (!from || from->extents() != array.cut->tensor_extents()) return false;
    for (std::size_t a = 0; a < 3; ++a)
      if (!fits(block.index[a], array.cut->axis[a])) return false;
    return true;
  }
  if (!array.matrix) {
    for (std::size_t a = 0; a < 3; ++a)
      if (!fits(block.index[a], program.grid.axis[a])) return false;
    return true;
  }
  if (array.transform >= host.coefficients.size() || array.axis < 1 || array.axis > 3) return false;
  const auto [rows, cols] = program.matrix_splits(array);
  const Matrix<T>& m = host.coefficients[array.transform][static_cast<std::size_t>(array.axis - 1)];
  return static_cast<std::size_t>(m.rows()) == rows.n && static_cast<std::size_t>(m.cols()) == cols.n &&
         fits(block.index[0], rows) && fits(block.index[1], cols);
}

template <class T>
void check_task(const Program& program, const HostData<T>& host, std::size_t n, std::size_t k) {
  const Task& t = program.nodes[n].tasks[k];
  const auto fits = [&](std::uint32_t buffer, std::size_t words) {
    return buffer < program.nodes[n].buffers.size() && program.nodes[n].buffers[buffer].words >= words;
  };
  const bool detailed = t.kind == TaskKind::Load || t.kind == TaskKind::Compute || t.kind == TaskKind::Fft;
  if (detailed && t.detail >= program.nodes[n].details.size())
    throw std::logic_error(task_location(program, n, k) + ": names a detail record the node does not have (run verify_program)");
  bool ok = true;
  switch (t.kind) {
    case TaskKind::Load: {
      const TaskDetail& d = program.nodes[n].detail(t);
      ok = d.source.array < program.host_arrays.size() && in_host(program, host, d.source) && fits(t.buffer, program.words_of(d.tag));
      break;
    }
    case TaskKind::Compute: {
      const TaskDetail& d = program.nodes[n].detail(t);
      if (d.kernel >= program.kernels.size()) {
        ok = false;
        break;
      }
      const KernelSpec& kernel = program.kernels[d.kernel];
      ok = kernel.mode >= 1 && kernel.mode <= 3 && fits(t.buffer, kernel.accumulator_words()) &&
           fits(d.operand, kernel.operand_words()) && fits(d.coefficient, kernel.coefficient_words());
      break;
    }
    case TaskKind::Send:
      ok = t.message < program.messages.size() && program.messages[t.message].source == n && fits(t.buffer, program.messages[t.message].words);
      break;
    case TaskKind::Receive:
      ok = t.message < program.messages.size() && program.messages[t.message].destination == n &&
           (t.buffer == no_buffer || fits(t.buffer, program.messages[t.message].words));
      break;
    case TaskKind::Fft: ok = fft_fits(program, program.nodes[n], t, fits); break;
  }
  if (!ok) throw std::logic_error(task_location(program, n, k) + ": an index or buffer size does not fit the Program (run verify_program)");
}

}  // namespace

template <class T>
void check_program_bounds(const Program& program, const HostData<T>& host) {
  if (program.nodes.size() != program.shape.node_count()) throw std::logic_error("the Program's node count does not match its shape");
  if (host.input.size() != 0 && host.input.extents() != program.grid.tensor_extents())
    throw std::logic_error("host data and Program disagree on the tensor's extents");
  for (std::size_t n = 0; n < program.nodes.size(); ++n)
    for (std::size_t k = 0; k < program.nodes[n].tasks.size(); ++k) check_task(program, host, n, k);
}

template void check_program_bounds(const Program&, const HostData<float>&);
template void check_program_bounds(const Program&, const HostData<double>&);
template void check_program_bounds(const Program&, const HostData<std::complex<float>>&);
template void check_program_bounds(const Program&, const HostData<std::complex<double>>&);

}  // namespace torus
