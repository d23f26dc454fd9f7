#include "sim/roll_policies/factories.hpp"

namespace torus {
namespace {

// Overlap communication with computation: blocks the step does not modify leave at once (in
// the order the neighbour will use them), each accumulator word leaves as soon as its last
// update retires, and a receiver uses words as they arrive.
class Overlapped final : public RollPolicy {
 public:
  std::string name() const override { return "overlapped"; }
  bool waits_for_whole_blocks() const override { return false; }
  SendRelease release(BlockRole role) const override {
    return role == BlockRole::Accumulator ? SendRelease::WordFinal : SendRelease::WordPresent;
  }
};

}  // namespace

std::unique_ptr<RollPolicy> make_overlapped() { return std::make_unique<Overlapped>(); }

}  // namespace torus
