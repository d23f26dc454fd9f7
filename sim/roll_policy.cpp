#include "sim/roll_policy.hpp"

#include "sim/registry.hpp"
#include "sim/roll_policies/factories.hpp"

namespace torus {
namespace {

const Registry<RollPolicy>& roll_policies() {
  static const Registry<RollPolicy> table("roll_policy", {{"after_compute", make_after_compute}, {"overlapped", make_overlapped}});
  return table;
}

}  // namespace

std::vector<std::string> roll_policy_names() { return roll_policies().names(); }

std::unique_ptr<RollPolicy> make_roll_policy(const std::string& name) { return roll_policies().make(name); }

}  // namespace torus
