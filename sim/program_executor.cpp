#include "sim/program_executor.hpp"

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "kernels/mode_product.hpp"
#include "sim/block_kernel.hpp"
#include "sim/fft_task.hpp"
#include "sim/program_bounds.hpp"
#include "sim/program_executor_nodes.hpp"

namespace torus {
namespace {

// executor::NodeState, what the ProgramMachine keeps of each node besides its buffers, and
// executor::none are in sim/program_executor_nodes.hpp.

// The tag of a buffer nothing has written yet.
constexpr DataTag no_tag{std::numeric_limits<std::uint16_t>::max(), {0, 0, 0}};

// A message between its send and its receive: the sender copies its words in, the receiver
// takes them when it next touches the buffer its receive names (at once if already sent).
template <class T>
struct MessageInFlight {
  std::vector<T> payload;
  DataTag tag = no_tag;  // what the sender's buffer held
  bool dropped = false;  // its receive keeps no words
  bool taken = false;
};

template <class T>
class ProgramMachine {
 public:
  ProgramMachine(const Program& program, const HostData<T>& host, const ExecutorOptions& options)
      : p_(program), host_(host), options_(options) {}

  ProgramResult<T> run() {
    check_program_bounds(p_, host_);
    allocate();
    for (pass_ = 0;; ++pass_) {
      std::atomic<bool> progressed{false};
      for_each_node([&](std::size_t n) {
        if (nodes_[n].done || !nodes_[n].error.empty()) return;
        try {
          if (advance(n)) progressed.store(true, std::memory_order_relaxed);
        } catch (const std::exception& e) {
          nodes_[n].error = e.what();
        }
      });
      for (const executor::NodeState& node : nodes_)
        if (!node.error.empty()) throw std::logic_error(node.error);
      if (std::all_of(nodes_.begin(), nodes_.end(), [](const executor::NodeState& node) { return node.done; })) break;
      if (!progressed.load()) throw std::logic_error(executor::deadlock(p_, nodes_));
    }
    return finish();
  }

 private:
  // Contiguous ranges of nodes, one per thread; the calling thread takes the first.
  template <class F>
  void for_each_node(const F& f) {
    const std::size_t count = nodes_.size();
    const std::size_t threads = std::clamp<std::size_t>(options_.threads, 1, std::max<std::size_t>(count, 1));
    const auto range = [&](std::size_t t) {
      for (std::size_t n = t * count / threads; n < (t + 1) * count / threads; ++n) f(n);
    };
    std::vector<std::jthread> workers;
    for (std::size_t t = 1; t < threads; ++t) workers.emplace_back(range, t);
    range(0);
  }

  // A message sent in an earlier pass (never one of this pass: what a node sees must not
  // depend on how far other threads got).
  bool visible(std::uint32_t m) const { return sent_pass_[m].load(std::memory_order_acquire) < pass_; }

  void allocate() {
    result_.buffers.resize(p_.nodes.size());
    first_buffer_.assign(p_.nodes.size() + 1, 0);
    for (std::size_t n = 0; n < p_.nodes.size(); ++n) {
      std::size_t words = 0;
      for (const BufferSpec& spec : p_.nodes[n].buffers) {
        result_.buffers[n].emplace_back(spec.words);
        words += spec.words;
      }
      words_held_ = std::max(words_held_, words);
      first_buffer_[n + 1] = first_buffer_[n] + p_.nodes[n].buffers.size();
    }
    tag_.assign(first_buffer_.back(), no_tag);
    pending_.assign(first_buffer_.back(), executor::none);
    nodes_.assign(p_.nodes.size(), executor::NodeState{});
    for (executor::NodeState& node : nodes_) node.counts.assign(p_.transforms.size(), fresh_execution_counts());
    messages_.assign(p_.messages.size(), MessageInFlight<T>{});
    for (const FftSpec& f : p_.ffts) plans_.emplace_back(f);  // throws for a real element type
    sent_pass_ = std::make_unique<std::atomic<std::uint32_t>[]>(p_.messages.size());
    for (std::size_t m = 0; m < p_.messages.size(); ++m) sent_pass_[m].store(executor::none);
    for (const NodeProgram& node : p_.nodes)
      for (const Task& t : node.tasks)
        if (t.kind == TaskKind::Receive && t.buffer == no_buffer) messages_[t.message].dropped = true;
  }

