#include "models/narrow_cycle.hpp"

#include <string>

namespace torus {

void NarrowCycle::refuse(Cycle cycle) {
  throw CycleLimitError(std::string(CycleLimitError::opening) + ", up to cycle " + std::to_string(limit) + "; this run reaches cycle " +
                        std::to_string(cycle) + ": time it with engine event, which has no such limit");
}

}  // namespace torus
