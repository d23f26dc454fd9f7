#pragma once
// A node's buffers as the timing model sees them: per word, the cycle its value becomes
// usable, which generation of the buffer's content it holds (sim/dataflow.hpp) and how many
// posted sends still owe it to a link; where a buffer needs them, the cycle each word last
// left on a link and how many updates the running compute still has to make to it. Values
// live in the datapath; this is only the scoreboard.
//
// It is kept for every word of every node, so it is kept small: 8 bytes a word for what every
// buffer needs, plus 2 for `left_at` in a buffer that is both received into and sent from
// (only a word landing asks whether the old one has left; which buffers those are follows
// from the node's task list, read once in allocate()). The left cycles of a buffer are
// offsets from a base: a block's words leave close together, so they fit in 16 bits; when
// they spread wider (a word left long ago and kept, never sent again), the buffer moves to
// 32-bit cycles of its own. Nothing is rounded: either form holds every cycle exactly.
// `writes_left` is kept once, for the accumulator of the running compute: computes run one
// after another, and by the time the next one enters, the last one has made every update it
// owed to the words its sends take.
// All words of the node lie in one allocation per kind, each buffer a view of its part.

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "models/narrow_cycle.hpp"
#include "models/prefetch.hpp"
#include "models/word_run.hpp"
#include "models/cycle/systemc.hpp"
#include "models/cycle/node_plan.hpp"
#include "sim/program.hpp"

namespace torus {

// A task list that replaces one buffer's content more often than the 16-bit generations hold.
class GenerationLimitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// 8 bytes: one is kept for every word of every node's buffers.
struct WordState {
  NarrowCycle ready = 0;          // first cycle the value may be read (max over components)
  std::uint16_t generation = 0;   // 0: never written; allocate() refuses a node that needs more
  std::uint16_t owed = 0;         // posted sends that must take this word before it is replaced
};

struct BufferState {
  std::span<WordState> words;
  // Received into and sent from only: per word the cycle it last left on a link (a word
  // landing may replace it from the next cycle on), as 0 (never) or 1 + cycle - left_base;
  // unused once the buffer has moved to wide_left_at. Null otherwise.
  std::uint16_t* left_at = nullptr;
  NarrowCycle* wide_left_at = nullptr;  // per word, when the offsets no longer fit
  DataTag tag;                         // what the buffer holds now
  std::uint32_t owed_words = 0;        // words with owed > 0
  NarrowCycle left_base = 0;
  // The newest generation a word holds: no word holds a younger one, so a send posted for it
  // owes nothing yet without looking at the words.
  std::uint16_t latest_generation = 0;
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
  // The most contents one buffer may hold in turn (its generations 1 to this).
  static constexpr std::uint32_t generation_limit = 0xFFFF;

  NodeMemory() = default;
  // The buffers are views into the vectors below: a copy would see the original's words.
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;
  NodeMemory(NodeMemory&&) = default;  // the vectors keep their storage
  NodeMemory& operator=(NodeMemory&&) = default;

  // Throws GenerationLimitError when the plan replaces a buffer's content more than
  // generation_limit times.
  void allocate(const NodeProgram& node, const NodePlan& plan, std::size_t components);

