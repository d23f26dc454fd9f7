#include "sim/algorithm.hpp"

#include "sim/algorithms/factories.hpp"
#include "sim/registry.hpp"

namespace torus {
namespace {

const Registry<Algorithm>& registry() {
  static const Registry<Algorithm> table("algorithm", {{"orbital", make_orbital}});
  return table;
}

}  // namespace

std::vector<std::string> algorithm_names() { return registry().names(); }

std::unique_ptr<Algorithm> make_algorithm(const std::string& name) { return registry().make(name); }

}  // namespace torus
