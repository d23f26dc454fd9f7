#pragma once
// A node's buffers as the timing model sees them: per word, the cycle its value becomes
// usable, which generation of the buffer's content it holds (sim/dataflow.hpp), how many
// posted sends still owe it to a link, and how many updates the running compute still has to
// make to it. Values live in the datapath; this is only the scoreboard.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/narrow_cycle.hpp"
#include "models/cycle/systemc.hpp"
#include "sim/program.hpp"

namespace torus {

// 16 bytes: one is kept for every word of every node's buffers.
struct WordState {
  NarrowCycle ready = 0;          // first cycle the value may be read (max over components)
  NarrowCycle left_at = never;    // the cycle it last left on a link: replaceable from the next one
  std::uint32_t generation = 0;   // 0: never written
  std::uint16_t owed = 0;         // posted sends that must take this word before it is replaced
  std::uint16_t writes_left = 0;  // updates the current compute still makes to it
  bool replaceable(Cycle cycle) const {
    const Cycle left = left_at;
    return owed == 0 && (left == never || left < cycle);
  }
};

struct BufferState {
  std::vector<WordState> words;
  std::vector<NarrowCycle> component_ready;  // split complex only: per word * 2 + component
  DataTag tag;                         // what the buffer holds now
  std::uint32_t owed_words = 0;        // words with owed > 0
  Cycle busy_until = never;            // the last cycle a word of it leaves (sends scheduled ahead)
  // Posted sends waiting for a generation that is still arriving: a word stored later with
  // that generation is owed to them from the moment it lands.
  // Sends of one generation taking the same leading words share an entry.
  struct PendingSend {
    std::uint32_t generation;
    std::uint32_t words;   // the send takes the buffer's first `words` words
    std::uint16_t count;   // sends of this generation and extent
  };
  std::vector<PendingSend> pending_sends;
};

class NodeMemory {
 public:
  void allocate(const NodeProgram& node, std::size_t components);

  BufferState& buffer(std::uint32_t b) { return buffers_[b]; }
  const BufferState& buffer(std::uint32_t b) const { return buffers_[b]; }
  std::size_t components() const { return components_; }

  // Load or zero: every word holds `generation` from `cycle` on.
  void place(std::uint32_t b, std::uint32_t generation, Cycle cycle, const DataTag& tag);
  // A received word: usable from `cycle`, owed at once to the sends already waiting for it.
  // (Inline, as settle: both run once per word moved.)
  void store(std::uint32_t b, std::uint32_t word, std::uint32_t generation, Cycle cycle) {
    BufferState& buf = buffers_[b];
    WordState& w = buf.words[word];
    w.ready = cycle;
    w.generation = generation;
    if (components_ > 1)
      for (std::size_t c = 0; c < components_; ++c) buf.component_ready[word * components_ + c] = cycle;
    for (const BufferState::PendingSend& p : buf.pending_sends)
      if (p.generation == generation && word < p.words) {
        if (w.owed == 0) ++buf.owed_words;
        w.owed = static_cast<std::uint16_t>(w.owed + p.count);
      }
  }
  // A send of `generation` is posted / has finished: it owes the words it will take, the first
  // `words` of the buffer (the block it sends leads the buffer).
  void owe(std::uint32_t b, std::uint32_t generation, std::size_t words);
  // The send took the word at `left_at`.
  void settle(std::uint32_t b, std::uint32_t word, Cycle left_at) {
    BufferState& buf = buffers_[b];
    WordState& w = buf.words[word];
    if (--w.owed == 0) --buf.owed_words;
    const Cycle before = w.left_at;
    w.left_at = before == never ? left_at : std::max(before, left_at);
    buf.busy_until = buf.busy_until == never ? left_at : std::max(buf.busy_until, left_at);
  }
  // No word of the buffer is owed (landed or still arriving) or still to leave by `cycle`: it
  // may be replaced then.
  bool replaceable(std::uint32_t b, Cycle cycle) const {
    const BufferState& buf = buffers_[b];
    return buf.owed_words == 0 && buf.pending_sends.empty() && (buf.busy_until == never || buf.busy_until < cycle);
  }
  // The cycle from which the buffer may be replaced if nothing else is sent from it: the cycle
  // after its last word leaves, or never while a word is still owed.
  Cycle replaceable_from(std::uint32_t b) const {
    if (buffers_[b].owed_words > 0 || !buffers_[b].pending_sends.empty()) return never;
    return buffers_[b].busy_until == never ? 0 : buffers_[b].busy_until + 1;
  }
  // A send of a generation older than `generation` still waits for `word` to land: a word of
  // `generation` may not take its place before that send has taken it. A word beyond the
  // send's extent (uneven blocks: the older block was smaller) is not waited for.
  bool awaits_older(std::uint32_t b, std::uint32_t word, std::uint32_t generation) const {
    const std::uint32_t held = buffers_[b].words[word].generation;
    for (const BufferState::PendingSend& p : buffers_[b].pending_sends)
      if (p.generation < generation && word < p.words && held < p.generation) return true;
    return false;
  }
  void release_pending(std::uint32_t b, std::uint32_t generation, std::uint32_t words);
  static bool present(const WordState& w, std::uint32_t generation, Cycle cycle) {
    return w.generation == generation && w.ready <= cycle;
  }
  // Words of scoreboard state the node allocates (for the memory report).
  std::size_t bytes() const;

 private:
  std::vector<BufferState> buffers_;
  std::size_t components_ = 1;
};

}  // namespace torus
