#pragma once
// What an engine measured while it timed a Program, in engine-neutral form, and how the report
// is read off it: cycles per stage and step (through the Program's labels), node-cycle classes,
// words per link direction, memory. Both engines fill these records the same way, so the report
// fields they share come out of one function and can be compared field by field.

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
  StepRecords steps;
  std::vector<LinkRecord> links;  // node * 6 + the direction its words travel
  unsigned fma_per_cycle = 1;
  // How many nodes of the torus each node record stands for: 1, or every node when the engine
  // timed a translation quotient (Program::translation_quotient), whose nodes all see the same cycles.
  std::uint64_t copies = 1;
  std::string fast_forward_note;  // why nothing was issued ahead, or empty
};

// `fma_expected`: what the problem needs (3 N^4 x cost x transforms for the orbital transform).
TimingReport assemble_timing(const Program& program, const EngineRecords& records, std::uint64_t fma_expected);

// What the nodes did during one transform, counted by the engine.
ExecutionCounts measured_counts(const Program& program, const EngineRecords& records, std::uint32_t transform,
                                std::size_t fma_per_multiply_add);

}  // namespace torus
