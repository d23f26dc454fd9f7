#include "sim/machine_config.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "kernels/text.hpp"
#include "sim/host_cores.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/roll_policy.hpp"

namespace torus {

namespace {

// The range keeps every derived time finite and meaningful: seconds = cycles / clock_hz.
constexpr double min_clock_hz = 1e-3, max_clock_hz = 1e15;
constexpr std::string_view clock_allowed = "a number of cycles per second from 0.001 to 1e15";

double parse_clock_hz(std::string_view text) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !(value >= min_clock_hz && value <= max_clock_hz))
    throw std::invalid_argument("clock_hz: '" + std::string(text) + "' is not allowed; allowed: " +
                                std::string(clock_allowed));
  return value;
}

struct Stepping {
  std::vector<std::size_t> nodes;
  std::size_t every = 0, remainder = 0;
};

// `whole` is what the user wrote, quoted in the message; `text` is the part being read.
std::size_t parse_index(std::string_view text, std::string_view whole, std::string_view what = "a node index") {
  std::size_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
    throw std::invalid_argument("fast_forward_stepping: '" + std::string(whole) + "' is not allowed ('" +
                                std::string(text) + "' is not " + std::string(what) +
                                "); allowed: 'none', node indices such as 3,17, or every:K:R with K >= 1");
  return v;
}

Stepping parse_stepping(std::string_view text) {
  Stepping s;
  if (text == "none") return s;
  if (text.starts_with("every:")) {
    const std::string_view rest = text.substr(6);
    const std::size_t colon = rest.find(':');
    s.every = parse_index(rest.substr(0, colon), text, "a period K");
    s.remainder = colon == std::string_view::npos ? 0 : parse_index(rest.substr(colon + 1), text, "a remainder R");
    if (s.every == 0)
      throw std::invalid_argument("fast_forward_stepping: '" + std::string(text) +
                                  "' is not allowed (the period K is 0); allowed: every:K:R with K >= 1");
    return s;
  }
  for (const std::string& part : split(text, ',')) s.nodes.push_back(parse_index(part, text));
  return s;
}

}  // namespace

std::vector<std::size_t> MachineConfig::stepping_nodes(std::size_t node_count) const {
  const Stepping s = parse_stepping(fast_forward_stepping);
  std::vector<std::size_t> out = s.nodes;
  for (const std::size_t n : out)
    if (n >= node_count)
      throw std::invalid_argument("fast_forward_stepping: node " + std::to_string(n) + " is not allowed; allowed: 0 to " +
                                  std::to_string(node_count - 1));
  if (s.every > 0)
    for (std::size_t n = s.remainder % s.every; n < node_count; n += s.every) {
      out.push_back(n);
      if (node_count - n <= s.every) break;  // the next index is past the torus (and must not wrap)
    }
  return out;
}

