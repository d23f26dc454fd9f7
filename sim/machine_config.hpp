#pragma once
// The machine's timing parameters, declared where they are defined. The SystemC model reads
// them; the analytic model predicts cycles from them.

#include <cstdint>
#include <string>
#include <vector>

#include "sim/parameters.hpp"
#include "sim/rational.hpp"

namespace torus {

struct MachineConfig {
  std::int64_t fma_latency = 4;
  std::int64_t fma_per_cycle = 1;
  std::string complex_fma_cost = "4";
  std::int64_t fma_per_butterfly = 8;
  std::int64_t link_latency = 1;
  std::string link_words_per_cycle = "1";
  std::string link_bytes_per_cycle = "none";
  std::string link_buffer_words = "auto";
  std::int64_t message_startup_cycles = 0;
  std::int64_t node_memory_bytes = 0;
  std::string micro_schedule = "interleaved";
  std::string roll_policy = "after_compute";
  std::string clock_hz = "1e9";
  std::string engine = "systemc";
  std::string symmetry = "auto";
  std::int64_t threads = 0;
  std::string fast_forward = "on";
  std::string fast_forward_stepping = "none";
  std::string event_closed_forms = "on";

  void declare(ParameterSet& set);

  std::size_t complex_cost() const { return complex_fma_cost == "1" ? 1 : 4; }
  Rational link_rate() const { return Rational::parse(link_words_per_cycle, "link_words_per_cycle"); }
  // The machine for words of `word_bytes` bytes: with link_bytes_per_cycle set, the link carries
  // that many bytes per cycle whatever the precision, so its words per cycle follow the word.
  MachineConfig for_word_bytes(std::size_t word_bytes) const;
  // "auto" is twice the largest tensor block (2 b^3; `block_words` words), enough that credits
  // never stall a roll; otherwise the number given.
  std::int64_t link_buffer(std::size_t block_words) const;
  unsigned host_threads() const;  // threads, with 0 resolved to the host's cores
  double clock_frequency() const;
  // Nodes that step every cycle although fast_forward is on (a test hook: results must not
  // depend on which nodes sleep). Throws std::invalid_argument naming a node out of range.
  std::vector<std::size_t> stepping_nodes(std::size_t node_count) const;
};

}  // namespace torus