  // ---- the task loop ----
  // Runs node n until it blocks or ends; true when it executed a task or finished.
  bool advance(std::size_t n) {
    executor::NodeState& node = nodes_[n];
    const std::vector<Task>& tasks = p_.nodes[n].tasks;
    bool progressed = false;
    while (node.pc < tasks.size()) {
      const Task& task = tasks[node.pc];
      if (!node.in_step || task.label.global_step != node.step.global_step) executor::open_step(node, task.label);
      if (!execute(n, task)) return progressed;
      ++node.pc;
      progressed = true;
    }
    if (!drained(n)) return progressed;
    executor::close_step(node);
    node.done = true;
    return true;
  }

  bool execute(std::size_t n, const Task& task) {
    switch (task.kind) {
      case TaskKind::Load: return load(n, task);
      case TaskKind::Compute: return compute(n, task);
      case TaskKind::Send: return send(n, task);
      case TaskKind::Receive: return receive(n, task);
      case TaskKind::Fft: return fft(n, task);
    }
    return false;
  }

  // Every input is read (and checked) before any output is written: in place is allowed.
  bool fft(std::size_t n, const Task& task) {
    const NodeProgram& node = p_.nodes[n];
    const TaskDetail& d = node.detail(task);
    const FftSpec& f = p_.ffts[d.kernel];
    for (std::uint32_t i = 0; i < f.inputs; ++i)
      if (!ready(n, fft_input(node, task, i))) return false;
    for (std::uint32_t i = 0; i < f.outputs; ++i)
      if (!ready(n, fft_output(node, task, f, i))) return false;
    std::vector<const T*> inputs;
    std::vector<T*> outputs;
    for (std::uint32_t i = 0; i < f.inputs; ++i) {
      expect(n, "FFT input", fft_input(node, task, i), slice_tag(d.operand_tag, f.input_cut, i));
      inputs.push_back(result_.buffers[n][fft_input(node, task, i)].data());
    }
    for (std::uint32_t i = 0; i < f.outputs; ++i) outputs.push_back(result_.buffers[n][fft_output(node, task, f, i)].data());
    plans_[d.kernel].run(inputs, outputs);
    for (std::uint32_t i = 0; i < f.outputs; ++i)
      tag_[first_buffer_[n] + fft_output(node, task, f, i)] = slice_tag(d.tag, f.output_cut, i);
    ProgramExecutionCounts& c = executor::counts_of(nodes_[n], task.label.transform);
    ++c.fft_tasks;
    c.fft_butterflies += f.butterflies();
    return true;
  }

  // A buffer with a posted receive whose message is not sent yet cannot be touched.
  bool ready(std::size_t n, std::uint32_t buffer) {
    const std::uint32_t message = pending_[first_buffer_[n] + buffer];
    if (message == executor::none) return true;
    if (visible(message)) {
      take(n, buffer, message);
      return true;
    }
    nodes_[n].waiting = message;
    return false;
  }

  bool load(std::size_t n, const Task& task) {
    if (!ready(n, task.buffer)) return false;
    const TaskDetail& d = p_.nodes[n].detail(task);
    host_.load(p_, d.source, result_.buffers[n][task.buffer].data());
    tag_[first_buffer_[n] + task.buffer] = d.tag;
    return true;
  }

