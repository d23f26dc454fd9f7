#include "sim/quotient_executor.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "sim/block_kernel.hpp"
#include "sim/lockstep_plan.hpp"

namespace torus {
namespace {

template <class T>
struct NodeWork {
  std::vector<std::vector<T>> spare;       // storage for payloads, reused
  std::size_t next_load = 0;
};

template <class T>
class Lockstep {
 public:
  Lockstep(const Program& q, const std::vector<QuotientNodeBlocks>& blocks, const HostData<T>& host, unsigned threads)
      : q_(q), blocks_(blocks), host_(host), tasks_(q.nodes.front().tasks), threads_(std::max(1u, threads)) {}

  NodeBuffers<T> run() {
    const std::size_t count = nodes();
    const unsigned threads = static_cast<unsigned>(std::clamp<std::size_t>(threads_, 1, count));
    prepare(threads);
    std::barrier sync(threads, [this]() noexcept { next_unit_.store(0, std::memory_order_relaxed); });
    const auto work = [&](unsigned t) {
      for (const LockstepPhase& phase : plan_.phases) {
        if (phase.units() == 0) {
          if (!failed_.load(std::memory_order_relaxed)) run_nodes(phase.first_group, t * count / threads, (t + 1) * count / threads);
        } else {
          for (std::size_t u; (u = next_unit_.fetch_add(1, std::memory_order_relaxed)) < phase.units();)
            run_component(phase, u);
        }
        sync.arrive_and_wait();
      }
    };
    {
      std::vector<std::jthread> workers;
      for (unsigned t = 1; t < threads; ++t) workers.emplace_back(work, t);
      work(0);
    }
    if (failed_) throw std::logic_error(error_);
    finish();
    return std::move(buffers_);
  }

 private:
  std::size_t nodes() const { return q_.shape.node_count(); }

  // Group g on the nodes first..end, one node after the other.
  void run_nodes(std::size_t g, std::size_t first, std::size_t end) {
    for (std::size_t n = first; n < end; ++n) {
      if (n + 1 < end) prefetch(g, n + 1);
      for (std::size_t k = plan_.group_start[g]; k < plan_.group_start[g + 1]; ++k) execute(n, k);
    }
  }

  // Every group of the phase on one component's nodes: its blocks stay in cache across them.
  void run_component(const LockstepPhase& phase, std::size_t unit) {
    const std::uint32_t* const first = phase.order.data() + phase.unit_start[unit];
    const std::size_t size = phase.unit_start[unit + 1] - phase.unit_start[unit];
    for (std::size_t g = phase.first_group; g < phase.end_group; ++g) {
      if (failed_.load(std::memory_order_relaxed)) return;
      for (std::size_t i = 0; i < size; ++i) {
        if (i + 1 < size) prefetch(g, first[i + 1]);
        for (std::size_t k = plan_.group_start[g]; k < plan_.group_start[g + 1]; ++k) execute(first[i], k);
      }
    }
  }

  // ---- setup ----
  void prepare(unsigned threads) {
    plan_ = plan_lockstep(q_, threads);
    if (blocks_.size() != nodes()) throw std::logic_error("execute_quotient: node blocks for every node are needed");
    if (std::any_of(tasks_.begin(), tasks_.end(), [](const Task& t) { return t.kind == TaskKind::Fft; }))
      throw std::logic_error("execute_quotient: the quotient has FFT tasks, which it does not run; compute the values "
                             "from the whole Program (symmetry: off)");
    const std::size_t loads = std::count_if(tasks_.begin(), tasks_.end(), [](const Task& t) { return t.kind == TaskKind::Load; });
    for (const QuotientNodeBlocks& b : blocks_)
      if (b.loads.size() != loads || b.outputs.size() != q_.outputs.size())
        throw std::logic_error("execute_quotient: a node's blocks do not match the quotient's loads and outputs");
    moves_.assign(tasks_.size(), false);
    for (std::size_t k = 0; k < tasks_.size(); ++k)
      if (tasks_[k].kind == TaskKind::Send) moves_[k] = dead_after(k, tasks_[k].buffer);
    const std::vector<BufferSpec>& specs = q_.nodes.front().buffers;
    buffers_.resize(nodes());
    work_.resize(nodes());
    for (std::size_t n = 0; n < nodes(); ++n)
      for (const BufferSpec& spec : specs) buffers_[n].emplace_back(spec.words);
    pending_.assign(nodes() * specs.size(), no_message);
    per_node_ = specs.size();
    for (std::size_t n = 0; n < nodes(); ++n) coords_.push_back(q_.shape.coord_of(n));
    mailbox_.resize(nodes() * plan_.slots);
  }

