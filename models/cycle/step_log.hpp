#pragma once
// What one node did per global step label, kept as far as it is asked for. The report needs of
// the steps only totals over the nodes (StepTotals, models/engine_records.hpp), so the node adds
// its fma and its step beginnings to the run's totals as they happen, and keeps per step only
// the words it sent (4 bytes: the least and greatest over nodes need each node's final count,
// and words sent ahead are noted out of order).
//
// Step beginnings: a node issues its fma in the order of their cycles, so its step g begins at
// the first fma issued with a label of g or later (or at its finish, without one). When an fma
// labelled L issues, every step up to L not begun yet begins at its cycle; a step's length is
// known once the next one has begun. So a node keeps two numbers for them, not one per step.
//
// The first fma, the fma, the last result usable per step and the first and last word sent are
// read only by the Chrome trace and by tests comparing the engines record by record: kept
// beside (spans), only when asked.

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/engine_records.hpp"
#include "models/narrow_cycle.hpp"

namespace torus {

class StepLog {
 public:
  // `steps`: the labels the node's list reaches; `totals`: the run's, sized for every global
  // step and shared by its nodes (SystemC runs one process at a time).
  void allocate(std::size_t steps, bool keep_spans, StepTotals& totals) {
    if (steps > totals.fma.size())
      throw std::invalid_argument("engine systemc: a task is labelled global step " + std::to_string(steps - 1) +
                                  ", but the Program's stages have " + std::to_string(totals.fma.size()) +
                                  " steps (the Program verifier reports it)");
    words_.assign(steps, 0);
    spans_.assign(keep_spans ? steps : 0, Span{});
    totals_ = &totals;
  }
  // `n` fma of `step` issued, the first at `first` (not before the fma issued earlier).
  void issued(std::uint32_t step, std::size_t n, Cycle first) {
    totals_->fma[step] += n;
    if (step >= begun_) begin(step + 1, first);
    if (spans_.empty()) return;
    Span& s = spans_[step];
    if (s.start == never) s.start = first;
    s.fma += static_cast<std::uint32_t>(n);
  }
  // A compute or FFT task of the step whose last result is usable from `usable` was passed.
  void done(std::uint32_t step, Cycle usable) {
    if (spans_.empty()) return;
    NarrowCycle& d = spans_[step].done;
    d = d == never ? usable : std::max<Cycle>(d, usable);
  }
  // `words` of a send of the step left, the first at `first`, the last at `last`. Words sent
  // ahead have their own cycles, so the step's sends are not noted in time order.
  void sent(std::uint32_t step, std::uint32_t words, Cycle first, Cycle last) {
    words_[step] += words;
    if (spans_.empty()) return;
    Span& t = spans_[step];
    t.first_send = std::min<Cycle>(t.first_send, first);
    t.last_send = t.last_send == never ? last : std::max<Cycle>(t.last_send, last);
  }
  // The node finished at `cycle` (once): the steps not begun yet begin there, and the last
  // step ends there.
  void finish(Cycle cycle) { begin(totals_->fma.size() + 1, cycle); }

  bool keeps_spans() const { return !spans_.empty(); }
  const std::vector<std::uint32_t>& words_sent() const { return words_; }
  // In the engines' common form; start, fma and the spans never / 0 unless spans are kept.
  std::vector<StepRecord> records() const {
    std::vector<StepRecord> out(words_.size());
    for (std::size_t g = 0; g < words_.size(); ++g) {
      out[g].words_sent = words_[g];
      if (spans_.empty()) continue;
      out[g].start = spans_[g].start;
      out[g].fma = spans_[g].fma;
      out[g].done = spans_[g].done;
      out[g].first_send = spans_[g].first_send;
      out[g].last_send = spans_[g].last_send;
    }
    return out;
  }
  std::size_t bytes() const { return words_.capacity() * sizeof(std::uint32_t) + spans_.capacity() * sizeof(Span); }

 private:
  struct Span {
    NarrowCycle start = never;  // first fma
    NarrowCycle done = never;
    NarrowCycle first_send = never, last_send = never;
    std::uint32_t fma = 0;
  };
  // Steps begun_ to end - 1 begin at `cycle` (step `global steps`: the node's end).
  void begin(std::size_t end, Cycle cycle) {
    if (begun_ > 0 && cycle < last_begin_)
      throw std::logic_error("step log: an fma noted at cycle " + std::to_string(cycle) + ", before one at " +
                             std::to_string(Cycle{last_begin_}));
    const std::size_t steps = totals_->fma.size();
    for (std::size_t g = begun_; g < end; ++g) {
      const Cycle before = g == begun_ ? Cycle{last_begin_} : cycle;
      if (g < steps) totals_->note_begin(g, cycle, before);
      else if (g > 0) totals_->note_length(g - 1, cycle - before);
    }
    begun_ = static_cast<std::uint32_t>(end);
    last_begin_ = cycle;
  }

  std::vector<std::uint32_t> words_;
  std::vector<Span> spans_;
  StepTotals* totals_ = nullptr;
  std::uint32_t begun_ = 0;     // steps 0 to begun_ - 1 have begun
  NarrowCycle last_begin_ = 0;  // where step begun_ - 1 began
};

}  // namespace torus