  bool compute(std::size_t n, const Task& task) {
    const TaskDetail& d = p_.nodes[n].detail(task);
    if (!ready(n, task.buffer) || !ready(n, d.operand) || !ready(n, d.coefficient)) return false;
    auto& acc = result_.buffers[n][task.buffer];
    if (task.zero_accumulator) {
      std::fill(acc.begin(), acc.end(), T{});
      tag_[first_buffer_[n] + task.buffer] = d.tag;
    }
    expect(n, "accumulator", task.buffer, d.tag);
    expect(n, "operand", d.operand, d.operand_tag);
    expect(n, "coefficient", d.coefficient, d.coefficient_tag);
    const KernelSpec& kernel = p_.kernels[d.kernel];
    const T* operand = result_.buffers[n][d.operand].data();
    const T* coefficient = result_.buffers[n][d.coefficient].data();
    if (options_.machine_order) {
      multiply_add_block(kernel, acc.data(), operand, coefficient);
    } else {
      mode_product_accumulate(acc.data(), kernel.accumulator, operand, kernel.operand, coefficient, kernel.mode);
    }
    ProgramExecutionCounts& c = executor::counts_of(nodes_[n], task.label.transform);
    ++c.compute_tasks;
    c.scalar_multiply_adds += kernel.multiply_adds();
    return true;
  }

  void expect(std::size_t n, const char* role, std::uint32_t buffer, const DataTag& wanted) const {
    const DataTag& held = tag_[first_buffer_[n] + buffer];
    if (held == wanted) return;
    throw std::logic_error(fmt::format("{}: the {} buffer b{} holds {} but the task names {}", where(n, nodes_[n].pc), role,
                                       buffer, held == no_tag ? "nothing" : p_.describe(held), p_.describe(wanted)));
  }

  bool send(std::size_t n, const Task& task) {
    if (!ready(n, task.buffer)) return false;
    const std::vector<T>& words = result_.buffers[n][task.buffer];
    MessageInFlight<T>& m = messages_[task.message];
    m.tag = tag_[first_buffer_[n] + task.buffer];
    const std::size_t count = p_.messages[task.message].words;  // the block's words lead the buffer
    if (!m.dropped) m.payload.assign(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(count));
    sent_pass_[task.message].store(pass_, std::memory_order_release);
    nodes_[n].sent += count;
    ++executor::counts_of(nodes_[n], task.label.transform).messages;
    return true;
  }

  bool receive(std::size_t n, const Task& task) {
    if (task.buffer == no_buffer) {
      if (!visible(task.message)) nodes_[n].dropped.push_back(task.message);
      return true;
    }
    if (!ready(n, task.buffer)) return false;
    pending_[first_buffer_[n] + task.buffer] = task.message;
    if (visible(task.message)) take(n, task.buffer, task.message);
    return true;
  }

  // Message `id` lands in node n's buffer: when it fills the buffer its words' storage is
  // swapped in and the old freed; a smaller block is copied into the buffer's first words.
  void take(std::size_t n, std::uint32_t buffer, std::uint32_t id) {
    MessageInFlight<T>& m = messages_[id];
    std::vector<T>& into = result_.buffers[n][buffer];
    if (m.taken) throw std::logic_error(fmt::format("{}: message {} arrives twice", where(n, nodes_[n].pc), id));
    if (into.size() < m.payload.size())
      throw std::logic_error(fmt::format("message {} carries {} words into buffer b{} of node {}, which holds {}", id,
                                         m.payload.size(), buffer, p_.describe_node(n), into.size()));
    if (into.size() == m.payload.size()) m.payload.swap(into);
    else std::copy(m.payload.begin(), m.payload.end(), into.begin());
    std::vector<T>().swap(m.payload);
    m.taken = true;
    tag_[first_buffer_[n] + buffer] = m.tag;
    pending_[first_buffer_[n] + buffer] = executor::none;
  }

  // At the end of its list a node waits for every receive it posted.
  bool drained(std::size_t n) {
    executor::NodeState& node = nodes_[n];
    for (std::uint32_t b = 0; b < p_.nodes[n].buffers.size(); ++b)
      if (!ready(n, b)) return false;
    std::erase_if(node.dropped, [&](std::uint32_t m) { return visible(m); });
    if (node.dropped.empty()) return true;
    node.waiting = node.dropped.front();
    return false;
  }

