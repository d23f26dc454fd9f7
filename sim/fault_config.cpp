#include "sim/fault_config.hpp"

#include <charconv>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "kernels/text.hpp"

namespace torus {
namespace {

// The whole part, digits only: stoi read "1abc" as 1.
bool parse_coordinate(std::string_view text, int& out) {
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return digits && ec == std::errc() && ptr == text.data() + text.size();
}

NodeCoord parse_node(std::string_view text) {
  const auto parts = split(text, ',');
  NodeCoord node;
  if (parts.size() != 3 || !parse_coordinate(parts[0], node.q) || !parse_coordinate(parts[1], node.r) ||
      !parse_coordinate(parts[2], node.s))
    throw std::invalid_argument("fault_node: '" + std::string(text) +
                                "' is not allowed; allowed: three whole coordinates q,r,s from 0 to P - 1, such as 1,0,2");
  return node;
}

Direction parse_link(std::string_view text) {
  for (Direction d : all_directions)
    if (to_string(d) == text) return d;
  throw std::invalid_argument("fault_link: '" + std::string(text) + "' is not allowed; allowed: +Q, -Q, +R, -R, +S, -S");
}

}  // namespace

void FaultConfig::declare(ParameterSet& set) {
  set.choice("fault", fault, {"none", "bit_flip", "drop_word", "stuck_node", "corrupt_coefficient"},
             "inject one fault: flip a bit of a word on a link, drop a word, stop a node issuing, or corrupt a "
             "coefficient; data faults are caught by the golden check, lost work by the watchdog");
  set.text("fault_node", fault_node, "coordinates q,r,s inside the torus", "the node whose link or memory the fault hits",
           [](std::string_view text) { parse_node(text); });
  set.text("fault_link", fault_link, "+Q, -Q, +R, -R, +S or -S", "the node's outgoing link for bit_flip and drop_word",
           [](std::string_view text) { parse_link(text); });
  set.integer("fault_cycle", fault_cycle, 0, 1000000000000, "cycles", "the fault hits at or after this cycle");
  set.integer("fault_bit", fault_bit, 0, 63, "bit", "which bit of the word's real part (as a 64-bit double) flips");
  set.integer("watchdog_cycles", watchdog_cycles, 0, 1000000000000, "cycles",
              "stop when no fma issues and no word moves for this long while work remains; 0 = automatic "
              "(10000 + 4 x (fma_latency + link_latency + message_startup_cycles + cycles per word))");
}

FaultKind FaultConfig::kind() const {
  if (fault == "bit_flip") return FaultKind::BitFlip;
  if (fault == "drop_word") return FaultKind::DropWord;
  if (fault == "stuck_node") return FaultKind::StuckNode;
  if (fault == "corrupt_coefficient") return FaultKind::CorruptCoefficient;
  return FaultKind::None;
}

NodeCoord FaultConfig::node() const { return parse_node(fault_node); }
Direction FaultConfig::link() const { return parse_link(fault_link); }

std::uint64_t FaultConfig::watchdog(std::int64_t fma_latency, std::int64_t link_latency, std::int64_t cycles_per_word) const {
  if (watchdog_cycles > 0) return static_cast<std::uint64_t>(watchdog_cycles);
  return static_cast<std::uint64_t>(10000 + 4 * (fma_latency + link_latency + cycles_per_word));
}

double with_bit_flipped(double value, int bit) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  bits ^= std::uint64_t{1} << bit;
  std::memcpy(&value, &bits, sizeof bits);
  return value;
}

std::string describe_flip(double before, double after) {
  const std::string from = fmt::format("{} ({:a})", before, before);
  if (std::memcmp(&before, &after, sizeof before) != 0) return fmt::format("{} became {} ({:a})", from, after, after);
  return from + " stayed the same: the flipped bit lies below the precision of the stored word (a float keeps bits 29 to 63 "
                "of the double)";
}

void check_engine(const FaultConfig& fault, std::string_view engine) {
  if (fault.kind() == FaultKind::None || engine == "systemc") return;
  const std::string why = engine == "event" ? "which times whole messages and tasks and cannot place a fault inside them"
                                            : "which has no links, clock or node memories to fault";
  throw std::invalid_argument("fault: '" + fault.fault + "' is not allowed with engine '" + std::string(engine) + "', " + why +
                              "; allowed: engine systemc (the cycle-accurate engine injects faults), or fault none");
}

void check_values(const FaultConfig& fault, std::string_view values) {
  const FaultKind kind = fault.kind();
  if (values != "off" || (kind != FaultKind::BitFlip && kind != FaultKind::CorruptCoefficient)) return;
  throw std::invalid_argument("fault: '" + fault.fault +
                              "' is not allowed with values: off, which computes and checks no values, so the changed "
                              "value could not be detected; allowed: values on, or fault drop_word, stuck_node or none");
}

void validate(const FaultConfig& fault, const TorusShape& shape) {
  const NodeCoord n = fault.node();
  if (!shape.contains(n))
    throw std::invalid_argument("fault_node: '" + fault.fault_node + "' is outside the " + std::to_string(shape.p1) + "x" +
                                std::to_string(shape.p2) + "x" + std::to_string(shape.p3) + " torus; allowed: coordinates 0 to " +
                                (shape.is_cube() ? std::to_string(shape.p1 - 1)
                                                 : std::to_string(shape.p1 - 1) + ", " + std::to_string(shape.p2 - 1) +
                                                       " and " + std::to_string(shape.p3 - 1) + " along Q, R and S"));
}

}  // namespace torus