  // Where a message from `from` arrives: its route moves every copy by the same offset.
  NodeCoord shifted(const NodeCoord& from, const NodeCoord& by) const {
    const auto wrap = [](int v, int p) { return v >= p ? v - p : v; };
    return {wrap(from.q + by.q, q_.shape.p1), wrap(from.r + by.r, q_.shape.p2), wrap(from.s + by.s, q_.shape.p3)};
  }

  // Whether the words of `buffer` after task k are never read again: its next toucher
  // overwrites all of it (a receive or load of a whole buffer, a compute starting from zero),
  // or nothing touches it and it is no output. A send there can hand over the storage itself.
  bool dead_after(std::size_t k, std::uint32_t buffer) const {
    const std::uint32_t words = q_.nodes.front().buffers[buffer].words;
    if (q_.messages[tasks_[k].message].words != words) return false;
    for (std::size_t j = k + 1; j < tasks_.size(); ++j) {
      const Task& t = tasks_[j];
      switch (t.kind) {
        case TaskKind::Load:
          if (t.buffer == buffer) return q_.words_of(q_.nodes.front().detail(t).tag) == words;
          break;
        case TaskKind::Receive:
          if (t.buffer == buffer) return q_.messages[t.message].words == words;
          break;
        case TaskKind::Send:
          if (t.buffer == buffer) return false;
          break;
        case TaskKind::Compute:
          if (q_.nodes.front().detail(t).operand == buffer || q_.nodes.front().detail(t).coefficient == buffer) return false;
          if (t.buffer == buffer) return t.zero_accumulator;
          break;
        case TaskKind::Fft: return false;  // refused in prepare(); never reached
      }
    }
    return std::none_of(q_.outputs.begin(), q_.outputs.end(),
                        [&](const ProgramOutput& o) { return !o.buffer.empty() && o.buffer.front() == buffer; });
  }

  // The words node n is about to read in group g, asked of memory while the node before it
  // computes: a node's blocks lie apart in memory, so the hardware does not guess them.
  void prefetch(std::size_t g, std::size_t n) const {
    if (g >= plan_.touched.size()) return;
    for (const std::uint32_t b : plan_.touched[g]) {
      const std::uint32_t m = pending_[n * per_node_ + b];
      const std::vector<T>& words = m == no_message ? buffers_[n][b] : mailbox(n, m);
      const char* bytes = reinterpret_cast<const char*>(words.data());
      for (std::size_t at = 0; at < words.size() * sizeof(T); at += 64) __builtin_prefetch(bytes + at);
    }
  }

  std::size_t start_of(std::size_t k) const { return k < tasks_.size() ? plan_.start_of[k] : tasks_.size(); }

  // Node n's copy of message m, until n takes it.
  std::vector<T>& mailbox(std::size_t n, std::uint32_t m) { return mailbox_[n * plan_.slots + plan_.slot[m]]; }
  const std::vector<T>& mailbox(std::size_t n, std::uint32_t m) const { return mailbox_[n * plan_.slots + plan_.slot[m]]; }

  // ---- one task on one node ----
  void execute(std::size_t n, std::size_t k) {
    try {
      const Task& t = tasks_[k];
      switch (t.kind) {
        case TaskKind::Load: load(n, k, t); break;
        case TaskKind::Compute: compute(n, k, t); break;
        case TaskKind::Send: send(n, k, t); break;
        case TaskKind::Receive: receive(n, k, t); break;
        case TaskKind::Fft: break;  // refused in prepare()
      }
    } catch (const std::exception& e) {
      fail(n, e.what());
    }
  }

  void fail(std::size_t n, const std::string& what) {
    const std::lock_guard lock(error_mutex_);
    if (!failed_.load() || n < error_node_) {
      error_node_ = n;
      error_ = what;
    }
    failed_.store(true);
  }

  void load(std::size_t n, std::size_t k, const Task& t) {
    ready(n, k, t.buffer);
    const HostBlock& source = blocks_[n].loads[work_[n].next_load++];
    host_.load(q_, source, buffers_[n][t.buffer].data());
  }

  void compute(std::size_t n, std::size_t k, const Task& t) {
    const TaskDetail& d = q_.nodes.front().detail(t);
    ready(n, k, t.buffer);
    ready(n, k, d.operand);
    ready(n, k, d.coefficient);
    std::vector<T>& acc = buffers_[n][t.buffer];
    if (t.zero_accumulator) std::fill(acc.begin(), acc.end(), T{});
    multiply_add_block(q_.kernels[d.kernel], acc.data(), buffers_[n][d.operand].data(), buffers_[n][d.coefficient].data());
  }

  void send(std::size_t n, std::size_t k, const Task& t) {
    ready(n, k, t.buffer);
    if (plan_.dropped[t.message]) return;
    const Message& m = q_.messages[t.message];
    const NodeCoord at = shifted(coords_[n], plan_.reach[t.message]);
    std::vector<T>& words = buffers_[n][t.buffer];
    std::vector<T> payload = take_spare(n, m.words);
    if (moves_[k]) {
      payload.swap(words);
      words.resize(m.words);  // what it holds is overwritten before it is read
    } else {
      payload.assign(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(m.words));
    }
    mailbox(q_.shape.index_of(at), t.message) = std::move(payload);
  }

