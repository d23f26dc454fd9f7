#pragma once
// The built-in roll policies, one per file; roll_policy.cpp maps names to these.

#include <memory>

#include "sim/roll_policy.hpp"

namespace torus {

std::unique_ptr<RollPolicy> make_after_compute();
std::unique_ptr<RollPolicy> make_overlapped();

}  // namespace torus
