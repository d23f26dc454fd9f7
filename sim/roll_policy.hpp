#pragma once
// The roll policy: when a node may start a step and when each word of a rolled block may
// leave. The node implements the mechanics (queues, credits, buffers); a policy only decides.

#include <memory>
#include <string>
#include <vector>

namespace torus {

// What must hold before a queued word may leave.
enum class SendRelease {
  ComputeDone,  // every fma of the step has retired
  WordPresent,  // the word (unmodified in the step) has arrived or is held
  WordFinal,    // the word's last update of the step has retired
};

enum class BlockRole { Accumulator, Operand, Coefficient };

// Contract: release(role) is fixed for the policy; when waits_for_whole_blocks() a node starts
// a step only once every block arriving for it is complete, otherwise each fma waits only for
// the words it reads.
class RollPolicy {
 public:
  virtual ~RollPolicy() = default;
  virtual std::string name() const = 0;
  virtual bool waits_for_whole_blocks() const = 0;
  virtual SendRelease release(BlockRole role) const = 0;
};

std::unique_ptr<RollPolicy> make_roll_policy(const std::string& name);
std::vector<std::string> roll_policy_names();

}  // namespace torus