void MachineConfig::declare(ParameterSet& set) {
  set.integer("fma_latency", fma_latency, 1, 1024, "cycles",
              "fma pipeline latency L: an fma issued at cycle c feeds a dependent fma issued at c + L");
  set.integer("fma_per_cycle", fma_per_cycle, 1, 1024, "fma/cycle", "new fma the unit accepts per cycle");
  set.choice("complex_fma_cost", complex_fma_cost, {"4", "1"},
             "fma per complex multiply-add: 4 on a real fma unit, 1 on a complex fma unit");
  set.integer("fma_per_butterfly", fma_per_butterfly, 1, 1024, "fma",
              "fma an FFT task issues per radix-2 butterfly (a' = a + w b, b' = a - w b): 8 is a complex butterfly "
              "on a real fma unit, two fma per real component of each output");
  set.integer("link_latency", link_latency, 1, 1000000, "cycles",
              "cycles from a word leaving a node to its arrival at the neighbour (also the credit return time)");
  set.text("link_words_per_cycle", link_words_per_cycle, "positive number such as 2, 1 or 1/8",
           "link bandwidth w: 1/8 is one word every 8 cycles (APE100)",
           [](std::string_view text) { Rational::parse(text, "link_words_per_cycle"); });
  set.text("link_bytes_per_cycle", link_bytes_per_cycle, "'none' or a positive number such as 1/2",
           "link bandwidth in bytes per cycle; when set it replaces link_words_per_cycle, which becomes this over "
           "the run's word size (8 bytes for real double, 4 for float, twice that for complex)",
           [](std::string_view text) {
             if (text != "none") Rational::parse(text, "link_bytes_per_cycle");
           });
  set.text("link_buffer_words", link_buffer_words, "'auto' (2 b^3, b^3 the largest block) or a whole number from 1 to 100000000",
           "receive buffer of each link, in words; the sender holds one credit per free word",
           [](std::string_view text) {
             if (text == "auto") return;
             std::int64_t v = 0;
             const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
             if (ec != std::errc() || ptr != text.data() + text.size() || v < 1 || v > 100000000)
               throw std::invalid_argument("link_buffer_words: '" + std::string(text) +
                                           "' is not allowed; allowed: 'auto' or a whole number from 1 to 100000000");
           });
  set.integer("message_startup_cycles", message_startup_cycles, 0, 1000000, "cycles",
              "start-up of every message at its source (software, MPI): its first word leaves no earlier than this "
              "long after the message is posted and released; its link stays free meanwhile");
  set.integer("node_memory_bytes", node_memory_bytes, 0, std::int64_t{1} << 50, "bytes",
              "memory of each node; a run whose fullest node needs more (its buffers at the run's word size and its "
              "coefficient tables) is reported as 'does not fit' with the figures and not simulated; 0: not limited");
  set.choice("micro_schedule", micro_schedule, micro_schedule_names(),
             "order of a node's b^4 fma in a step: interleaved hides latency when b^3 >= L, chained stalls on it");
  set.choice("roll_policy", roll_policy, roll_policy_names(),
             "after_compute: send blocks when the step's compute is done; overlapped: send unmodified blocks at "
             "once and accumulator words as they become final, and use words as they arrive");
  set.text("clock_hz", clock_hz, std::string(clock_allowed), "clock frequency, to convert cycles to seconds",
           [](std::string_view text) { parse_clock_hz(text); });
  set.choice("fast_forward", fast_forward, {"on", "off"},
             "on: a node skips cycles whose outcome is already known (same results, faster); off: every node "
             "steps every cycle, for cross-checking");
  set.text("fast_forward_stepping", fast_forward_stepping, "'none', node indices such as 3,17, or every:K:R",
           "test hook: these nodes step every cycle even with fast_forward on (every:K:R is every node whose index "
           "is R mod K); the results must not change",
           [](std::string_view text) { parse_stepping(text); });
  set.choice("event_closed_forms", event_closed_forms, {"on", "off"},
             "test hook: off makes engine event time every whole compute per instruction instead of by its closed "
             "form (docs/timing-model.md); the report must not change");
  set.choice("engine", engine, {"systemc", "event", "functional"},
             "systemc: cycle-accurate SystemC torus, the reference; event: the same cycle counts from block-level "
             "events, much faster (no faults or waveforms); functional: untimed executor (values "
             "only, no cycle counts)");
  set.choice("symmetry", symmetry, {"auto", "off"},
             "auto: with engine event and values off, an algorithm whose nodes all run the same task list (orbital) "
             "is timed on one node standing for every node, exact because each node sees the same cycles; off: "
             "every node is timed");
  set.integer("threads", threads, 0, 1024, "threads",
              "host threads: they compute values when the timing comes from one node (engine event, symmetry auto), "
              "and step the nodes of engine systemc when every node steps every cycle (fast_forward off or refused; "
              "docs/timing-model.md, \"Fast-forward\"); 0: every core the process may use (its affinity mask, within its cgroup's CPU quota; engine systemc: one thread per 100 nodes, at "
              "most every core). Every figure and value is the same for any number");
}

MachineConfig MachineConfig::for_word_bytes(std::size_t word_bytes) const {
  if (link_bytes_per_cycle == "none") return *this;
  const Rational bytes = Rational::parse(link_bytes_per_cycle, "link_bytes_per_cycle");
  MachineConfig resolved = *this;
  const std::string words =
      std::to_string(bytes.num) + "/" + std::to_string(bytes.den * static_cast<std::int64_t>(word_bytes));
  try {
    resolved.link_words_per_cycle = Rational::parse(words, "link_words_per_cycle").to_string();
  } catch (const std::invalid_argument&) {
    // The bytes were valid on their own; only the word size of this run makes the rate too fine,
    // so the message quotes what the user wrote and the word rate it became.
    throw std::invalid_argument("link_bytes_per_cycle: '" + link_bytes_per_cycle + "' is not allowed for this run: at " +
                                std::to_string(word_bytes) + " bytes a word it is " + words +
                                " words per cycle in lowest terms; allowed: bytes per cycle whose words per cycle (bytes / " +
                                std::to_string(word_bytes) +
                                ") has numerator and denominator at most 1000000, so at least " +
                                std::to_string(word_bytes) + "/1000000");
  }
  return resolved;
}

unsigned MachineConfig::host_threads() const {
  if (threads > 0) return static_cast<unsigned>(threads);
  return host_cores();
}

std::int64_t MachineConfig::link_buffer(std::size_t block_words) const {
  if (link_buffer_words == "auto") return static_cast<std::int64_t>(2 * block_words);
  return std::stoll(link_buffer_words);
}

double MachineConfig::clock_frequency() const {
  return parse_clock_hz(clock_hz);
}

}  // namespace torus
