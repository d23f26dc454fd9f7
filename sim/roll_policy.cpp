#include "sim/roll_policy.hpp"

#include <stdexcept>

#include "kernels/text.hpp"
#include "sim/roll_policies/factories.hpp"

namespace torus {
namespace {

struct Entry {
  const char* name;
  std::unique_ptr<RollPolicy> (*make)();
};

const std::vector<Entry>& registry() {
  static const std::vector<Entry> entries = {{"after_compute", make_after_compute}, {"overlapped", make_overlapped}};
  return entries;
}

}  // namespace

std::vector<std::string> roll_policy_names() {
  std::vector<std::string> names;
  for (const auto& e : registry()) names.emplace_back(e.name);
  return names;
}

std::unique_ptr<RollPolicy> make_roll_policy(const std::string& name) {
  for (const auto& e : registry())
    if (name == e.name) return e.make();
  throw std::invalid_argument("roll_policy: '" + name + "' is not allowed; allowed: " + join(roll_policy_names(), ", "));
}

}  // namespace torus
