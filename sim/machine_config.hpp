#pragma once
// The machine's timing parameters, declared where they are defined. The SystemC model reads
// them; the analytic model predicts cycles from them.

#include <cstdint>
#include <string>

#include "sim/parameters.hpp"
#include "sim/rational.hpp"

namespace torus {

struct MachineConfig {
  std::int64_t fma_latency = 4;
  std::int64_t fma_per_cycle = 1;
  std::string complex_fma_cost = "4";
  std::int64_t link_latency = 1;
  std::string link_words_per_cycle = "1";
  std::string link_buffer_words = "auto";
  std::string micro_schedule = "interleaved";
  std::string roll_policy = "after_compute";
  std::string clock_hz = "1e9";
  std::string engine = "systemc";
  std::string fast_forward = "on";

  void declare(ParameterSet& set);

  std::size_t complex_cost() const { return complex_fma_cost == "1" ? 1 : 4; }
  Rational link_rate() const { return Rational::parse(link_words_per_cycle, "link_words_per_cycle"); }
  // "auto" is twice the largest block a link carries (2 b^3), enough that credits never stall
  // a roll; otherwise the number given.
  std::int64_t link_buffer(std::size_t block_size) const;
  double clock_frequency() const;
};

}  // namespace torus
