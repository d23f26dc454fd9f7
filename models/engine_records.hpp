#pragma once
// What an engine measured while it timed a Program, in engine-neutral form, and how the report
// is read off it: cycles per stage and step (through the Program's labels), node-cycle classes,
// words per link direction, memory. Both engines fill these records the same way, so the report
// fields they share come out of one function and can be compared field by field.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "models/cycle_type.hpp"
#include "models/narrow_cycle.hpp"
#include "sim/executor.hpp"
#include "sim/program.hpp"
#include "sim/timing_report.hpp"

namespace torus {

// Per global step label: what one node did in it. `C` holds a cycle (Cycle; the SystemC engine
// keeps its own narrower log, models/cycle/step_log.hpp, and hands it over in this form).
template <class C>
struct BasicStepRecord {
  C start = never;       // first fma
  C done = never;        // last result usable
  C first_send = never;  // first and last word of its sends
  C last_send = never;
  std::uint32_t fma = 0;
  std::uint32_t words_sent = 0;
};
using StepRecord = BasicStepRecord<Cycle>;

// Per global step, over the nodes timed: what the report reads of the steps. A node's step
// begins at its first fma; a step without fma on the node (sends only, or an FFT labelled with
// another step) and a step whose first fma comes after a later step's take no time: each
// begins at the earliest first fma of itself and the steps after it (the node's finish for the
// last), so steps and stages are ordered and their lengths add up to the run's. Every figure
// is a sum, least or greatest over nodes, so nodes may add theirs in any order.
struct StepTotals {
  std::vector<Cycle> start_min, start_max;    // of the nodes' step beginnings
  std::vector<Cycle> length_min, length_max;  // of the nodes' step lengths
  std::vector<std::uint64_t> fma;             // summed over nodes
  std::vector<std::uint32_t> words_min, words_max;  // of the words one node sent in the step
  void resize(std::size_t steps);
  std::size_t bytes() const;
  // Adds another set of nodes' totals of the same steps (a partition's, stepped on a thread
  // of its own): least of the least, greatest of the greatest, sum of the sums.
  void merge(const StepTotals& other);
  // Step `g` of a node begins at `begin`; the step before it (if any) began at `before`.
  void note_begin(std::size_t g, Cycle begin, Cycle before) {
    start_min[g] = std::min(start_min[g], begin);
    start_max[g] = std::max(start_max[g], begin);
    if (g > 0) note_length(g - 1, begin - before);
  }
  void note_length(std::size_t g, Cycle length) {
    length_min[g] = std::min(length_min[g], length);
    length_max[g] = std::max(length_max[g], length);
  }
  // One node's words sent per step (steps past the vector: none).
  template <class Words>
  void note_words(const Words& words) {
    for (std::size_t g = 0; g < words_min.size(); ++g) {
      const std::uint32_t w = g < words.size() ? static_cast<std::uint32_t>(words[g]) : 0;
      words_min[g] = std::min(words_min[g], w);
      words_max[g] = std::max(words_max[g], w);
    }
  }
};

// Per node and global step (never / 0 when the node did nothing in that step).
struct StepRecords {
  std::vector<std::vector<Cycle>> start, done, first_send, last_send;
  std::vector<std::vector<std::uint32_t>> fma, words_sent;
  void resize(std::size_t nodes, std::size_t steps);
  template <class C>
  void set(std::size_t node, const std::vector<BasicStepRecord<C>>& records) {
    for (std::size_t s = 0; s < records.size() && s < start[node].size(); ++s) {
      start[node][s] = records[s].start;
      done[node][s] = records[s].done;
      first_send[node][s] = records[s].first_send;
      last_send[node][s] = records[s].last_send;
      fma[node][s] = records[s].fma;
      words_sent[node][s] = records[s].words_sent;
    }
  }
};

struct NodeRecord {
  std::uint64_t busy = 0, dependency = 0, operand = 0, backpressure = 0;  // node-cycle classes (idle: the rest)
  std::uint64_t fma_issued = 0;
  std::uint64_t fast_forwarded_fma = 0;
  std::uint64_t activations = 0;  // cycle engine: cycles at which the node's process ran (0 from the event engine)
  Cycle finish_cycle = never;
  std::vector<std::uint32_t> computes_done;  // per transform: block multiply-adds that issued every fma
  // Per transform, of the FFT tasks passed: their fma and their butterflies.
  std::vector<std::uint64_t> fft_fma, fft_butterflies;
  std::size_t allocated_words = 0;           // buffer words the node allocates
  std::size_t engine_bytes = 0;              // host bytes of its state in the engine, links included
};

struct LinkRecord {
  std::uint64_t words = 0;
  std::uint64_t active_cycles = 0;   // cycles in which a word left
  std::uint64_t peak_occupancy = 0;  // most words waiting in its receive buffer
  std::uint64_t wait_cycles = 0;     // messages' cycles from asking for it to their first word leaving
};

struct EngineRecords {
  std::vector<NodeRecord> nodes;
  StepTotals step_totals;  // what the report reads
  // Per node (a Chrome trace, tests comparing the engines record by record): the event engine
  // always fills it, the SystemC engine when asked for per-step spans (EngineInputs::step_spans).
  StepRecords steps;
  std::vector<LinkRecord> links;  // node * 6 + the direction its words travel
  unsigned fma_per_cycle = 1;
  // How many nodes of the torus each node record stands for: 1, or every node when the engine
  // timed a translation quotient (Program::translation_quotient), whose nodes all see the same cycles.
  std::uint64_t copies = 1;
  std::string fast_forward_note;  // why nothing was issued ahead, or empty
  std::uint64_t stepping_threads = 0;  // host threads that stepped the nodes (cycle engine; 0: none)
};

// The totals of per-node records (`steps` and the nodes' finish cycles).
StepTotals total_steps(const StepRecords& steps, const std::vector<NodeRecord>& nodes, std::size_t global_steps);

// `fma_expected`: what the problem needs (3 N^4 x cost x transforms for the orbital transform).
TimingReport assemble_timing(const Program& program, const EngineRecords& records, std::uint64_t fma_expected);

// What the nodes did during one transform, counted by the engine.
ExecutionCounts measured_counts(const Program& program, const EngineRecords& records, std::uint32_t transform,
                                std::size_t fma_per_multiply_add);

}  // namespace torus
