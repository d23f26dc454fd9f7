#include "models/cycle/node_memory.hpp"

#include <algorithm>

namespace torus {

void NodeMemory::allocate(const NodeProgram& node, std::size_t components) {
  components_ = components;
  buffers_.resize(node.buffers.size());
  for (std::size_t b = 0; b < node.buffers.size(); ++b) {
    buffers_[b].words.assign(node.buffers[b].words, WordState{});
    if (components > 1) buffers_[b].component_ready.assign(node.buffers[b].words * components, NarrowCycle{});
  }
}

void NodeMemory::place(std::uint32_t b, std::uint32_t generation, Cycle cycle, const DataTag& tag) {
  BufferState& buf = buffers_[b];
  for (WordState& w : buf.words) {
    w.ready = cycle;
    w.generation = generation;
  }
  std::fill(buf.component_ready.begin(), buf.component_ready.end(), NarrowCycle(cycle));
  buf.tag = tag;
}

void NodeMemory::owe(std::uint32_t b, std::uint32_t generation, std::size_t words) {
  BufferState& buf = buffers_[b];
  bool arriving = false;
  for (std::size_t i = 0; i < words; ++i) {
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
  std::size_t total = buffers_.capacity() * sizeof(BufferState);
  for (const BufferState& b : buffers_)
    total += b.words.capacity() * sizeof(WordState) + b.component_ready.capacity() * sizeof(NarrowCycle) +
             b.pending_sends.capacity() * sizeof(b.pending_sends[0]);
  return total;
}

}  // namespace torus