  void receive(std::size_t n, std::size_t k, const Task& t) {
    if (t.buffer == no_buffer) return;  // nothing is kept: its copies are never stored
    ready(n, k, t.buffer);
    pending_[n * per_node_ + t.buffer] = t.message;
    if (plan_.sent_at[t.message] < start_of(k)) take(n, t.buffer, t.message);
  }

  // A buffer with a posted receive gets its message before task k touches it.
  void ready(std::size_t n, std::size_t k, std::uint32_t buffer) {
    const std::uint32_t m = pending_[n * per_node_ + buffer];
    if (m == no_message) return;
    const std::uint32_t sent = plan_.sent_at[m];
    if (sent == no_message || sent >= start_of(k))
      throw std::logic_error(fmt::format("the translation quotient cannot run in lockstep: task {} touches buffer b{} before "
                                         "message {} is sent (task {})", k, buffer, m,
                                         sent == no_message ? std::string("never") : std::to_string(sent)));
    take(n, buffer, m);
  }

  void take(std::size_t n, std::uint32_t buffer, std::uint32_t m) {
    std::vector<T>& payload = mailbox(n, m);
    std::vector<T>& into = buffers_[n][buffer];
    if (payload.size() == into.size()) {
      payload.swap(into);
    } else {
      std::copy(payload.begin(), payload.end(), into.begin());
    }
    work_[n].spare.push_back(std::move(payload));
    payload = std::vector<T>();
    pending_[n * per_node_ + buffer] = no_message;
  }

  // Storage for `words` words from the node's spares (their values are stale), or new.
  std::vector<T> take_spare(std::size_t n, std::size_t words) {
    std::vector<std::vector<T>>& spare = work_[n].spare;
    for (std::size_t i = spare.size(); i-- > 0;)
      if (spare[i].capacity() >= words) {
        std::vector<T> out = std::move(spare[i]);
        spare.erase(spare.begin() + static_cast<std::ptrdiff_t>(i));
        return out;
      }
    return {};
  }

  // At the end of its list a node has every posted receive (the last tasks may post some).
  void finish() {
    for (std::size_t n = 0; n < nodes(); ++n)
      for (std::uint32_t b = 0; b < buffers_[n].size(); ++b) ready(n, tasks_.size(), b);
  }

  const Program& q_;
  const std::vector<QuotientNodeBlocks>& blocks_;
  const HostData<T>& host_;
  const std::vector<Task>& tasks_;
  const unsigned threads_;
  LockstepPlan plan_;
  NodeBuffers<T> buffers_;
  std::vector<NodeWork<T>> work_;
  std::vector<std::uint32_t> pending_;  // per node and buffer: the posted receive's message, or no_message
  std::size_t per_node_ = 0;            // buffers per node
  std::vector<NodeCoord> coords_;       // per node
  std::vector<bool> moves_;             // per task: a send that hands its buffer's storage over
  std::vector<std::vector<T>> mailbox_; // per node and mailbox slot: a copy sent to it, not yet taken
  std::atomic<std::size_t> next_unit_{0};  // the next component of a phase to run
  std::atomic<bool> failed_{false};
  std::mutex error_mutex_;
  std::size_t error_node_ = 0;
  std::string error_;
};

}  // namespace

template <class T>
NodeBuffers<T> execute_quotient(const Program& quotient, const std::vector<QuotientNodeBlocks>& nodes,
                                const HostData<T>& host, unsigned threads) {
  return Lockstep<T>(quotient, nodes, host, threads).run();
}

std::vector<ProgramOutput> quotient_outputs(const Program& quotient, const std::vector<QuotientNodeBlocks>& nodes) {
  std::vector<ProgramOutput> out;
  for (std::size_t i = 0; i < quotient.outputs.size(); ++i) {
    ProgramOutput o = quotient.outputs[i];
    o.buffer.assign(nodes.size(), quotient.outputs[i].buffer.front());
    o.tag.clear();
    for (const QuotientNodeBlocks& node : nodes) o.tag.push_back(node.outputs[i]);
    out.push_back(std::move(o));
  }
  return out;
}

#define TORUS_INSTANTIATE(T)                                                                                  \
  template NodeBuffers<T> execute_quotient(const Program&, const std::vector<QuotientNodeBlocks>&, const HostData<T>&, \
                                           unsigned);
TORUS_INSTANTIATE(float)
TORUS_INSTANTIATE(double)
TORUS_INSTANTIATE(std::complex<float>)
TORUS_INSTANTIATE(std::complex<double>)
#undef TORUS_INSTANTIATE

}  // namespace torus