  BufferState& buffer(std::uint32_t b) { return buffers_[b]; }
  // Asks for the buffer records (models/prefetch.hpp).
  void prefetch_records() const { prefetch_span(buffers_.data(), buffers_.size()); }
  // Split complex only (empty otherwise): per word * components + component, the cycle each
  // component may be read (the word's `ready` is the later of them).
  std::span<NarrowCycle> component_ready(std::uint32_t b) {
    if (components_ == 1) return {};
    const auto first = static_cast<std::size_t>(buffers_[b].words.data() - words_.data());
    return {component_ready_.data() + first * components_, buffers_[b].words.size() * components_};
  }
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
    w.generation = static_cast<std::uint16_t>(generation);  // allocate() saw it fits
    buf.latest_generation = std::max(buf.latest_generation, w.generation);
    if (components_ > 1) {
      NarrowCycle* const ready = component_ready(b).data() + word * components_;
      for (std::size_t c = 0; c < components_; ++c) ready[c] = cycle;
    }
    for (const BufferState::PendingSend& p : buf.pending_sends)
      if (p.generation == generation && word < p.words) {
        if (w.owed == 0) ++buf.owed_words;
        w.owed = static_cast<std::uint16_t>(w.owed + p.count);
      }
  }
  // store() for the words first + step k, k < count, word k usable from first_ready + spacing k
  // (a run of one message's words taken ahead), with the buffer looked up once.
  void store_run(std::uint32_t b, std::uint32_t first, std::int32_t step, std::size_t count, std::uint32_t generation,
                 Cycle first_ready, Cycle spacing) {
    BufferState& buf = buffers_[b];
    if (components_ > 1) {
      for (std::size_t k = 0; k < count; ++k) store(b, run_word(first, step, k), generation, first_ready + spacing * k);
      return;
    }
    const auto held = static_cast<std::uint16_t>(generation);  // allocate() saw it fits
    for (std::size_t k = 0; k < count; ++k) {
      WordState& w = buf.words[run_word(first, step, k)];
      w.ready = first_ready + spacing * k;
      w.generation = held;
    }
    if (count > 0) buf.latest_generation = std::max(buf.latest_generation, held);
    // What store() owes word by word, send by send: the sums are the same in either order.
    for (const BufferState::PendingSend& p : buf.pending_sends) {
      if (p.generation != generation) continue;
      for (std::size_t k = 0; k < count; ++k) {
        const std::uint32_t word = run_word(first, step, k);
        if (word >= p.words) continue;
        WordState& w = buf.words[word];
        if (w.owed == 0) ++buf.owed_words;
        w.owed = static_cast<std::uint16_t>(w.owed + p.count);
      }
    }
  }
  // How many of those words, in order, may land at their cycles (word_replaceable and not
  // awaits_older for each) before the first that may not.
  std::size_t landable_prefix(std::uint32_t b, std::uint32_t first, std::int32_t step, std::size_t count, std::uint32_t generation,
                              Cycle first_arrival, Cycle spacing) const {
    const bool awaited = !buffers_[b].pending_sends.empty();
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint32_t word = run_word(first, step, k);
      if (!word_replaceable(b, word, first_arrival + spacing * k) || (awaited && awaits_older(b, word, generation))) return k;
    }
    return count;
  }
  // Whether a word landing at `cycle` may take the place of `word`: no posted send still owes
  // the word there, and it has left by the cycle before.
  bool word_replaceable(std::uint32_t b, std::uint32_t word, Cycle cycle) const {
    const BufferState& buf = buffers_[b];
    if (buf.words[word].owed != 0) return false;
    if (!buf.left_at) return true;  // never sent from
    const Cycle left = left_at(buf, word);
    return left == never || left < cycle;
  }
  // The cycle the word last left on a link (never if it has not), in a buffer that keeps it.
  static Cycle left_at(const BufferState& buf, std::uint32_t word) {
    if (buf.wide_left_at) return buf.wide_left_at[word];
    const std::uint16_t offset = buf.left_at[word];
    return offset == 0 ? never : Cycle{buf.left_base} + offset - 1;
  }
  // A send of `generation` is posted / has finished: it owes the words it will take, the first
  // `words` of the buffer (the block it sends leads the buffer).
  void owe(std::uint32_t b, std::uint32_t generation, std::size_t words);
  // The send took the word at `left_at`.
  void settle(std::uint32_t b, std::uint32_t word, Cycle left_at) {
    BufferState& buf = buffers_[b];
    WordState& w = buf.words[word];
    if (--w.owed == 0) --buf.owed_words;
    if (buf.left_at) {  // else no word ever lands here to ask
      const Cycle before = NodeMemory::left_at(buf, word);
      const Cycle latest = before == never ? left_at : std::max(before, left_at);
      const Cycle base = buf.left_base;
      if (buf.wide_left_at) buf.wide_left_at[word] = latest;
      else if (latest >= base && latest - base < max_offset) buf.left_at[word] = static_cast<std::uint16_t>(latest - base + 1);
      else rebase_left(buf, word, latest);
    }
    buf.busy_until = buf.busy_until == never ? left_at : std::max(buf.busy_until, left_at);
  }
  // settle() for the words first, first + 1, ..., word k having left at leaves[k].
  void settle_run(std::uint32_t b, std::uint32_t first, std::size_t count, const Cycle* leaves) {
    for (std::size_t k = 0; k < count; ++k) settle(b, first + static_cast<std::uint32_t>(k), leaves[k]);
  }
  // The compute accumulating into `b` is entered: each word of the buffer gets `updates`
  // updates, counted down in the array returned (one per word, until the next compute enters)
  // when a send of the policy is released word by word, the only reader of writes_left().
  std::uint16_t* expect_updates(std::uint32_t b, std::uint32_t updates) {
    updating_ = b;
    const auto words = static_cast<std::ptrdiff_t>(buffers_[b].words.size());
    std::fill(writes_left_.begin(), writes_left_.begin() + words, static_cast<std::uint16_t>(updates));
    return writes_left_.data();
  }
  // Updates the running compute still makes to the word: none outside its accumulator, nor
  // after it (it makes each word of its block all of them).
  std::uint32_t writes_left(std::uint32_t b, std::uint32_t word) const { return b == updating_ ? writes_left_[word] : 0; }
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
  // Bytes of scoreboard state the node allocates (for the memory report).
  std::size_t bytes() const;

 private:
  static constexpr Cycle max_offset = 0xFFFF;  // left cycles base to base + max_offset - 1 fit
  // Sets the word's left cycle where it does not fit: the base moves to the earliest cycle
  // held, or, if they still spread too wide, the buffer moves to 32-bit cycles.
  void rebase_left(BufferState& buf, std::uint32_t word, Cycle latest);

  std::vector<BufferState> buffers_;
  // Every buffer's words, one after another (BufferState's views point into these).
  std::vector<WordState> words_;
  std::vector<NarrowCycle> component_ready_;
  std::vector<std::uint16_t> left_at_;
  std::vector<std::vector<NarrowCycle>> wide_left_at_;  // of the buffers that moved
  std::vector<std::uint16_t> writes_left_;  // of buffer updating_, sized for the largest accumulator
  std::uint32_t updating_ = no_buffer;
  std::size_t components_ = 1;
};

}  // namespace torus
