#pragma once
// A cycle held in 32 bits, for the per-word and per-task state the SystemC engine keeps for
// every node (scoreboard, link queues, step records): half the bytes of a Cycle. It reads back
// as a Cycle (`never` included); storing a cycle past `limit` throws CycleLimitError, which
// names the limit and the engine without it (a refusal of the input, like a bad parameter:
// such a run is best timed by engine event anyway, stepping 4.3 billion cycles would take
// hours on one node). The check is one compare on the store.

#include <cstdint>
#include <stdexcept>

#include "models/cycle_type.hpp"

namespace torus {

class CycleLimitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
  // The message begins so (an engine that reports errors as text can recognise it).
  static constexpr const char* opening = "engine systemc holds cycles in 32 bits";
};

class NarrowCycle {
 public:
  // The largest cycle held (the all-ones pattern stands for `never`).
  static constexpr Cycle limit = 0xFFFFFFFEu;

  constexpr NarrowCycle() = default;
  NarrowCycle(Cycle cycle) : value_(narrow(cycle)) {}  // NOLINT: stores like a Cycle
  operator Cycle() const { return value_ == none ? never : value_; }  // NOLINT: reads like one

 private:
  static constexpr std::uint32_t none = 0xFFFFFFFFu;
  // Inlined on every store: the refusal, with its message, is built out of line.
  static std::uint32_t narrow(Cycle cycle) {
    if (cycle <= limit) [[likely]]
      return static_cast<std::uint32_t>(cycle);
    if (cycle == never) return none;
    refuse(cycle);
  }
  [[noreturn]] static void refuse(Cycle cycle);
  std::uint32_t value_ = 0;
};

}  // namespace torus
