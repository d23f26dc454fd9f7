#pragma once
// What one node did per global step label, kept as far as it is asked for. The report needs
// per node and step only the first fma (step lengths), the fma and the words sent (counts):
// a StepTally, 12 bytes. When its last result was usable and when its first and last word
// left are read only by the Chrome trace and by tests comparing the engines record by record:
// kept beside, only when asked.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/engine_records.hpp"
#include "models/narrow_cycle.hpp"

namespace torus {

struct StepTally {
  NarrowCycle start = never;  // first fma
  std::uint32_t fma = 0;
  std::uint32_t words_sent = 0;
};

class StepLog {
 public:
  void allocate(std::size_t steps, bool keep_spans) {
    tallies_.assign(steps, StepTally{});
    spans_.assign(keep_spans ? steps : 0, Span{});
  }
  // The tally of `step`; a pointer to it stays valid for the run (it names the step to the
  // calls below).
  StepTally& tally(std::uint32_t step) { return tallies_[step]; }
  // `n` fma of the step issued, the first of them at `first`.
  static void issued(StepTally& s, std::size_t n, Cycle first) {
    if (s.start == never) s.start = first;
    s.fma += static_cast<std::uint32_t>(n);
  }
  // A compute or FFT task of the step whose last result is usable from `usable` was passed.
  void done(const StepTally& s, Cycle usable) {
    if (spans_.empty()) return;
    NarrowCycle& d = span(s).done;
    d = d == never ? usable : std::max<Cycle>(d, usable);
  }
  // `words` of a send of the step left, the first at `first`, the last at `last`. Words sent
  // ahead have their own cycles, so the step's sends are not noted in time order.
  void sent(StepTally& s, std::uint32_t words, Cycle first, Cycle last) {
    s.words_sent += words;
    if (spans_.empty()) return;
    Span& t = span(s);
    t.first_send = std::min<Cycle>(t.first_send, first);
    t.last_send = t.last_send == never ? last : std::max<Cycle>(t.last_send, last);
  }
  bool keeps_spans() const { return !spans_.empty(); }
  // In the engines' common form (spans never unless kept).
  std::vector<StepRecord> records() const {
    std::vector<StepRecord> out(tallies_.size());
    for (std::size_t g = 0; g < tallies_.size(); ++g) {
      out[g].start = tallies_[g].start;
      out[g].fma = tallies_[g].fma;
      out[g].words_sent = tallies_[g].words_sent;
      if (spans_.empty()) continue;
      out[g].done = spans_[g].done;
      out[g].first_send = spans_[g].first_send;
      out[g].last_send = spans_[g].last_send;
    }
    return out;
  }
  std::size_t bytes() const { return tallies_.capacity() * sizeof(StepTally) + spans_.capacity() * sizeof(Span); }

 private:
  struct Span {
    NarrowCycle done = never;
    NarrowCycle first_send = never, last_send = never;
  };
  Span& span(const StepTally& s) { return spans_[static_cast<std::size_t>(&s - tallies_.data())]; }

  std::vector<StepTally> tallies_;
  std::vector<Span> spans_;
};

}  // namespace torus
