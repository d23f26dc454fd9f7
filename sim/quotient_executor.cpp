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

namespace torus {
namespace {

constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

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
    prepare();
    const std::size_t count = nodes();
    const unsigned threads = static_cast<unsigned>(std::clamp<std::size_t>(threads_, 1, count));
    std::barrier sync(threads, [this]() noexcept { between_groups(); });
    const auto work = [&](unsigned t) {
      for (std::size_t g = 0; g + 1 < group_start_.size(); ++g) {
        if (!failed_.load(std::memory_order_relaxed))
          for (std::size_t n = t * count / threads, end = (t + 1) * count / threads; n < end; ++n) {
            if (n + 1 < end) prefetch(g, n + 1);
            for (std::size_t k = group_start_[g]; k < group_start_[g + 1]; ++k) execute(n, k);
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

  // ---- setup ----
  void prepare() {
    if (!q_.translation_quotient || q_.nodes.size() != 1) throw std::logic_error("execute_quotient needs a translation quotient");
    if (blocks_.size() != nodes()) throw std::logic_error("execute_quotient: node blocks for every node are needed");
    if (std::any_of(tasks_.begin(), tasks_.end(), [](const Task& t) { return t.kind == TaskKind::Fft; }))
      throw std::logic_error("execute_quotient: the quotient has FFT tasks, which it does not run; compute the values "
                             "from the whole Program (symmetry: off)");
    const std::size_t loads = std::count_if(tasks_.begin(), tasks_.end(), [](const Task& t) { return t.kind == TaskKind::Load; });
    for (const QuotientNodeBlocks& b : blocks_)
      if (b.loads.size() != loads || b.outputs.size() != q_.outputs.size())
        throw std::logic_error("execute_quotient: a node's blocks do not match the quotient's loads and outputs");
    sent_at_.assign(q_.messages.size(), none);
    dropped_.assign(q_.messages.size(), false);
    moves_.assign(tasks_.size(), false);
    for (std::size_t k = 0; k < tasks_.size(); ++k) {
      const Task& t = tasks_[k];
      if (t.kind == TaskKind::Send) sent_at_[t.message] = static_cast<std::uint32_t>(k);
      if (t.kind == TaskKind::Receive && t.buffer == no_buffer) dropped_[t.message] = true;
      if (t.kind == TaskKind::Send) moves_[k] = dead_after(k, t.buffer);
    }
    const std::vector<BufferSpec>& specs = q_.nodes.front().buffers;
    buffers_.resize(nodes());
    work_.resize(nodes());
    for (std::size_t n = 0; n < nodes(); ++n)
      for (const BufferSpec& spec : specs) buffers_[n].emplace_back(spec.words);
    pending_.assign(nodes() * specs.size(), none);
    per_node_ = specs.size();
    for (std::size_t n = 0; n < nodes(); ++n) coords_.push_back(q_.shape.coord_of(n));
    for (const Message& m : q_.messages) {
      NodeCoord at{0, 0, 0};
      for (const Direction d : m.route) at = q_.shape.ring_neighbour(at, d);
      reach_.push_back(at);
    }
    inbox_.resize(q_.messages.size());
    outstanding_ = std::make_unique<std::atomic<std::size_t>[]>(q_.messages.size());
    plan_groups();
    prepare_inboxes(0);
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
          if (t.buffer == buffer) return q_.words_of(t.tag) == words;
          break;
        case TaskKind::Receive:
          if (t.buffer == buffer) return q_.messages[t.message].words == words;
          break;
        case TaskKind::Send:
          if (t.buffer == buffer) return false;
          break;
        case TaskKind::Compute:
          if (t.operand == buffer || t.coefficient == buffer) return false;
          if (t.buffer == buffer) return t.zero_accumulator;
          break;
        case TaskKind::Fft: return false;  // refused in prepare(); never reached
      }
    }
    return std::none_of(q_.outputs.begin(), q_.outputs.end(),
                        [&](const ProgramOutput& o) { return !o.buffer.empty() && o.buffer.front() == buffer; });
  }

  // Groups of consecutive tasks a node runs in one go: a group ends before a task that needs
  // a message sent within it, so every message a group takes was sent in an earlier group
  // (on another thread, maybe) and every node's group runs on its own words alone. Which
  // messages a task takes is the same on every node: it follows the list alone.
  void plan_groups() {
    std::vector<std::uint32_t> pending(q_.nodes.front().buffers.size(), none);
    std::size_t start = 0;
    group_start_ = {0};
    start_of_.assign(tasks_.size(), 0);
    const auto touch = [&](std::size_t k, std::uint32_t buffer) {
      const std::uint32_t m = pending[buffer];
      pending[buffer] = none;
      if (m == none || sent_at_[m] == none || sent_at_[m] < start || sent_at_[m] >= k) return;  // late: ready() names it
      start = k;
      group_start_.push_back(k);
    };
    for (std::size_t k = 0; k < tasks_.size(); ++k) {
      const Task& t = tasks_[k];
      if (t.kind == TaskKind::Compute) {
        for (const std::uint32_t b : {t.buffer, t.operand, t.coefficient}) touch(k, b);
      } else if (t.buffer != no_buffer) {
        touch(k, t.buffer);
      }
      start_of_[k] = static_cast<std::uint32_t>(start);
      for (const std::uint32_t b : {t.buffer, t.operand, t.coefficient})
        if (b != no_buffer && t.kind != TaskKind::Receive) touched_.resize(group_start_.size()), touched_.back().push_back(b);
      if (t.kind == TaskKind::Receive && t.buffer != no_buffer && !(sent_at_[t.message] < start)) pending[t.buffer] = t.message;
    }
    group_start_.push_back(tasks_.size());
  }

  // The words node n is about to read in group g, asked of memory while the node before it
  // computes: a node's blocks lie apart in memory, so the hardware does not guess them.
  void prefetch(std::size_t g, std::size_t n) const {
    if (g >= touched_.size()) return;
    for (const std::uint32_t b : touched_[g]) {
      const std::uint32_t m = pending_[n * per_node_ + b];
      const std::vector<T>& words = m == none ? buffers_[n][b] : inbox_[m][n];
      const char* bytes = reinterpret_cast<const char*>(words.data());
      for (std::size_t at = 0; at < words.size() * sizeof(T); at += 64) __builtin_prefetch(bytes + at);
    }
  }

  std::size_t start_of(std::size_t k) const { return k < tasks_.size() ? start_of_[k] : tasks_.size(); }

  // Between two groups, on one thread: the slots the next group sends into, and the slots
  // every copy of a message has left.
  void between_groups() {
    ++group_;
    if (group_ + 1 < group_start_.size()) prepare_inboxes(group_);
    for (const std::uint32_t m : open_)
      if (outstanding_[m].load(std::memory_order_relaxed) == 0) std::vector<std::vector<T>>().swap(inbox_[m]);
    std::erase_if(open_, [&](std::uint32_t m) { return inbox_[m].empty(); });
  }

  void prepare_inboxes(std::size_t group) {
    for (std::size_t k = group_start_[group]; k < group_start_[group + 1]; ++k) {
      const Task& t = tasks_[k];
      if (t.kind != TaskKind::Send || dropped_[t.message]) continue;
      inbox_[t.message].resize(nodes());
      outstanding_[t.message].store(nodes(), std::memory_order_relaxed);
      open_.push_back(t.message);
    }
  }

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
    ready(n, k, t.buffer);
    ready(n, k, t.operand);
    ready(n, k, t.coefficient);
    std::vector<T>& acc = buffers_[n][t.buffer];
    if (t.zero_accumulator) std::fill(acc.begin(), acc.end(), T{});
    multiply_add_block(q_.kernels[t.kernel], acc.data(), buffers_[n][t.operand].data(), buffers_[n][t.coefficient].data());
  }

