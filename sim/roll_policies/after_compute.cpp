#include "sim/roll_policies/factories.hpp"

namespace torus {
namespace {

// Compute, then roll: the simplest schedule to reason about, and the one the paper's step
// count assumes. A step costs its compute plus the time to move its largest block.
class AfterCompute final : public RollPolicy {
 public:
  std::string name() const override { return "after_compute"; }
  bool waits_for_whole_blocks() const override { return true; }
  SendRelease release(BlockRole) const override { return SendRelease::ComputeDone; }
};

}  // namespace

std::unique_ptr<RollPolicy> make_after_compute() { return std::make_unique<AfterCompute>(); }

}  // namespace torus
