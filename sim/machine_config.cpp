#include "sim/machine_config.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "sim/micro_schedule.hpp"
#include "sim/roll_policy.hpp"

namespace torus {

namespace {

double parse_positive_real(std::string_view text, std::string_view key, std::string_view allowed) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !(value > 0) || !std::isfinite(value))
    throw std::invalid_argument(std::string(key) + ": '" + std::string(text) + "' is not allowed; allowed: " +
                                std::string(allowed));
  return value;
}

}  // namespace

void MachineConfig::declare(ParameterSet& set) {
  set.integer("fma_latency", fma_latency, 1, 1024, "cycles",
              "fma pipeline latency L: an fma issued at cycle c feeds a dependent fma issued at c + L");
  set.integer("fma_per_cycle", fma_per_cycle, 1, 1024, "fma/cycle", "new fma the unit accepts per cycle");
  set.choice("complex_fma_cost", complex_fma_cost, {"4", "1"},
             "fma per complex multiply-add: 4 on a real fma unit, 1 on a complex fma unit");
  set.integer("link_latency", link_latency, 1, 1000000, "cycles",
              "cycles from a word leaving a node to its arrival at the neighbour (also the credit return time)");
  set.text("link_words_per_cycle", link_words_per_cycle, "positive number such as 2, 1 or 1/8",
           "link bandwidth w: 1/8 is one word every 8 cycles (APE100)",
           [](std::string_view text) { Rational::parse(text, "link_words_per_cycle"); });
  set.text("link_buffer_words", link_buffer_words, "'auto' (2 b^3) or a whole number from 1 to 100000000",
           "receive buffer of each link, in words; the sender holds one credit per free word",
           [](std::string_view text) {
             if (text == "auto") return;
             std::int64_t v = 0;
             const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
             if (ec != std::errc() || ptr != text.data() + text.size() || v < 1 || v > 100000000)
               throw std::invalid_argument("link_buffer_words: '" + std::string(text) +
                                           "' is not allowed; allowed: 'auto' or a whole number from 1 to 100000000");
           });
  set.choice("micro_schedule", micro_schedule, micro_schedule_names(),
             "order of a node's b^4 fma in a step: interleaved hides latency when b^3 >= L, chained stalls on it");
  set.choice("roll_policy", roll_policy, roll_policy_names(),
             "after_compute: send blocks when the step's compute is done; overlapped: send unmodified blocks at "
             "once and accumulator words as they become final, and use words as they arrive");
  set.text("clock_hz", clock_hz, "positive number of cycles per second", "clock frequency, to convert cycles to seconds",
           [](std::string_view text) { parse_positive_real(text, "clock_hz", "positive number of cycles per second"); });
  set.choice("fast_forward", fast_forward, {"on", "off"},
             "on: a node skips cycles whose outcome is already known (same results, faster); off: every node "
             "steps every cycle, for cross-checking");
  set.choice("engine", engine, {"systemc", "functional"},
             "systemc: cycle-accurate torus; functional: untimed executor (values only, no cycle counts)");
}

std::int64_t MachineConfig::link_buffer(std::size_t block_size) const {
  if (link_buffer_words == "auto") return static_cast<std::int64_t>(2 * block_size * block_size * block_size);
  return std::stoll(link_buffer_words);
}

double MachineConfig::clock_frequency() const {
  return parse_positive_real(clock_hz, "clock_hz", "positive number of cycles per second");
}

}  // namespace torus
