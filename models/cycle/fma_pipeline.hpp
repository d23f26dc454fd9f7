#pragma once
// A node's fma unit: accepts up to `per_cycle` new fma per cycle; each result becomes usable
// `latency` cycles after issue (an fma issued at cycle c feeds a dependent fma issued at
// c + latency, not earlier). The unit only keeps time: the node's datapath computes the value
// at issue and the node's memory marks the word usable from the returned cycle. A plain object,
// not a SystemC module: it has no process of its own, and a module would add its kernel
// record to every node.

#include <cstddef>
#include <cstdint>

#include "models/cycle_type.hpp"

namespace torus {

struct FmaStats {
  std::uint64_t issued = 0;
  std::uint64_t busy_cycles = 0;  // cycles with at least one issue
};

class FmaPipeline {
 public:
  FmaPipeline(Cycle latency, unsigned per_cycle);

  bool has_slot(Cycle cycle) const { return cycle != current_cycle_ || issued_this_cycle_ < per_cycle_; }
  // Precondition: has_slot(cycle); cycles passed must not decrease. Returns the cycle from
  // which the result may be used.
  Cycle issue(Cycle cycle);
  // A fast-forwarded run: `count` fma issued over `cycles` distinct cycles, the last at `last`,
  // all after every earlier issue. No more may issue at `last`: a run ends where the ordinary
  // issue of the next cycle takes over.
  void issue_run(std::size_t count, std::size_t cycles, Cycle last);

  Cycle latency() const { return latency_; }
  unsigned per_cycle() const { return per_cycle_; }
  const FmaStats& stats() const { return stats_; }

 private:
  Cycle latency_;
  Cycle current_cycle_ = never;
  FmaStats stats_;
  unsigned per_cycle_;
  unsigned issued_this_cycle_ = 0;
};

}  // namespace torus
