#pragma once
// Fault injection and the no-progress watchdog, as scenario parameters. A fault fires once:
// on the first word a link sends at or after fault_cycle (bit_flip, drop_word), from
// fault_cycle on (stuck_node), or when the node loads its blocks (corrupt_coefficient).

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/geometry.hpp"
#include "sim/parameters.hpp"

namespace torus {

enum class FaultKind { None, BitFlip, DropWord, StuckNode, CorruptCoefficient };

struct FaultConfig {
  std::string fault = "none";
  std::string fault_node = "0,0,0";
  std::string fault_link = "+Q";
  std::int64_t fault_cycle = 0;
  std::int64_t fault_bit = 52;
  std::int64_t watchdog_cycles = 0;

  void declare(ParameterSet& set);
  FaultKind kind() const;
  NodeCoord node() const;  // checked against the torus by validate()
  Direction link() const;
  // 0 = automatic: long enough that a healthy run never trips it (see watchdog_cycles).
  std::uint64_t watchdog(std::int64_t fma_latency, std::int64_t link_latency, std::int64_t cycles_per_word) const;
};

// `value` with bit `bit` (0 = least significant) of its IEEE 754 double representation inverted.
double with_bit_flipped(double value, int bit);

// "0.5 (0x1p-1) became 0.5000000000000001 (0x1.0000000000001p-1)": every digit that differs is
// shown; a flip lost when the word is stored in a narrower type is said to be lost.
std::string describe_flip(double before, double after);

// Throws std::invalid_argument when a fault is set for an engine that cannot inject it (only
// the systemc engine can): ignored, the run would pass and seem to have survived the fault.
void check_engine(const FaultConfig& fault, std::string_view engine);

// Throws std::invalid_argument when a fault that only changes values (bit_flip,
// corrupt_coefficient) is set for a run with values off: nothing would see it, and the run would
// pass as if the machine had survived it.
void check_values(const FaultConfig& fault, std::string_view values);

// Throws std::invalid_argument when fault_node lies outside a P x P x P torus.
void validate(const FaultConfig& fault, const TorusShape& shape);

}  // namespace torus