  void send(std::size_t n, std::size_t k, const Task& t) {
    ready(n, k, t.buffer);
    if (dropped_[t.message]) return;
    const Message& m = q_.messages[t.message];
    const NodeCoord at = shifted(coords_[n], reach_[t.message]);
    std::vector<T>& words = buffers_[n][t.buffer];
    std::vector<T> payload = take_spare(n, m.words);
    if (moves_[k]) {
      payload.swap(words);
      words.resize(m.words);  // what it holds is overwritten before it is read
    } else {
      payload.assign(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(m.words));
    }
    inbox_[t.message][q_.shape.index_of(at)] = std::move(payload);
  }

  void receive(std::size_t n, std::size_t k, const Task& t) {
    if (t.buffer == no_buffer) return;  // nothing is kept: its copies are never stored
    ready(n, k, t.buffer);
    pending_[n * per_node_ + t.buffer] = t.message;
    if (sent_at_[t.message] < start_of(k)) take(n, t.buffer, t.message);
  }

  // A buffer with a posted receive gets its message before task k touches it.
  void ready(std::size_t n, std::size_t k, std::uint32_t buffer) {
    const std::uint32_t m = pending_[n * per_node_ + buffer];
    if (m == none) return;
    if (sent_at_[m] == none || sent_at_[m] >= start_of(k))
      throw std::logic_error(fmt::format("the translation quotient cannot run in lockstep: task {} touches buffer b{} before "
                                         "message {} is sent (task {})", k, buffer, m,
                                         sent_at_[m] == none ? std::string("never") : std::to_string(sent_at_[m])));
    take(n, buffer, m);
  }

  void take(std::size_t n, std::uint32_t buffer, std::uint32_t m) {
    std::vector<T>& payload = inbox_[m][n];
    std::vector<T>& into = buffers_[n][buffer];
    if (payload.size() == into.size()) {
      payload.swap(into);
    } else {
      std::copy(payload.begin(), payload.end(), into.begin());
    }
    work_[n].spare.push_back(std::move(payload));
    payload = std::vector<T>();
    pending_[n * per_node_ + buffer] = none;
    outstanding_[m].fetch_sub(1, std::memory_order_relaxed);
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
  NodeBuffers<T> buffers_;
  std::vector<NodeWork<T>> work_;
  std::vector<std::uint32_t> pending_;  // per node and buffer: the posted receive's message, or none
  std::size_t per_node_ = 0;            // buffers per node
  std::vector<NodeCoord> coords_;       // per node
  std::vector<NodeCoord> reach_;        // per message: where node (0,0,0)'s copy arrives
  std::vector<std::uint32_t> sent_at_;  // per message: the place of its send in the list
  std::vector<bool> dropped_;           // per message: its receive keeps no words
  std::vector<bool> moves_;             // per task: a send that hands its buffer's storage over
  std::vector<std::vector<std::vector<T>>> inbox_;  // per message, per receiving node: its copy
  std::unique_ptr<std::atomic<std::size_t>[]> outstanding_;  // per message: copies not yet taken
  std::vector<std::uint32_t> open_;     // messages with an inbox
  std::vector<std::size_t> group_start_;  // the first task of each group, then the list's end
  std::vector<std::uint32_t> start_of_;   // per task: the first task of its group
  std::vector<std::vector<std::uint32_t>> touched_;  // per group: the buffers its tasks read or write
  std::size_t group_ = 0;                 // the group running
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