  // ---- counts ----
  // The whole run's counts and each transform's, from every node's.
  ProgramResult<T> finish() {
    executor::MergedCounts merged = executor::merge_counts(nodes_, p_.transforms.size(), words_held_);
    result_.counts = merged.total;
    result_.per_transform = std::move(merged.per_transform);
    return std::move(result_);
  }

  // ---- diagnostics ----
  std::string where(std::size_t n, std::size_t k) const { return task_location(p_, n, k); }

  const Program& p_;
  const HostData<T>& host_;
  const ExecutorOptions options_;
  ProgramResult<T> result_;
  std::vector<std::size_t> first_buffer_;  // flat buffer index of each node's buffer 0
  std::vector<DataTag> tag_;               // per flat buffer: the block it holds
  std::vector<std::uint32_t> pending_;     // per flat buffer: posted receive not yet taken
  std::vector<executor::NodeState> nodes_;
  std::vector<MessageInFlight<T>> messages_;
  std::vector<FftPlan<T>> plans_;          // per Program::ffts
  std::unique_ptr<std::atomic<std::uint32_t>[]> sent_pass_;  // per message: the pass it was sent in, or none
  std::uint32_t pass_ = 0;
  std::size_t words_held_ = 0;
};

}  // namespace

template <class T>
Tensor3<T> ProgramResult<T>::gather(const Program& program, const std::string& output, std::vector<OutputBlock>* layout) const {
  const ProgramOutput* out = program.output(output);
  if (!out) {
    std::string names;
    for (const ProgramOutput& o : program.outputs) names += (names.empty() ? "" : ", ") + o.name;
    throw std::invalid_argument("output: the Program has no output '" + output + "'; it has: " + names);
  }
  if (out->tag.size() != out->entries() || (!out->node.empty() && out->node.size() != out->entries()))
    throw std::logic_error("output '" + output + "' lists buffers, tags and nodes of different counts");
  for (std::size_t i = 0; i < out->entries(); ++i) {
    const std::size_t node = out->node_of(i);
    if (node >= buffers.size() || out->buffer[i] >= buffers[node].size())
      throw std::logic_error("output '" + output + "' names a buffer node " + program.describe_node(node) + " does not have");
    const DataTag& tag = out->tag[i];
    const BlockGrid& cut = tag.kind < program.tag_kinds.size() && program.tag_kinds[tag.kind].cut ? *program.tag_kinds[tag.kind].cut
                                                                                                  : program.grid;
    for (std::size_t a = 0; a < 3; ++a) {
      const std::int32_t index = tag.index[a];
      if (index < 0 || static_cast<std::size_t>(index) >= cut.axis[a].parts)
        throw std::logic_error("output '" + output + "' names a block index outside the tensor");
    }
    if (buffers[node][out->buffer[i]].size() < program.words_of(tag))
      throw std::logic_error("output '" + output + "' names a buffer of node " + program.describe_node(node) +
                             " too small for its block");
  }
  const auto words = [this](std::size_t node, std::uint32_t buffer) { return buffers[node][buffer].data(); };
  return gather_output<T>(program, *out, words, layout);
}

template <class T>
ProgramResult<T> execute_program(const Program& program, const HostData<T>& host, const ExecutorOptions& options) {
  return ProgramMachine<T>(program, host, options).run();
}

#define TORUS_INSTANTIATE(T)                                                                    \
  template struct ProgramResult<T>;                                                             \
  template ProgramResult<T> execute_program(const Program&, const HostData<T>&, const ExecutorOptions&);
TORUS_INSTANTIATE(float)
TORUS_INSTANTIATE(double)
TORUS_INSTANTIATE(std::complex<float>)
TORUS_INSTANTIATE(std::complex<double>)
#undef TORUS_INSTANTIATE

}  // namespace torus
