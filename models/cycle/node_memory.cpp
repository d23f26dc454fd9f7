#include "models/cycle/node_memory.hpp"

#include <algorithm>
#include <string>

namespace torus {
namespace {

// The last generation the plan starts in any buffer of the node: every load, receive, zeroing
// compute and FFT output starts one, numbered per buffer from 1.
std::uint32_t last_generation(const NodeProgram& node, const NodePlan& plan) {
  std::uint32_t last = 0;
  for (std::size_t i = 0; i < node.tasks.size(); ++i) {
    const std::uint32_t info = plan.info[i];
    switch (node.tasks[i].kind) {
      case TaskKind::Load:
      case TaskKind::Receive:
      case TaskKind::Send: last = std::max(last, info); break;
      case TaskKind::Compute: last = std::max(last, plan.computes[info].accumulator_generation); break;
      case TaskKind::Fft:
        for (const std::uint32_t g : plan.ffts[info].output_generations) last = std::max(last, g);
        break;
    }
  }
  return last;
}

struct BufferUse {
  bool received = false, sent = false, accumulated = false;
};

std::vector<BufferUse> buffer_uses(const NodeProgram& node) {
  std::vector<BufferUse> use(node.buffers.size());
  for (const Task& task : node.tasks) {
    if (task.buffer == no_buffer) continue;
    if (task.kind == TaskKind::Receive) use[task.buffer].received = true;
    else if (task.kind == TaskKind::Send) use[task.buffer].sent = true;
    else if (task.kind == TaskKind::Compute) use[task.buffer].accumulated = true;
  }
  return use;
}

}  // namespace

void NodeMemory::allocate(const NodeProgram& node, const NodePlan& plan, std::size_t components) {
  const std::uint32_t last = last_generation(node, plan);
  if (last > generation_limit)
    throw GenerationLimitError("engine systemc holds up to " + std::to_string(generation_limit) +
                               " successive contents of one buffer in a node (every load, receive, zeroing compute and "
                               "FFT output starts one); this run's task list replaces one buffer's content " +
                               std::to_string(last) +
                               " times: time it with engine event, which has no such limit, or give each node less "
                               "work (more nodes, a smaller problem)");
  components_ = components;
  const std::vector<BufferUse> use = buffer_uses(node);
  std::size_t words = 0, relayed = 0, accumulator = 0;
  for (std::size_t b = 0; b < node.buffers.size(); ++b) {
    words += node.buffers[b].words;
    if (use[b].received && use[b].sent) relayed += node.buffers[b].words;
    if (use[b].accumulated) accumulator = std::max<std::size_t>(accumulator, node.buffers[b].words);
  }
  // Sized once, exactly: the views below must not move.
  words_.assign(words, WordState{});
  component_ready_.assign(components > 1 ? words * components : 0, NarrowCycle{});
  left_at_.assign(relayed, 0);
  wide_left_at_.clear();
  writes_left_.assign(accumulator, 0);
  updating_ = no_buffer;
  buffers_.assign(node.buffers.size(), BufferState{});
  std::size_t at = 0, relayed_at = 0;
  for (std::size_t b = 0; b < node.buffers.size(); ++b) {
    const std::size_t n = node.buffers[b].words;
    BufferState& buf = buffers_[b];
    buf.words = {words_.data() + at, n};
    if (use[b].received && use[b].sent) {
      buf.left_at = left_at_.data() + relayed_at;
      relayed_at += n;
    }
    at += n;
  }
}

void NodeMemory::rebase_left(BufferState& buf, std::uint32_t word, Cycle latest) {
  Cycle first = latest, last = latest;
  const auto n = static_cast<std::uint32_t>(buf.words.size());
  for (std::uint32_t w = 0; w < n; ++w) {
    const Cycle left = w == word ? never : left_at(buf, w);
    if (left == never) continue;
    first = std::min(first, left);
    last = std::max(last, left);
  }
  if (last - first < max_offset) {
    std::vector<Cycle> cycles(n);
    for (std::uint32_t w = 0; w < cycles.size(); ++w) cycles[w] = w == word ? latest : left_at(buf, w);
    buf.left_base = first;
    for (std::uint32_t w = 0; w < cycles.size(); ++w)
      buf.left_at[w] = cycles[w] == never ? 0 : static_cast<std::uint16_t>(cycles[w] - first + 1);
    return;
  }
  std::vector<NarrowCycle> wide(n);
  for (std::uint32_t w = 0; w < wide.size(); ++w) wide[w] = w == word ? latest : left_at(buf, w);
  wide_left_at_.push_back(std::move(wide));
  buf.wide_left_at = wide_left_at_.back().data();  // a vector moved keeps its storage
}

void NodeMemory::place(std::uint32_t b, std::uint32_t generation, Cycle cycle, const DataTag& tag) {
  BufferState& buf = buffers_[b];
  for (WordState& w : buf.words) {
    w.ready = cycle;
    w.generation = static_cast<std::uint16_t>(generation);  // allocate() saw it fits
  }
  std::ranges::fill(component_ready(b), NarrowCycle(cycle));
  buf.latest_generation = std::max(buf.latest_generation, static_cast<std::uint16_t>(generation));
  buf.tag = tag;
}

void NodeMemory::owe(std::uint32_t b, std::uint32_t generation, std::size_t words) {
  BufferState& buf = buffers_[b];
  const bool none_here = generation > buf.latest_generation;
  bool arriving = none_here;
  for (std::size_t i = 0; i < (none_here ? 0 : words); ++i) {
    WordState& w = buf.words[i];
    if (w.generation != generation) {
      arriving = true;  // not here yet: owed when it lands
      continue;
    }
    if (w.owed++ == 0) ++buf.owed_words;
  }
  if (!arriving) return;
  for (BufferState::PendingSend& p : buf.pending_sends)
    if (p.generation == generation && p.words == words) {
      ++p.count;
      return;
    }
  buf.pending_sends.push_back({generation, static_cast<std::uint32_t>(words), 1});
}

void NodeMemory::release_pending(std::uint32_t b, std::uint32_t generation, std::uint32_t words) {
  auto& pending = buffers_[b].pending_sends;
  for (auto it = pending.begin(); it != pending.end(); ++it)
    if (it->generation == generation && it->words == words) {
      if (--it->count == 0) pending.erase(it);
      return;
    }
}

std::size_t NodeMemory::bytes() const {
  std::size_t total = buffers_.capacity() * sizeof(BufferState) + words_.capacity() * sizeof(WordState) +
                      component_ready_.capacity() * sizeof(NarrowCycle) +
                      (left_at_.capacity() + writes_left_.capacity()) * sizeof(std::uint16_t) +
                      wide_left_at_.capacity() * sizeof(wide_left_at_[0]);
  for (const std::vector<NarrowCycle>& wide : wide_left_at_) total += wide.capacity() * sizeof(NarrowCycle);
  for (const BufferState& b : buffers_) total += b.pending_sends.capacity() * sizeof(BufferState::PendingSend);
  return total;
}

}  // namespace torus
